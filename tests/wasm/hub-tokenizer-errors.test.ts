// The hub tokenizer's errors and API: every broken or unsupported tokenizer.json /
// tokenizer_config.json is an AttentionError with code 'bad_file' and the JSON path of
// the field (a component type we do not implement, a wrong type, a merge naming an
// unknown token, malformed JSON); bad arguments name the argument; a disposed tokenizer
// says so. Built on Llama 2's small file, one field changed at a time.
import { beforeAll, describe, expect, it } from 'vitest';
import { AttentionError } from '../../wasm/src/errors.js';
import { createHubTokenizer, type HubTokenizer } from '../../wasm/src/hub-tokenizer/index.js';
import { type Json, realFiles } from './hub-tokenizer-refs.js';

let base: Json;
let config: Json;
let llama2: HubTokenizer;
beforeAll(() => {
  const files = realFiles('llama2');
  config = files.config;
  llama2 = createHubTokenizer(files.text, files.configText);
  // The broken files start from Llama 2's cut to its first 2000 merges (quick to read).
  const m = files.tokenizer.model as Model;
  const merges = (m.merges as string[]).slice(0, 2000);
  const kept = Object.entries(m.vocab).filter(([, id]) => (id as number) < 259);
  for (const merge of merges) {
    const [a, b] = merge.split(' ');
    for (const token of [a, b, a + b]) kept.push([token, m.vocab[token]]);
  }
  base = { ...files.tokenizer, model: { ...m, vocab: Object.fromEntries(kept), merges } };
  createHubTokenizer(JSON.stringify(base), null); // the cut file itself is fine
});

function failure(make: () => unknown): AttentionError {
  try {
    make();
  } catch (error) {
    expect(error).toBeInstanceOf(AttentionError);
    return error as AttentionError;
  }
  throw new Error('expected an AttentionError');
}

/** The error for tokenizer.json changed by `change` (a copy of Llama 2's, deep where the changes reach). */
function fileFailure(change: (file: Json) => void, configJson: string | null = null): AttentionError {
  const m = model(base);
  const file: Json = {
    ...structuredClone({ ...base, model: null }),
    model: { ...m, vocab: { ...m.vocab }, merges: [...m.merges] },
  };
  change(file);
  return failure(() => createHubTokenizer(JSON.stringify(file), configJson));
}

type Model = { type: string; vocab: Record<string, unknown>; merges: unknown[]; [k: string]: unknown };
const model = (file: Json) => file.model as Model;

