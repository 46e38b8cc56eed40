// The Explore page's trained-model requests, as its worker runs them (engine/api.ts in
// Node): the shipped 'reverse' checkpoint on its own probe example gives a trace of the
// shape engine.run gives, whose recorded attention is the model's own, and bad input
// comes back as an error at the text box, not a throw.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { findStage, loadAttention, type AttentionEngine, type Trace } from '../../dist/node.js';
import { engineApi, type EngineApi, type RunOutcome } from '../../web/src/workers/api.js';
import type { CheckpointRecord } from '../../web/src/model/checkpoint.js';
import type { TrainedModelRef } from '../../web/src/workers/trained-trace.js';
import { trainStateFromHash, trainerOptions } from '../../web/src/settings/train-settings.js';

const folder = new URL('../../web/public/checkpoints/', import.meta.url);
const record = JSON.parse(readFileSync(new URL('reverse.json', folder), 'utf8')) as CheckpointRecord;
const weights = new Uint8Array(readFileSync(new URL('reverse.safetensors', folder)));
const reverse: TrainedModelRef = { key: 'checkpoint:reverse', settings: record.settings, weights };
/** The probe example of the record's last snapshot: 8 symbols, '|', the 8 reversed. */
const example = record.timeline.at(-1)!.probe.tokens;

let engine: AttentionEngine;
let api: EngineApi;
beforeAll(async () => {
  engine = await loadAttention();
  api = engineApi(() => Promise.resolve(engine));
});

function traceOf(outcome: RunOutcome): Trace {
  if (!outcome.ok) throw new Error(outcome.error);
  return outcome.trace;
}

describe('a trained model on the Explore page', () => {
  it('runs the shipped reverse model on its probe example: every stage, the model\u2019s own attention', async () => {
    expect(example).toEqual(['3', '7', '1', '1', '1', '0', '5', '6', '|', '6', '5', '0', '1', '1', '1', '7', '3']);
    const trace = traceOf(await api.run({ trained: reverse, text: example.join(' ') }));
    expect(trace.mode).toBe('decoder');
    expect(trace.tokens).toEqual([example]);
    expect(trace.sourceTokens).toEqual([]);
    expect(trace.config).toMatchObject({ dModel: 32, heads: 4, layers: 2, ffnDim: 64, norm: 'pre', positional: true });
    for (const name of [
      'decoder.self_attn.scores',
      'decoder.self_attn.mask',
      'decoder.self_attn.q_proj',
      'decoder.self_attn.output',
    ])
      for (const layer of [0, 1]) expect(findStage(trace, name, layer), `${name} ${layer}`).toBeDefined();

    // The same model, built and run directly.
    const state = trainStateFromHash(`#train&${record.settings}`).state;
    const trainer = engine.createTrainer(trainerOptions(state));
    trainer.model.loadWeights(weights);
    const vocabulary = trainer.vocabulary()!;
    const ids = Int32Array.from(example, (t) => vocabulary.indexOf(t));
    const direct = trainer.model.forward({
      ids,
      batch: 1,
      seq: ids.length,
      record: { stages: ['decoder.self_attn.weights'], layers: [0] },
    });
    const recorded = findStage(trace, 'decoder.self_attn.weights', 0)!;
    expect(recorded.axes).toEqual(['B', 'H', 'Sq', 'Sk']);
    expect(recorded.shape).toEqual([1, 4, 17, 17]);
    expect(recorded.data).toEqual(direct.trace!.stages[0].data);
    trainer.dispose();

    // Trained, not random: one head of layer 0 reads the input backwards. Position i >= 8 predicts
    // output symbol i - 7, which is input symbol 15 - i.
    const onReverse = (head: number) => {
      let sum = 0;
      for (let i = 8; i < 16; i++) sum += recorded.data[(head * 17 + i) * 17 + (15 - i)];
      return sum / 8;
    };
    expect(Math.max(...[0, 1, 2, 3].map(onReverse))).toBeGreaterThan(0.8);
  });

  it('pads a batch of lines and masks the padding', async () => {
    const trace = traceOf(await api.run({ trained: reverse, text: '3 7 1 |\n  2 |  \n' }));
    expect(trace.tokens).toEqual([
      ['3', '7', '1', '|'],
      ['2', '|'],
    ]);
    const padding = findStage(trace, 'decoder.self_attn.mask.padding', 0)!;
    expect(padding.shape).toEqual([2, 4]);
    expect(Array.from(padding.data)).toEqual([0, 0, 0, 0, 0, 0, 1, 1]);
    expect(findStage(trace, 'decoder.self_attn.weights', 1)!.shape).toEqual([2, 4, 4, 4]);
  });

  it('reports bad input at the text box: an unknown token, too many tokens, nothing typed', async () => {
    expect(await api.run({ trained: reverse, text: '3 x 1' })).toEqual({
      ok: false,
      field: 'text',
      error: expect.stringMatching(/^'x' is not a token of this task \(its tokens: 0 1 2 3 4 5 6 7 8 9 \|\)/),
    });
    expect(await api.run({ trained: reverse, text: '1 2\n3 y' })).toMatchObject({
      ok: false,
      field: 'text',
      error: expect.stringMatching(/^Line 2: 'y'/),
    });
    expect(await api.run({ trained: reverse, text: '1 '.repeat(18) })).toEqual({
      ok: false,
      field: 'text',
      error: "18 tokens: this model reads at most 17 (its task's sequence length).",
    });
    expect(await api.run({ trained: reverse, text: ' \n ' })).toEqual({
      ok: false,
      field: 'text',
      error: 'Type some tokens first.',
    });
    // The model still works after each.
    expect(traceOf(await api.run({ trained: reverse, text: '1 2 |' })).tokens).toEqual([['1', '2', '|']]);
  });

  it('reports a model that does not build, and does not keep it', async () => {
    const truncated: TrainedModelRef = { key: 'broken', settings: record.settings, weights: weights.subarray(0, 1000) };
    const outcome = await api.run({ trained: truncated, text: '1 2 |' });
    expect(outcome).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^The model's weights do not fit its settings: /),
    });
    expect(outcome).not.toHaveProperty('field');
    const unreadable = await api.run({
      trained: { ...reverse, key: 'bad-settings', settings: 'task=juggle' },
      text: '1',
    });
    expect(unreadable).toMatchObject({
      ok: false,
      error: expect.stringMatching(/^The model's settings do not read: Task: unknown choice 'juggle'/),
    });
    // The same key with good weights builds now: the failure was not cached.
    expect(traceOf(await api.run({ trained: { ...truncated, weights }, text: '1 2 |' })).tokens).toEqual([
      ['1', '2', '|'],
    ]);
  });

  it('keeps the heap flat over repeated runs of a kept model', async () => {
    await api.run({ trained: reverse, text: example.join(' ') });
    const before = engine.heapBytesInUse();
    for (let i = 0; i < 50; i++)
      traceOf(await api.run({ trained: reverse, text: example.slice(0, 1 + (i % 17)).join(' ') }));
    expect(engine.heapBytesInUse()).toBe(before);
  });
});
