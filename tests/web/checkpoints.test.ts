// The shipped checkpoints (web/public/checkpoints/): each is what its settings give when
// retrained by the project's trainer (bit for bit: weights, curves, snapshots), it loads
// into a model of those settings and reaches what its record says, and the trained heads
// do what its description claims (named by the Train view's own head labels).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadAttention } from '../../dist/node.js';
import {
  CHECKPOINT_FORMAT,
  checkRecord,
  packProbe,
  unpackProbe,
  type CheckpointIndex,
  type CheckpointRecord,
} from '../../web/src/model/checkpoint.js';
import { CHECKPOINT_PLANS, buildCheckpoint, checkpointIndexOf } from '../../web/src/workers/checkpoint-builder.js';
import type { Probe } from '../../web/src/model/training-data.js';
import { TrainingSession } from '../../web/src/workers/training.js';
import {
  DEFAULT_TRAIN_STATE,
  runLimits,
  trainStateFromHash,
  trainStateToHash,
  trainerOptions,
} from '../../web/src/settings/train-settings.js';
import type { PatternName } from '../../web/src/model/head-patterns.js';
import { headLabel } from '../../web/src/train/probe-view.js';

const folder = new URL('../../web/public/checkpoints/', import.meta.url);
const shipped = (id: string) => ({
  record: JSON.parse(readFileSync(new URL(`${id}.json`, folder), 'utf8')) as CheckpointRecord,
  weights: new Uint8Array(readFileSync(new URL(`${id}.safetensors`, folder))),
});

describe('shipped checkpoints', () => {
  it('are listed in index.json, the first with the Train view\u2019s starting settings', () => {
    const index = JSON.parse(readFileSync(new URL('index.json', folder), 'utf8')) as CheckpointIndex;
    expect(index).toEqual(checkpointIndexOf(CHECKPOINT_PLANS));
    expect(index.format).toBe(CHECKPOINT_FORMAT);
    expect(trainStateFromHash(`#train&${CHECKPOINT_PLANS[0].settings}`).state).toEqual(DEFAULT_TRAIN_STATE);
    expect(() => checkRecord({ format: 'other' }, 'x')).toThrow(/not an attention-playground checkpoint/);
  });

  it('are what their settings give when retrained, bit for bit', async () => {
    const engine = await loadAttention({ build: 'simd' });
    for (const plan of CHECKPOINT_PLANS) {
      const { record, weights } = buildCheckpoint(engine, plan);
      const files = shipped(plan.id);
      expect(JSON.parse(JSON.stringify(record)), plan.id).toEqual(files.record);
      expect(Buffer.from(weights).equals(Buffer.from(files.weights)), `${plan.id} weights`).toBe(true);
    }
  }, 120_000);

  it('load into a model of their settings and score what their record says', async () => {
    const engine = await loadAttention({ build: 'simd' });
    for (const plan of CHECKPOINT_PLANS) {
      const { record, weights } = shipped(plan.id);
      const { state } = trainStateFromHash(`#train&${record.settings}`);
      const session = new TrainingSession(engine);
      const created = session.create(trainerOptions(state), runLimits(state));
      expect(created.ok).toBe(true);
      const loaded = session.loadWeights(weights);
      if (!loaded.ok) throw new Error(loaded.error.message);
      const [evaluation] = loaded.progress.heldOut;
      expect(evaluation.sequenceAccuracy, plan.id).toBeCloseTo(record.heldOut.at(-1)!.sequenceAccuracy, 3);
      expect(evaluation.sequenceAccuracy).toBeGreaterThanOrEqual((state.stopAt as number) / 100);
      // The last snapshot is the trained model's probe, quantized to 1/255.
      const last = unpackProbe(record.timeline.at(-1)!.probe);
      expect(record.timeline.at(-1)!.step).toBe(record.step);
      expect(last.tokens).toEqual(loaded.progress.probe.tokens);
      loaded.progress.probe.heads.forEach((h, i) => {
        const quantized = last.heads[i].weights;
        for (let j = 0; j < h.weights.length; j++)
          expect(Math.abs(quantized[j] - h.weights[j])).toBeLessThanOrEqual(0.5 / 255 + 1e-6);
      });
      session.dispose();
    }
  });

  it('do what their descriptions say', () => {
    // Every head's label and score on a snapshot's probe, judged on its scored rows.
    const heads = (id: string, at: 'first' | 'last') => {
      const { timeline } = shipped(id).record;
      const probe = unpackProbe((at === 'first' ? timeline[0] : timeline.at(-1)!).probe);
      return probe.heads.map((h) => ({ layer: h.layer, ...headLabel(probe, h) }));
    };
    const has = (list: ReturnType<typeof heads>, layer: number, name: PatternName, above: number) =>
      list.some((h) => h.layer === layer && h.name === name && h.score > above);
    // Sort: a last-layer head attending by content.
    expect(has(heads('sort', 'last'), 1, 'content', 0.5)).toBe(true);
    // Reverse: first-layer heads on the reverse diagonal, which the untrained model did not have.
    expect(has(heads('reverse', 'last'), 0, 'reverse diagonal', 0.8)).toBe(true);
    expect(heads('reverse', 'first').some((h) => h.name === 'reverse diagonal')).toBe(false);
    // Induction: a second-layer head on the token after the earlier copy, and no first-layer one (the copy is a
    // different distance back in every example: position alone cannot find it); none before training.
    expect(has(heads('induction', 'last'), 1, 'induction', 0.8)).toBe(true);
    expect(heads('induction', 'last').filter((h) => h.layer === 0 && h.name === 'induction')).toEqual([]);
    // ... and the previous-token heads of the first layer that it needs, working on the earlier copy's rows (walk
    // item 4: they read "broad" / "unclear" when judged on the scored rows only).
    const layer0 = heads('induction', 'last').filter((h) => h.layer === 0);
    expect(layer0.map((h) => [h.name, h.rows])).toEqual([
      ['previous token', 'unscored'],
      ['previous token', 'unscored'],
    ]);
    expect(Math.max(...layer0.map((h) => h.score))).toBeGreaterThan(0.6);
    expect(heads('induction', 'first').some((h) => h.name === 'induction')).toBe(false);
  });

  it('keep probes through packing to within the quantization step', () => {
    const probe: Probe = {
      tokens: ['a', 'b'],
      expected: [null, 'b'],
      predicted: ['b', 'b'],
      confidence: [0.12345, 1],
      seq: 2,
      heads: [{ layer: 0, head: 0, weights: Float32Array.from([1, 0, 0.3, 0.75]) }],
    };
    const back = unpackProbe(JSON.parse(JSON.stringify(packProbe(probe))));
    expect(back.confidence).toEqual([0.123, 1]);
    expect(Array.from(back.heads[0].weights).map((w) => Math.round(w * 255))).toEqual([255, 0, 77, 191]);
    expect(trainStateToHash(trainStateFromHash('#train&task=reverse').state)).toBe('#train&task=reverse');
  });
});