describe('tokenizer.json errors name the field', () => {
  const cases: [string, (file: Json) => void, string, unknown][] = [
    ['a model type other than BPE', (f) => (model(f).type = 'Unigram'), 'tokenizer.json: model.type', 'Unigram'],
    [
      'an unsupported pre-tokenizer inside a Sequence',
      (f) => (f.pre_tokenizer = { type: 'Sequence', pretokenizers: [{ type: 'Digits' }, { type: 'Whitespace' }] }),
      'tokenizer.json: pre_tokenizer.pretokenizers[1].type',
      'Whitespace',
    ],
    [
      'an unsupported normalizer inside a Sequence',
      (f) => (f.normalizer = { type: 'Sequence', normalizers: [{ type: 'NFC' }, { type: 'Precompiled' }] }),
      'tokenizer.json: normalizer.normalizers[1].type',
      'Precompiled',
    ],
    [
      'an unsupported normalizer',
      (f) => (f.normalizer = { type: 'BertNormalizer' }),
      'tokenizer.json: normalizer.type',
      'BertNormalizer',
    ],
    [
      'an unsupported post-processor',
      (f) => (f.post_processor = { type: 'RobertaProcessing' }),
      'tokenizer.json: post_processor.type',
      'RobertaProcessing',
    ],
    [
      'an unsupported decoder inside a Sequence',
      (f) => (f.decoder = { type: 'Sequence', decoders: [{ type: 'Fuse' }, { type: 'WordPiece' }] }),
      'tokenizer.json: decoder.decoders[1].type',
      'WordPiece',
    ],
    [
      'a vocabulary that is no object',
      (f) => (model(f).vocab = ['a'] as never),
      'tokenizer.json: model.vocab',
      'Array(1)',
    ],
    ['a negative id', (f) => (model(f).vocab['▁t'] = -4), 'tokenizer.json: model.vocab.▁t', -4],
    ['an id given twice', (f) => (model(f).vocab['▁t'] = 5), 'tokenizer.json: model.vocab', 5],
    ['a merge that is a number', (f) => (model(f).merges[3] = 42), 'tokenizer.json: model.merges[3]', 42],
    ['a merge of three tokens', (f) => (model(f).merges[0] = '▁ t h'), 'tokenizer.json: model.merges[0]', '▁ t h'],
    [
      'a merge naming an unknown token',
      (f) => (model(f).merges[7] = 'q ZZZ'),
      'tokenizer.json: model.merges[7]',
      'ZZZ',
    ],
    [
      'a merge whose result is not in the vocabulary',
      (f) => (model(f).merges[2] = ['▁', '▁t']),
      'tokenizer.json: model.merges[2]',
      '▁▁t',
    ],
    ['merges that are no array', (f) => (model(f).merges = 'a b' as never), 'tokenizer.json: model.merges', 'a b'],
    ['BPE dropout', (f) => (model(f).dropout = 0.1), 'tokenizer.json: model.dropout', 0.1],
    ['an unknown unk_token', (f) => (model(f).unk_token = '<nope>'), 'tokenizer.json: model.unk_token', '<nope>'],
    [
      'byte_fallback that is no boolean',
      (f) => (model(f).byte_fallback = 'yes'),
      'tokenizer.json: model.byte_fallback',
      'yes',
    ],
    ['truncation', (f) => (f.truncation = { max_length: 8 }), 'tokenizer.json: truncation', 'object'],
    ['padding', (f) => (f.padding = { pad_id: 0 }), 'tokenizer.json: padding', 'object'],
    ['another format version', (f) => (f.version = '2.0'), 'tokenizer.json: version', '2.0'],
    [
      'a Split behaviour that does not exist',
      (f) => (f.pre_tokenizer = { type: 'Split', pattern: { String: ' ' }, behavior: 'Sideways', invert: false }),
      'tokenizer.json: pre_tokenizer.behavior',
      'Sideways',
    ],
    [
      'a pattern that is neither String nor Regex',
      (f) => (f.pre_tokenizer = { type: 'Split', pattern: { Glob: '*' }, behavior: 'Isolated', invert: false }),
      'tokenizer.json: pre_tokenizer.pattern',
      'object',
    ],
    [
      'an Oniguruma construct we do not translate (atomic group)',
      (f) => (f.pre_tokenizer = { type: 'Split', pattern: { Regex: '(?>a+)b' }, behavior: 'Isolated', invert: false }),
      'tokenizer.json: pre_tokenizer.pattern.Regex',
      '(?>a+)b',
    ],
    [
      'a possessive quantifier',
      (f) => (f.pre_tokenizer = { type: 'Split', pattern: { Regex: '\\p{L}++' }, behavior: 'Isolated', invert: false }),
      'tokenizer.json: pre_tokenizer.pattern.Regex',
      '\\p{L}++',
    ],
    [
      'a Unicode property JavaScript does not know',
      (f) =>
        (f.pre_tokenizer = { type: 'Split', pattern: { Regex: '\\p{Klingon}+' }, behavior: 'Isolated', invert: false }),
      'tokenizer.json: pre_tokenizer.pattern.Regex',
      '\\p{Klingon}+',
    ],
    [
      'a regex that does not compile',
      (f) => (f.normalizer = { type: 'Replace', pattern: { Regex: '(ab' }, content: '' }),
      'tokenizer.json: normalizer.pattern.Regex',
      '(ab',
    ],
    [
      'a template naming a special token it does not define',
      (f) => {
        (f.post_processor as { single: unknown[] }).single[0] = { SpecialToken: { id: '<bos>', type_id: 0 } };
      },
      'tokenizer.json: post_processor.single[0].SpecialToken.id',
      '<bos>',
    ],
    [
      "an added token on another token's id",
      (f) => (f.added_tokens as unknown[]).push({ id: 5, content: '<new>', special: true }),
      'tokenizer.json: added_tokens[3].id',
      5,
    ],
    [
      'a Metaspace replacement of two characters',
      (f) => (f.pre_tokenizer = { type: 'Metaspace', replacement: '▁▁' }),
      'tokenizer.json: pre_tokenizer.replacement',
      '▁▁',
    ],
    ['a missing model', (f) => delete f.model, 'tokenizer.json: model', 'undefined'],
  ];

  it.each(cases)('%s', (_what, change, field, value) => {
    const error = fileFailure(change);
    expect(error.code).toBe('bad_file');
    expect(error.field).toBe(field);
    expect(error.value).toEqual(value);
    expect(error.message).toContain(field);
  });

  it('malformed JSON and texts that are no strings', () => {
    const broken = failure(() => createHubTokenizer('{"model": ', null));
    expect([broken.code, broken.field]).toEqual(['bad_file', 'tokenizer.json']);
    const brokenConfig = failure(() => createHubTokenizer(JSON.stringify(base), '{oops'));
    expect([brokenConfig.code, brokenConfig.field]).toEqual(['bad_file', 'tokenizer_config.json']);
    expect(failure(() => createHubTokenizer(42 as never, null)).field).toBe('tokenizer.json');
    expect(failure(() => createHubTokenizer('[1, 2]', null)).field).toBe('tokenizer.json');
  });

  it('refuses a Llama / Gemma config whose add_bos_token / add_eos_token the post-processor does not follow', () => {
    // LlamaTokenizerFast rebuilds the post-processor from these (add_bos_token defaults to true).
    const text = JSON.stringify(base);
    const eos = failure(() => createHubTokenizer(text, JSON.stringify({ ...config, add_eos_token: true })));
    expect([eos.code, eos.field, eos.value]).toEqual(['bad_file', 'tokenizer_config.json: add_eos_token', true]);
    expect(eos.message).toMatch(/adds nothing after the text/);
    const bos = failure(() => createHubTokenizer(text, JSON.stringify({ ...config, add_bos_token: false })));
    expect([bos.field, bos.value]).toEqual(['tokenizer_config.json: add_bos_token', false]);
    const { add_bos_token: _, ...withoutKey } = config;
    const noBosInFile = { ...base, post_processor: null };
    expect(failure(() => createHubTokenizer(JSON.stringify(noBosInFile), JSON.stringify(withoutKey))).field).toBe(
      'tokenizer_config.json: add_bos_token',
    );
    // Other classes (Qwen2Tokenizer, PreTrainedTokenizerFast) keep tokenizer.json's post-processor.
    const other = createHubTokenizer(
      JSON.stringify(noBosInFile),
      JSON.stringify({ ...withoutKey, tokenizer_class: 'PreTrainedTokenizerFast' }),
    );
    expect(other.encode('a').tokens[0]).not.toBe('<s>');
  });

  it("names tokenizer_config.json's special tokens that tokenizer.json lacks", () => {
    const error = failure(() =>
      createHubTokenizer(JSON.stringify(base), JSON.stringify({ ...config, bos_token: '<bos>' })),
    );
    expect([error.code, error.field, error.value]).toEqual(['bad_file', 'tokenizer_config.json: bos_token', '<bos>']);
    // The object form of a special token is read too.
    const objectForm = createHubTokenizer(JSON.stringify(base), JSON.stringify({ eos_token: { content: '</s>' } }));
    expect(objectForm.specialTokens).toEqual({ bos: null, eos: 2, pad: null, unk: null });
  });
});

