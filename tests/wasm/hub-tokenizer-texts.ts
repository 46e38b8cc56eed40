// The text table of the hub tokenizer suites: every kind of text the tokenizers of the
// modern families must cut exactly as Hugging Face's do.
export const TEXTS: Record<string, string> = {
  english: "The quick brown fox jumps over the lazy dog. It's 5 o'clock, isn't it? We'll see; they've gone.",
  contractionsUpper: "IT'S WE'LL THEY'D I'M YOU'RE DON'T",
  caseFolds: "It'ſ a long s, 'ſ and 'K (Kelvin sign) and 'k",
  code: 'def main(argv):\n\tif len(argv) > 1:\n\t\treturn argv[1]  # comment\n    x = {"a": [1, 2, 3]}\r\n\treturn None\n',
  crlf: 'line one\r\nline two\r\n\r\nline four\r',
  cjk: '日本語のテキストと中文文本，还有한국어 텍스트。',
  emoji: 'I ❤️ 🦀! 👨‍👩‍👧‍👦 family, 👍🏽 thumbs, 🏳️‍🌈 flag, 🇫🇷 and 🧑🏿‍💻',
  accentsComposed: 'café naïve résumé Ångström Ελληνικά',
  accentsDecomposed: 'cafe\u0301 nai\u0308ve re\u0301sume\u0301 A\u030angstro\u0308m',
  compatibility: 'ﬁnance ① ② Ｈｅｌｌｏ　ｗｏｒｌｄ ㎏ ™ ½ ｶﾀｶﾅ',
  whitespace:
    '  leading   and\ttrailing  \n\n\n  spaces \u00a0 nbsp \u2003 em \u3000 ideographic \u0085 nel \u2028 ls   ',
  newlines: '\n\nfirst\n\n\nsecond\n \n',
  numbers: '3.14159 1234567890123 1,000,000 ٣٤٥ ١٢ 12th 0x1F ²³ Ⅻ',
  specialTokens:
    '<|begin_of_text|>Hi<|eot_id|><|im_start|>user\nhello<|im_end|>\n<start_of_turn>model<end_of_turn><bos><s></s> <unk>',
  partialSpecials: '<|im_start <start_of_turn <|begin_of_text| <b os> <0x41>',
  longWord:
    'Pneumonoultramicroscopicsilicovolcanoconiosis ' + 'supercalifragilistic'.repeat(10) + ' ' + 'a'.repeat(300),
  loneSurrogates: 'bad \ud800 high, \udc00 low, pair \ud83d\ude00 ok, end \ud83d',
  controls: 'tab\tnull\u0000bell\u0007 del\u007f zwsp\u200b bom\ufeff soft\u00adhyphen',
  rtl: 'مرحبا بالعالم שלום עולם',
  punctuation: '¿Qué? ¡Sí! «quotes» “curly” — dash… (parens) [brackets] {braces} @#$%^&*_+=|\\/<>~`',
  // For the added tokens with lstrip / rstrip / single_word / normalized (hub-tokenizer-variants.ts).
  addedTokenFlags: 'a <mask> b  <mask>[END]   x cat concat cats, a cat. the dog barks, hotdog Hello World!',
  bomFirst: '\ufeffa text that starts with a byte order mark',
  empty: '',
  space: ' ',
};

/** Pieces random texts are made of: every class of character the table has, and parts of special tokens. */
const PIECES = [
  'a',
  'Z',
  'é',
  'e\u0301',
  'ß',
  'ſ',
  '\u212a',
  'İ',
  'Σ',
  'ς',
  '日',
  '本',
  '한',
  'ｶ',
  'Ｈ',
  'ﬁ',
  '①',
  '²',
  '٣',
  '7',
  '42',
  ' ',
  '  ',
  '\t',
  '\n',
  '\r\n',
  '\r',
  '\u00a0',
  '\u0085',
  '\u2028',
  '\u3000',
  '\ufeff',
  '\u200b',
  '\u200d',
  "'s",
  "'S",
  "'ll",
  "'ſ",
  '.',
  ',',
  '!',
  '?',
  '-',
  '_',
  '(',
  ')',
  '{',
  '}',
  '#',
  '…',
  '—',
  '«',
  '“',
  '😀',
  '👍',
  '🏽',
  '\ufe0f',
  '🇫',
  '🇷',
  '\ud800',
  '\udc00',
  '\u0000',
  '\u007f',
  '<',
  '>',
  '|',
  '<s>',
  '</s>',
  '<bos>',
  '<|im_start|>',
  '<|im_end|>',
  '<start_of_turn>',
  '<|begin_of_text|>',
  '<0x41>',
  '▁',
];

/** `count` texts of up to `maxPieces` pieces from a seeded generator (the same texts every run). */
export function randomTexts(count: number, maxPieces: number, seed = 27): string[] {
  let state = seed >>> 0;
  const next = () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0; // LCG: reproducible, good enough to pick pieces
    return state / 2 ** 32;
  };
  return Array.from({ length: count }, () => {
    const n = Math.floor(next() * (maxPieces + 1));
    return Array.from({ length: n }, () => PIECES[Math.floor(next() * PIECES.length)]).join('');
  });
}
