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
  empty: '',
  space: ' ',
};
