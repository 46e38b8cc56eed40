// Writes the golden data for tests/core/test_wordpiece.cpp from an independent
// WordPiece implementation: Hugging Face's own Rust tokenizers (npm `tokenizers`,
// the library behind Python's BertTokenizerFast / AutoTokenizer), offline, from
// tokenizer.json files this script writes next to the fixture vocabulary. It also runs
// transformers.js' tokenizers (npm `@huggingface/tokenizers`) on every case and
// records where the two disagree, so the C++ test can say which one it follows.
//
//   node tests/reference/wordpiece_reference.mjs
//
// Inputs:  tests/reference/fixtures/wordpiece/vocab.txt (a small hand-made vocabulary)
// Outputs: tests/reference/fixtures/wordpiece/{uncased,cased,no_chinese}.tokenizer.json
//          tests/reference/fixtures/wordpiece/expected.json
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Tokenizer as RustTokenizer } from 'tokenizers';
import { Tokenizer as JsTokenizer } from '@huggingface/tokenizers';

const here = dirname(fileURLToPath(import.meta.url));
const dir = join(here, 'fixtures', 'wordpiece');
const vocabList = readFileSync(join(dir, 'vocab.txt'), 'utf8')
  .split('\n')
  .filter((line) => line !== '');
const vocab = Object.fromEntries(vocabList.map((token, id) => [token, id]));
const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
const id = (token) => vocab[token];

