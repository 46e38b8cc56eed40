// The hub tokenizer on tokenizer.json files made from the real ones (see
// hub-tokenizer-variants.ts) for the components the four real files do not exercise:
// Llama 3.2's BOS template, SmolLM2's pre-tokenizer, GPT-2's prefix space, the other
// normalizers, Split's behaviours and invert, Metaspace. Ours against Hugging Face's Rust
// tokenizers on the whole text table (ids with and without special tokens, pieces,
// decode), and against @huggingface/tokenizers except where it is known to differ.
import { beforeAll, describe, expect, it } from 'vitest';
import { type Json, type Trio, jsIds, loadTrio, realFiles, rustIds, rustTokens } from './hub-tokenizer-refs.js';
import { TEXTS, randomTexts } from './hub-tokenizer-texts.js';
import { variants } from './hub-tokenizer-variants.js';

let files: Record<string, Json>;
beforeAll(() => {
  files = variants({
    llama3: realFiles('llama3').tokenizer,
    qwen3: realFiles('qwen3').tokenizer,
    llama2: realFiles('llama2').tokenizer,
  });
}, 60_000);

/**
 * Where @huggingface/tokenizers 0.2.0 gives other ids than Rust (which we follow); each
 * entry is checked to still differ.
 *   lone surrogates on byte-fallback files: Rust reads them as U+FFFD first (see hub-tokenizer.test.ts).
 *   Metaspace with split: Rust cuts before every '▁' ('▁', '▁', '▁x'); it keeps '▁▁▁' whole.
 *   Digits: Rust's digits are all of \p{N} (², Ⅻ, ①); it splits only decimal digits.
 *   Punctuation: Rust isolates each punctuation character ('.', '.', '.'); it keeps runs.
 *   WhitespaceSplit: U+FEFF is no white space in Rust (nor in Unicode); JavaScript's \s has it.
 *   single_word: it finds 'cat' inside 'concat' too.
 *   Split behaviours Removed / MergedWithNext / MergedWithPrevious / Contiguous / invert
 *   in one Sequence: it drops or joins other pieces than Rust.
 */
const JS_DISAGREES: Record<string, string[]> = {
  'added-token-flags': ['addedTokenFlags', 'loneSurrogates'],
  'added-token-flags-byte-level': ['addedTokenFlags'],
  smollm2: ['compatibility', 'numbers'],
  normalizers: ['addedTokenFlags', 'bomFirst', 'code', 'controls', 'partialSpecials', 'punctuation', 'specialTokens'],
  'split-behaviours': [
    'addedTokenFlags',
    'bomFirst',
    'caseFolds',
    'cjk',
    'code',
    'compatibility',
    'contractionsUpper',
    'controls',
    'emoji',
    'english',
    'loneSurrogates',
    'numbers',
    'partialSpecials',
    'punctuation',
    'specialTokens',
  ],
  'merged-with-previous': ['loneSurrogates'],
  'metaspace-first': ['loneSurrogates'],
  'metaspace-always-split': ['addedTokenFlags', 'code', 'loneSurrogates', 'whitespace'],
};

const NAMES = [
  'added-token-flags',
  'added-token-flags-byte-level',
  'llama3.2-template',
  'smollm2',
  'gpt2-prefix-space',
  'normalizers',
  'split-behaviours',
  'split-inverted',
  'merged-with-previous',
  'metaspace-first',
  'metaspace-always-split',
];

it('has every variant the test list names', () => {
  expect(Object.keys(files).sort()).toEqual([...NAMES].sort());
});