describe('the API', () => {
  it('encodes with or without special tokens, and decodes skipping them or not', () => {
    const withBos = llama2.encode('Hello world');
    expect(withBos.tokens).toEqual(['<s>', '▁Hello', '▁world']);
    expect(Array.from(withBos.ids)).toEqual([1, 22557, 1526]); // as Rust's tokenizers gives them
    expect(llama2.encode('Hello world', { addSpecialTokens: false }).tokens).toEqual(['▁Hello', '▁world']);
    expect(llama2.decode(withBos.ids)).toBe('<s> Hello world');
    expect(llama2.decode(withBos.ids, { skipSpecialTokens: true })).toBe('Hello world');
    expect(llama2.decode([])).toBe('');
    expect(llama2.kind).toBe('bpe');
    expect(llama2.vocabSize).toBe(32000);
    expect(llama2.specialTokens).toEqual({ bos: 1, eos: 2, pad: null, unk: 0 });
    expect([llama2.isSpecial(1), llama2.isSpecial(22557)]).toEqual([true, false]);
    expect([llama2.idOf('▁Hello'), llama2.idOf('<s>'), llama2.idOf('no such piece')]).toEqual([22557, 1, null]);
    expect([llama2.pieceOf(22557), llama2.pieceOf(13), llama2.pieceOf(-1)]).toEqual(['▁Hello', '<0x0A>', null]);
  });

  it('refuses bad arguments, naming them', () => {
    expect(failure(() => llama2.encode(42 as never)).field).toBe('text');
    expect(failure(() => llama2.encode('a', 7 as never)).field).toBe('pair');
    expect(failure(() => llama2.encode('a', { addSpecialTokens: 'no' as never })).field).toBe('addSpecialTokens');
    expect(failure(() => llama2.decode('12' as never)).field).toBe('ids');
    expect(failure(() => llama2.decode([1, 2.5])).field).toBe('ids');
    const outOfRange = failure(() => llama2.decode([1, 32000]));
    expect([outOfRange.code, outOfRange.field, outOfRange.value]).toEqual(['out_of_range', 'ids', 32000]);
    expect(failure(() => llama2.decode([1], { skipSpecialTokens: 1 as never })).field).toBe('skipSpecialTokens');
    expect(failure(() => llama2.idOf(5 as never)).field).toBe('token');
    expect(failure(() => llama2.pieceOf(1.5)).field).toBe('id');
  });

  it('says so once disposed', () => {
    const t = createHubTokenizer(JSON.stringify(base), null);
    t.dispose();
    for (const call of [() => t.encode('a'), () => t.decode([1]), () => t.idOf('a')]) {
      const error = failure(call);
      expect([error.code, error.field]).toEqual(['disposed', 'tokenizer']);
    }
    t.dispose(); // twice is fine
  });
});

