// A pretrained checkpoint as the Explore page's worker runs it (engine/api.ts in Node):
// the tiny GPT-2 and BERT fixtures load from files with progress per file, their traces
// carry the tokenizer's pieces (GPT-2's leading space as '·') and PyTorch's attention,
// the predictions are the top 5 of PyTorch's logits, and problems come back as outcomes
// (a file named, a text too long at the text box), never as throws.
import { readFileSync, readdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { findStage, loadAttention, type AttentionEngine } from '../../dist/node.js';
import { engineApi } from '../../web/src/workers/api.js';
import type { PretrainedProgress } from '../../web/src/model/pretrained-info.js';
import { candidateText, displayPiece } from '../../web/src/workers/pretrained-run.js';

const DIR = new URL('../reference/fixtures/pretrained/', import.meta.url);
const filesOf = (dir: string, except: string[] = []) =>
  readdirSync(new URL(dir, DIR))
    .filter((f) => f !== 'expected.json' && !except.includes(f))
    .map((f) => new File([readFileSync(new URL(`${dir}/${f}`, DIR))], f));
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const expectedOf = (dir: string): any => JSON.parse(readFileSync(new URL(`${dir}/expected.json`, DIR), 'utf8'));

let engine: AttentionEngine;
beforeAll(async () => {
  engine = await loadAttention();
});

const top5 = (logits: number[], row: number, vocab: number) =>
  logits
    .slice(row * vocab, (row + 1) * vocab)
    .map((v, id) => [v, id])
    .sort((a, b) => b[0] - a[0])
    .slice(0, 5)
    .map(([, id]) => id);

describe('pretrained models where the engine runs', () => {
  it('GPT-2: pieces, attention and the next token as PyTorch', async () => {
    const api = engineApi(() => Promise.resolve(engine));
    const progress: PretrainedProgress[] = [];
    const loaded = await api.loadPretrained({ files: filesOf('gpt2-tiny'), name: 'gpt2-tiny' }, (p) =>
      progress.push(p),
    );
    if (!loaded.ok) throw new Error(loaded.error);
    expect(loaded.model).toMatchObject({
      name: 'gpt2-tiny',
      family: 'gpt2',
      layers: 2,
      heads: 4,
      maxSeq: 32,
      predicts: true,
    });
    expect(progress.map((p) => p.file)).toEqual(['config.json', 'tokenizer.json', 'model.safetensors']);
    const e = expectedOf('gpt2-tiny');
    const outcome = await api.run({ pretrained: { key: loaded.model.key }, text: e.texts[0].text });
    if (!outcome.ok) throw new Error(outcome.error);
    expect(outcome.trace.mode).toBe('decoder');
    expect(outcome.trace.tokens).toEqual([['The', '·c', 'at', '·s', 'at', '·on', '·the', '·m', 'at', '.']]);
    expect(outcome.trace.stages.some((s) => s.name === 'logits')).toBe(false); // the (S, V) logits stay in the worker
    for (const layer of [0, 1]) {
      const weights = findStage(outcome.trace, 'decoder.self_attn.weights', layer)!;
      expect(weights.shape).toEqual([1, 4, 10, 10]);
      weights.data.forEach((v, i) => expect(Math.abs(v - e.attentions[layer][i])).toBeLessThanOrEqual(1e-4));
    }
    expect(outcome.predictions).toHaveLength(1);
    expect(outcome.predictions![0].candidates.map((c) => c.id)).toEqual(top5(e.logits, 9, 557));
    // Too long for the model: an error at the text box.
    const long = await api.run({ pretrained: { key: loaded.model.key }, text: 'the cat sat on the mat '.repeat(8) });
    expect(long).toMatchObject({ ok: false, field: 'text' });
    // A stale key: a message, not a throw.
    expect(await api.run({ pretrained: { key: 'gone' }, text: 'x' })).toMatchObject({ ok: false });
  });

  it('BERT: a pair with token types, [MASK] candidates; a missing file is named', async () => {
    const api = engineApi(() => Promise.resolve(engine));
    const loaded = await api.loadPretrained({ files: filesOf('bert-tiny') }, () => {});
    if (!loaded.ok) throw new Error(loaded.error);
    expect(loaded.model.name).toBe('BertForMaskedLM');
    const e = expectedOf('bert-tiny');
    const pair = await api.run({
      pretrained: { key: loaded.model.key },
      text: `${e.texts[0].text}\n${e.texts[0].text_pair}`,
    });
    if (!pair.ok) throw new Error(pair.error);
    expect(pair.trace.tokens[0]).toEqual(e.texts[0].tokens);
    const weights = findStage(pair.trace, 'encoder.self_attn.weights', 0)!;
    weights.data.forEach((v, i) => expect(Math.abs(v - e.attentions[0][i])).toBeLessThanOrEqual(1e-4));
    expect(pair.predictions).toEqual([]);
    const masked = await api.run({ pretrained: { key: loaded.model.key }, text: 'The cat [MASK] on the [MASK].' });
    if (!masked.ok) throw new Error(masked.error);
    expect(masked.predictions!.map((p) => [p.kind, p.candidates.length])).toEqual([
      ['mask', 5],
      ['mask', 5],
    ]);
    expect(await api.run({ pretrained: { key: loaded.model.key }, text: 'a\nb\nc' })).toMatchObject({
      ok: false,
      field: 'text',
    });
    // A broken checkpoint: the outcome names the file.
    expect(await api.loadPretrained({ files: filesOf('bert-tiny', ['config.json']) }, () => {})).toMatchObject({
      ok: false,
      code: 'missing_file',
      field: 'config.json',
    });
  });

  it('shows pieces and candidates readably', () => {
    expect(displayPiece('Ġthe', ' the', 'gpt2')).toBe('·the');
    expect(displayPiece('Ċ', '\n', 'gpt2')).toBe('↵');
    expect(displayPiece('Ã', '\uFFFD', 'gpt2')).toBe('Ã');
    expect(displayPiece('##ing', 'ing', 'bert')).toBe('##ing');
    expect(candidateText('\uFFFD', 225, 'gpt2')).toBe('(bytes of a character, id 225)');
  });
});