describe.each(NAMES)('%s', (name) => {
  let trio: Trio;
  beforeAll(() => {
    trio = loadTrio(files[name], null);
  });

  it.each(Object.keys(TEXTS))('%s: ids, pieces and decode as Rust', async (textName) => {
    const text = TEXTS[textName];
    for (const addSpecialTokens of [true, false]) {
      const ours = trio.ours.encode(text, { addSpecialTokens });
      const expected = await rustIds(trio.rust, text, addSpecialTokens);
      expect(Array.from(ours.ids)).toEqual(expected);
      expect(ours.tokens).toEqual(await rustTokens(trio.rust, text, addSpecialTokens));
      expect(trio.ours.decode(expected)).toBe(await trio.rust.decode(expected, false));
      expect(trio.ours.decode(expected, { skipSpecialTokens: true })).toBe(await trio.rust.decode(expected, true));
    }
  });

  it('gives the ids, pieces and decode of Rust on 100 random texts', async () => {
    for (const text of randomTexts(100, 24, 99)) {
      const ids = await rustIds(trio.rust, text, true);
      expect(Array.from(trio.ours.encode(text).ids), JSON.stringify(text)).toEqual(ids);
      expect(trio.ours.encode(text).tokens, JSON.stringify(text)).toEqual(await rustTokens(trio.rust, text, true));
      expect(trio.ours.decode(ids), JSON.stringify(text)).toBe(await trio.rust.decode(ids, false));
    }
  });

  it.each(Object.keys(TEXTS))('%s: ids as @huggingface/tokenizers, or a listed disagreement', (textName) => {
    const listed = JS_DISAGREES[name]?.includes(textName) ?? false;
    for (const addSpecialTokens of [true, false]) {
      const ours = Array.from(trio.ours.encode(TEXTS[textName], { addSpecialTokens }).ids);
      const js = jsIds(trio.js!, TEXTS[textName], addSpecialTokens);
      if (listed) expect(ours).not.toEqual(js);
      else expect(ours).toEqual(js);
    }
  });
});

describe('pairs (TemplateProcessing pair template)', () => {
  it('gives the ids and type ids of Rust for a pair, with and without special tokens', async () => {
    const trio = loadTrio(files['llama3.2-template'], null, false);
    for (const addSpecialTokens of [true, false]) {
      const ours = trio.ours.encode('The first text.', 'And the second one!', { addSpecialTokens });
      const rust = await trio.rust.encode('The first text.', 'And the second one!', { addSpecialTokens });
      expect(Array.from(ours.ids)).toEqual(rust.getIds());
      expect(Array.from(ours.tokenTypes)).toEqual(rust.getTypeIds());
      expect(ours.tokens).toEqual(rust.getTokens());
    }
    expect(Array.from(trio.ours.encode('a', 'b').tokenTypes)).toEqual([0, 0, 1, 1]);
  });
});

/**
 * Oniguruma patterns (as tokenizers compiles them) and their JavaScript translation: a
 * Split on each pattern, then the small byte-level BPE, cuts each text as Rust does.
 */
const PATTERNS: [pattern: string, text: string][] = [
  ['.', 'a\rb\nc\u2028d\u0085e'],
  ['^\\w+|\\w+$', 'first line\nsecond line\r\nthird'],
  ['\\d+|\\w+', '٣٤٥ abc_12 ①② x² ⅫⅫ ªb e\u0301 a\u200db'],
  ['\\s+', 'a \u0085b\ufeffc\u00a0d\u200be\u3000f'],
  ['\\S+', 'a \u0085b\ufeffc\u00a0d\u200be\u3000f'],
  ['[^\\s\\p{L}]+', 'ab, cd!! 12 ef'],
  ['a{,2}', 'aaaaa b a'],
  ['\\x{41}+|\\x42', 'AAAB BA'],
  ['[\\p{^L}]+', 'ab12 cd--ef'],
  ['(?<word>\\p{Lu}\\p{Ll}+)', 'Hello World and ÉCOLE École'],
  ['(?i:hello|ſt)', 'HELLO Hello hellO ST ſt St'],
  ['\\-+|[-a]+', 'a--b-a'],
  ['[]a]+', ']]a b]'],
  ['(?=\\p{Lu})', 'splitBeforeCapitalLetters'],
  ['(?<=,)', 'a,b,,c'],
  ['\\p{Han}+|\\p{Hiragana}+|\\p{Katakana}+', '日本語のテキストと漢字'],
  ['[^\\S\\n]+|[\\D]+', 'a \t\n b 12 c\u00a0\u0085d'],
  ['\\.{2,}|\\{|\\}', 'wait... {x} .'],
];

describe('Oniguruma patterns translated', () => {
  it.each(PATTERNS)('%s', async (pattern, text) => {
    const file = {
      ...files.smollm2,
      added_tokens: [],
      pre_tokenizer: {
        type: 'Sequence',
        pretokenizers: [
          { type: 'Split', pattern: { Regex: pattern }, behavior: 'Isolated', invert: false },
          { type: 'ByteLevel', add_prefix_space: false, trim_offsets: false, use_regex: false },
        ],
      },
    };
    const trio = loadTrio(file, null, false);
    expect(trio.ours.encode(text).tokens).toEqual(await rustTokens(trio.rust, text, true));
  });
});
