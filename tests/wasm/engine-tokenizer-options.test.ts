// The engine's GPT-2 and BERT tokenizers with the options every Tokenizer has since the
// hub tokenizers came: encode without special tokens, decode skipping them, the special
// tokens' ids, and no chat template. Against Hugging Face's Rust tokenizers on the same
// tokenizer.json files (the tiny fixtures of tests/reference/fixtures/pretrained).
import { readFileSync, readdirSync } from 'node:fs';
import { Tokenizer as RustTokenizer } from 'tokenizers';
import { beforeAll, describe, expect, it } from 'vitest';
import { AttentionError, type PretrainedModel } from '../../dist/node.js';
import { ROOT, engineFor } from './helpers.js';

const DIR = `${ROOT}tests/reference/fixtures/pretrained/`;
const filesOf = (dir: string): Record<string, Uint8Array> =>
  Object.fromEntries(
    readdirSync(DIR + dir)
      .filter((f) => f !== 'expected.json')
      .map((f) => [f, new Uint8Array(readFileSync(DIR + dir + '/' + f))]),
  );
const TEXTS: [string, string | undefined][] = [
  ['The Café plays!', '中文 works'],
  ['Good day.', undefined],
  ['[CLS] typed [SEP] in text', 'and [MASK] here'],
];

describe.each(['bert-tiny', 'gpt2-tiny'])('%s', (dir) => {
  let model: PretrainedModel;
  let rust: RustTokenizer;
  beforeAll(async () => {
    model = await (await engineFor('simd')).loadPretrained({ files: filesOf(dir) });
    rust = RustTokenizer.fromString(readFileSync(`${DIR}${dir}/tokenizer.json`, 'utf8'));
  });

  it('encodes with and without special tokens as Rust, and decodes skipping them as Rust', async () => {
    for (const [text, pair] of TEXTS) {
      const second = model.tokenizer.kind === 'wordpiece' ? pair : undefined;
      for (const addSpecialTokens of [true, false]) {
        const ours = model.tokenizer.encode(text, second, { addSpecialTokens });
        const theirs = await rust.encode(text, second ?? null, { addSpecialTokens });
        expect(Array.from(ours.ids)).toEqual(theirs.getIds());
        expect(Array.from(ours.tokenTypes)).toEqual(theirs.getTypeIds());
        if (second === undefined)
          expect(Array.from(model.tokenizer.encode(text, { addSpecialTokens }).ids)).toEqual(theirs.getIds());
      }
      const ids = (await rust.encode(text, second ?? null)).getIds();
      expect(model.tokenizer.decode(ids, { skipSpecialTokens: true })).toBe(await rust.decode(ids, true));
      expect(model.tokenizer.decode(ids)).toBe(await rust.decode(ids, false));
    }
  });

  it('names its special tokens and has no chat template', async () => {
    const special = model.tokenizer.specialTokens;
    if (dir === 'gpt2-tiny') {
      expect(special).toEqual({ bos: 556, eos: 556, pad: null, unk: null });
      expect([model.tokenizer.isSpecial(556), model.tokenizer.isSpecial(13)]).toEqual([true, false]);
    } else {
      expect(special).toEqual({ bos: null, eos: null, pad: rust.tokenToId('[PAD]'), unk: rust.tokenToId('[UNK]') });
      for (const token of ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'])
        expect(model.tokenizer.isSpecial(rust.tokenToId(token)!)).toBe(true);
    }
    expect(model.tokenizer.chatTemplate).toBe(null);
    await expect(model.tokenizer.applyChatTemplate([{ role: 'user', content: 'hi' }])).rejects.toBeInstanceOf(
      AttentionError,
    );
    expect(() => model.tokenizer.encode('a', { addSpecialTokens: 'no' as never })).toThrow(AttentionError);
  });
});