describe('broken files at random', () => {
  // Every value of a small tokenizer.json (Llama 2's structure, a cut vocabulary) replaced, one
  // at a time, by a value of another type: the result is a working tokenizer or an
  // AttentionError naming a field of the file, never another exception.
  const REPLACEMENTS: unknown[] = [null, 0, -1, 1.5, 'x', '', true, [], [1, 'a'], {}, { type: 'Nope' }];

  function paths(value: unknown, path: (string | number)[] = [], out: (string | number)[][] = []) {
    out.push(path);
    if (Array.isArray(value)) value.slice(0, 4).forEach((v, i) => paths(v, [...path, i], out));
    else if (value && typeof value === 'object')
      Object.entries(value)
        .slice(0, 12)
        .forEach(([k, v]) => paths(v, [...path, k], out));
    return out;
  }

  function replaced(file: Json, path: (string | number)[], value: unknown): unknown {
    if (path.length === 0) return value;
    const [head, ...rest] = path;
    const copy = (Array.isArray(file) ? [...file] : { ...file }) as Record<string | number, unknown>;
    copy[head] = replaced((file as Record<string | number, unknown>)[head] as Json, rest, value);
    return copy;
  }

  it('gives a tokenizer or an AttentionError naming tokenizer.json, for every value replaced', () => {
    const all = paths(base);
    expect(all.length).toBeGreaterThan(50);
    let refused = 0;
    for (const path of all)
      for (const value of REPLACEMENTS) {
        const text = JSON.stringify(replaced(base, path, value));
        try {
          const t = createHubTokenizer(text, null);
          for (const sample of ['Hello world', '<s>x</s>', '日本 😀', '']) t.decode(t.encode(sample).ids);
        } catch (error) {
          if (!(error instanceof AttentionError))
            throw new Error(`${path.join('.')} = ${JSON.stringify(value)}: ${error}`);
          expect(error.field, `${path.join('.')} = ${JSON.stringify(value)}`).toMatch(/^tokenizer\.json/);
          refused++;
        }
      }
    expect(refused).toBeGreaterThan(all.length); // most replacements break the file
  });

  it('gives a tokenizer or an AttentionError naming tokenizer_config.json, for every config value replaced', async () => {
    const text = JSON.stringify(base);
    const withTemplate = { ...config, chat_template: '{% for m in messages %}{{ bos_token + m.content }}{% endfor %}' };
    let refused = 0;
    for (const path of paths(withTemplate))
      for (const value of REPLACEMENTS) {
        try {
          const t = createHubTokenizer(text, JSON.stringify(replaced(withTemplate, path, value)));
          if (t.chatTemplate !== null) await t.applyChatTemplate([{ role: 'user', content: 'hi' }]);
        } catch (error) {
          if (!(error instanceof AttentionError))
            throw new Error(`${path.join('.')} = ${JSON.stringify(value)}: ${error}`);
          expect(error.field, `${path.join('.')} = ${JSON.stringify(value)}`).toMatch(
            /^(tokenizer_config\.json|turns)/,
          );
          refused++;
        }
      }
    expect(refused).toBeGreaterThan(10);
  });
});