// A tokenizer.json as transformers' BertTokenizerFast saves it. `variant` changes
// the normalizer's flags and, for the cased file, the shapes of the normalizer (a
// Sequence) and the post-processor (BertProcessing), so the loader meets both.
function tokenizerJson({ lowercase, strip_accents, handle_chinese_chars, wrapped }) {
  const bert = { type: 'BertNormalizer', clean_text: true, handle_chinese_chars, strip_accents, lowercase };
  const template = {
    type: 'TemplateProcessing',
    single: [
      { SpecialToken: { id: '[CLS]', type_id: 0 } },
      { Sequence: { id: 'A', type_id: 0 } },
      { SpecialToken: { id: '[SEP]', type_id: 0 } },
    ],
    pair: [
      { SpecialToken: { id: '[CLS]', type_id: 0 } },
      { Sequence: { id: 'A', type_id: 0 } },
      { SpecialToken: { id: '[SEP]', type_id: 0 } },
      { Sequence: { id: 'B', type_id: 1 } },
      { SpecialToken: { id: '[SEP]', type_id: 1 } },
    ],
    special_tokens: {
      '[CLS]': { id: '[CLS]', ids: [id('[CLS]')], tokens: ['[CLS]'] },
      '[SEP]': { id: '[SEP]', ids: [id('[SEP]')], tokens: ['[SEP]'] },
    },
  };
  const bertProcessing = { type: 'BertProcessing', sep: ['[SEP]', id('[SEP]')], cls: ['[CLS]', id('[CLS]')] };
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map((content) => ({
      id: id(content),
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: wrapped ? { type: 'Sequence', normalizers: [bert] } : bert,
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: wrapped ? bertProcessing : template,
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
  };
}

// name -> the tokenizer.json settings and the vocab.txt options (for the C++ test's
// second loader) they amount to.
const configs = {
  uncased: {
    json: { lowercase: true, strip_accents: null, handle_chinese_chars: true },
    options: { lowercase: true, strip_accents: null, tokenize_chinese_chars: true },
  },
  cased: {
    json: { lowercase: false, strip_accents: false, handle_chinese_chars: true, wrapped: true },
    options: { lowercase: false, strip_accents: false, tokenize_chinese_chars: true },
  },
  no_chinese: {
    json: { lowercase: true, strip_accents: true, handle_chinese_chars: false },
    options: { lowercase: true, strip_accents: true, tokenize_chinese_chars: false },
  },
};

const longWord = 'a'.repeat(101);
// [text] or [text, text_b]; every text runs through every configuration.
const texts = [
  ['hello world'],
  ['Hello World'],
  ['HELLO WORLD'],
  ['The cat sat on the mat.'],
  ['the  cat\tsat\non\r\nthe mat'],
  ['café'],
  ['Café'],
  ['CAFÉ'],
  ['cafe\u0301'],
  ['naïve'],
  ['Ångström'],
  ['Crème Brûlée'],
  ['über straße'],
  ['Zürich'],
  ['el niño, señor'],
  ['ÀÉÎÕÜ'],
  ['ﬁ ligature'],
  ['ǅ Ǆ ǆ'],
  ['İstanbul'],
  ['ΑΣ Σ σς'],
  ['中文字'],
  ['東京 日本語'],
  ['我是中国人'],
  ['かな カナ'],
  ['ひらがなはかな'],
  ['한국어'],
  ['ソウル 東京'],
  ['𠀀 CJK extension B'],
  ['豈 compatibility ideograph'],
  ['hello, world!'],
  ['what?! why...'],
  ['“quotes” and ‘single’'],
  ['a—b–c'],
  ['wait…'],
  ['¿qué? ¡sí!'],
  ['«guillemets» · middle'],
  ['$5 + 3 = 8 ^ ` ~ | < >'],
  ['[brackets] {braces} (parens)'],
  ['a/b\\c@d#e%f&g*h'],
  ['€100 £5 ¥3 © 2024°'],
  ['@user #hashtag'],
  [longWord],
  ['a'.repeat(100)],
  [`${longWord} the`],
  ['the' + 'x'.repeat(150) + ' cat'],
  ['emoji 😀 smile'],
  ['🙂🙃'],
  ['♠ ♣ ★ ✓'],
  ['∑ ∫ √'],
  ['🇫🇷 flag'],
  ['x\u{1FAE8}x'],
  ['a\u0000b'],
  ['a\u0007b'],
  ['a\u200bb'],
  ['soft\u00adhyphen'],
  ['bom\ufeffhere'],
  ['private\ue000use'],
  ['replace\ufffdchar'],
  ['tab\tnew\nline\rcr'],
  ['nbsp\u00a0here'],
  ['em\u2003space'],
  ['ideographic\u3000space'],
  ['line\u2028sep'],
  ['next\u0085line'],
  ['vertical\u000btab\u000cff'],
  ['zero\u200dwidth joiner'],
  ['rtl\u202eoverride'],
  ['e\u0301\u0327 combining'],
  ['a\u0308\u0304'],
  ['\u0301 lone mark'],
  ['x\u20dd enclosing'],
  ['क्षि'],
  ['2024 12 345'],
  ['1,000.50'],
  ['3.14159'],
  ['١٢٣ arabic digits'],
  ['½ ¼ ²'],
  ["don't"],
  ["it's"],
  ["isn't it"],
  ["I'm we've they're"],
  ['do not'],
  ['[MASK]'],
  ['the [MASK] sat'],
  ['the[MASK]sat'],
  ['[mask] lowercase'],
  ['[CLS] [SEP] [PAD] [UNK]'],
  ['[MASK][MASK]'],
  ['[MAS K]'],
  ['[[MASK]]'],
  ['Hello [MASK] Café'],
  [''],
  [' '],
  ['   \t\n  '],
  ['\u00a0\u3000'],
  ['\u0000\u0007'],
  ['playing unaffable cooperation'],
  ['multilingual BERT'],
  ['abcdef'],
  ['hello##'],
  ['##hello'],
  ['##'],
  ['hello world', 'the cat sat'],
  ['Café', 'naïve'],
  ['', ''],
  ['[MASK] here', 'there [SEP]'],
  ['中文', '한국어'],
];

function writeTokenizerFiles() {
  const files = {};
  for (const [name, config] of Object.entries(configs)) {
    const file = `${name}.tokenizer.json`;
    writeFileSync(join(dir, file), `${JSON.stringify(tokenizerJson(config.json), null, 2)}\n`);
    files[name] = file;
  }
  return files;
}

async function rustRun(tokenizer, a, b) {
  const bare = await tokenizer.encode(a, null, { addSpecialTokens: false });
  const model = b === undefined ? await tokenizer.encode(a, null) : await tokenizer.encode(a, b);
  return {
    ids: b === undefined ? bare.getIds() : undefined,
    tokens: b === undefined ? bare.getTokens() : undefined,
    model_ids: model.getIds(),
    type_ids: model.getTypeIds(),
    decoded: await tokenizer.decode(model.getIds(), false),
    decoded_skip: await tokenizer.decode(model.getIds(), true),
  };
}

function jsRun(tokenizer, a, b) {
  const bare = tokenizer.encode(a, { add_special_tokens: false });
  const model = tokenizer.encode(a, { text_pair: b ?? null, return_token_type_ids: true });
  return { ids: b === undefined ? bare.ids : undefined, model_ids: model.ids, type_ids: model.token_type_ids };
}

const same = (x, y) => JSON.stringify(x) === JSON.stringify(y);

const files = writeTokenizerFiles();
const cases = [];
let disagreements = 0;
for (const name of Object.keys(configs)) {
  const json = readFileSync(join(dir, files[name]), 'utf8');
  const rust = RustTokenizer.fromString(json);
  const js = new JsTokenizer(JSON.parse(json), {});
  for (const [a, b] of texts) {
    const expected = await rustRun(rust, a, b);
    const entry = { config: name, text: a, ...(b === undefined ? {} : { text_b: b }), ...expected };
    const other = jsRun(js, a, b);
    if (!same(other.model_ids, expected.model_ids) || !same(other.type_ids, expected.type_ids)) {
      entry.js_model_ids = other.model_ids;
      disagreements += 1;
    }
    cases.push(entry);
  }
}

const versionOf = (name) =>
  JSON.parse(readFileSync(join(here, '..', '..', 'node_modules', name, 'package.json'), 'utf8')).version;
const rustVersion = versionOf('tokenizers');
const jsVersion = versionOf('@huggingface/tokenizers');
const golden = {
  reference:
    `tokenizers ${rustVersion} (Hugging Face's Rust tokenizers); js_model_ids where ` +
    `@huggingface/tokenizers ${jsVersion} (transformers.js) disagrees`,
  generated_by: 'tests/reference/wordpiece_reference.mjs',
  vocab: 'vocab.txt',
  configs: Object.fromEntries(
    Object.entries(configs).map(([name, config]) => [name, { tokenizer_json: files[name], ...config.options }]),
  ),
  cases,
};
writeFileSync(join(dir, 'expected.json'), `${JSON.stringify(golden, null, 1)}\n`);
console.log(
  `wrote ${cases.length} cases (${texts.length} texts x ${Object.keys(configs).length} configs); ` +
    `transformers.js disagrees on ${disagreements}`,
);
