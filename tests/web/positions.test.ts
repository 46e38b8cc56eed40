// The Positions view's numbers and the playground's modern settings, on real traces from
// the engine (Node, SIMD build): RoPE redone here agrees with the engine's q_rotated and
// its scores, and a shifted pair of positions gives the same score; ALiBi's slopes match
// the recorded bias; added positions are input − embeddings; a sliding window's reach
// grows by w − 1 per layer; the presets build heads that do what they say with RoPE,
// ALiBi and grouped K/V heads; old links that say positional=0 keep their meaning.
import { describe, expect, it } from 'vitest';
import type { Trace } from 'attention-playground';
import { DEFAULT_SPEC } from 'attention-playground';
import { loadAttention } from '../../dist/node.js';
import { findStage, headSlice } from '../../web/src/model/trace-model.js';
import {
  addedPositions,
  alibiSlopes,
  alibiView,
  kvHeadOf,
  positionKind,
  relativeScores,
  ropeView,
} from '../../web/src/model/positions-model.js';
import { layerReach, windowOf } from '../../web/src/model/window-model.js';
import { flowRows } from '../../web/src/model/flow-model.js';
import { crossCheck, DEFAULT_STATE, modelConfig, stateFromHash } from '../../web/src/settings/settings.js';

const engine = await loadAttention();
const texts = ['the cat sat on the mat and then it slept', 'a dog barked'];
const theta = DEFAULT_SPEC.ropeTheta;

function argmaxRow(trace: Trace, block: string, layer: number, head: number, row: number): number {
  const view = headSlice(findStage(trace, `${block}.weights`, layer)!, 0, head);
  let best = 0;
  for (let j = 1; j < view.cols; j++)
    if (view.values[row * view.cols + j] > view.values[row * view.cols + best]) best = j;
  return best;
}

describe('RoPE in the Positions view', () => {
  const trace = engine.run({ texts, mode: 'decoder', config: { dModel: 32, heads: 4, layers: 2, positions: 'rope' } });

  it('turns each recorded q again here and agrees with the engine’s q_rotated, in every head, token and layer', () => {
    expect(positionKind(trace, 'decoder.self_attn', 0)).toBe('rope');
    for (let layer = 0; layer < 2; layer++)
      for (let head = 0; head < 4; head++)
        for (const token of [0, 1, 4, 9]) {
          const view = ropeView(trace, 'decoder.self_attn', layer, 0, head, token, theta)!;
          expect(view.rotaryDim).toBe(8);
          expect(view.pairs.map((p) => p.invFreq)).toEqual([0, 1, 2, 3].map((i) => Math.pow(theta, -i / 4)));
          expect(view.maxDifference, `L${layer} h${head} t${token}`).toBeLessThan(1e-5);
        }
  });

  it('fails the check when the recorded q_rotated is not the rotation (the check can fail)', () => {
    const tampered: Trace = {
      ...trace,
      stages: trace.stages.map((s) =>
        s.name === 'decoder.self_attn.q_rotated' && s.layer === 0 ? { ...s, data: s.data.map((x) => x * 1.1) } : s,
      ),
    };
    expect(ropeView(tampered, 'decoder.self_attn', 0, 0, 1, 5, theta)!.maxDifference).toBeGreaterThan(1e-2);
    // A wrong base is not taken on trust: the rule does not fit, so the frequencies are measured (and agree).
    const guess = ropeView(trace, 'decoder.self_attn', 0, 0, 1, 5, 500)!;
    expect(guess.fromRule).toBe(false);
    expect(guess.maxDifference).toBeLessThan(1e-4);
  });

  it('draws each pair as a vector of constant length turning by position × its frequency', () => {
    const view = ropeView(trace, 'decoder.self_attn', 0, 0, 2, 3, theta)!;
    for (const pair of view.pairs) {
      const radius = Math.hypot(...pair.before);
      expect(pair.path[0][0]).toBeCloseTo(pair.before[0], 6);
      for (const [x, y] of pair.path) expect(Math.hypot(x, y)).toBeCloseTo(radius, 5);
      // The engine's rotated pair is the path at the token's position.
      expect(pair.engine[0]).toBeCloseTo(pair.path[3][0], 4);
      expect(pair.engine[1]).toBeCloseTo(pair.path[3][1], 4);
    }
  });

  it('gives the engine’s score for (m, n), and the same score with both moved by the same amount', () => {
    for (const [m, n, shift] of [
      [5, 2, 7],
      [9, 9, 30],
      [3, 0, 100],
      [1, 4, 1],
    ]) {
      const r = relativeScores(trace, 'decoder.self_attn', 1, 0, 3, m, n, shift, theta)!;
      expect(r.score).toBeCloseTo(r.engine, 4);
      expect(Math.abs(r.shifted - r.score)).toBeLessThan(1e-6 * (1 + Math.abs(r.score)));
    }
    // Moving only one of the two changes the score: the distance is what counts.
    const a = relativeScores(trace, 'decoder.self_attn', 0, 0, 0, 6, 2, 0, theta)!;
    const b = relativeScores(trace, 'decoder.self_attn', 0, 0, 0, 6, 3, 0, theta)!;
    expect(Math.abs(a.score - b.score)).toBeGreaterThan(1e-4);
  });

  it('reads the key of the query head’s K/V group under grouped-query attention', () => {
    const gqa = engine.run({
      texts,
      mode: 'decoder',
      config: { dModel: 32, heads: 4, kvHeads: 2, layers: 1, positions: 'rope' },
    });
    expect(findStage(gqa, 'decoder.self_attn.k_heads', 0)!.shape).toEqual([2, 2, 10, 8]);
    expect([0, 1, 2, 3].map((h) => kvHeadOf(gqa, 'decoder.self_attn', 0, h))).toEqual([0, 0, 1, 1]);
    // The Shapes view names the narrower K and V.
    const notes = flowRows(gqa, 'decoder', 0).map((r) => r.note);
    expect(notes).toContain(
      'three linear layers side by side, row by row: W_q E × E = 32 × 32; W_k and W_v (H_kv · d_k) × E = 16 × 32 each, ' +
        'fewer K/V heads (grouped-query attention); all three from the same input x',
    );
    expect(notes.some((n) => n.includes('(B, H_kv, S, d_k) = H_kv 2, each shared by 2 query heads'))).toBe(true);
    const r = relativeScores(gqa, 'decoder.self_attn', 0, 0, 3, 7, 4, 11, theta)!;
    expect(r.kvHead).toBe(1);
    expect(r.score).toBeCloseTo(r.engine, 4);
    expect(r.shifted).toBeCloseTo(r.score, 4);
  });

  it('reads another base and partial rotary off the trace, and still agrees with the engine', () => {
    const spec = {
      vocabSize: 12,
      dModel: 32,
      heads: 2,
      layers: 1,
      ffnDim: 32,
      causal: true,
      positions: 'rope',
      ropeTheta: 500000,
      ropeFraction: 0.5,
    } as const;
    const model = engine.createModel(spec, { seed: 3 });
    const out = model.forward({ ids: Int32Array.from([1, 2, 3, 4, 5, 6, 7, 8]), batch: 1, seq: 8, record: true });
    model.dispose();
    const other: Trace = { ...trace, stages: out.trace!.stages, tokens: [['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h']] };
    const view = ropeView(other, 'decoder.self_attn', 0, 0, 1, 6, theta)!;
    expect([view.headDim, view.rotaryDim, view.fromRule]).toEqual([16, 8, false]);
    view.pairs.forEach((p, i) => expect(p.invFreq).toBeCloseTo(Math.pow(500000, -i / 4), 5));
    expect(view.maxDifference).toBeLessThan(1e-4);
    const r = relativeScores(other, 'decoder.self_attn', 0, 0, 1, 6, 2, 9, theta)!;
    expect(r.score).toBeCloseTo(r.engine, 3);
    expect(r.shifted).toBeCloseTo(r.score, 3);
    // The playground's own model fits the rule.
    expect(ropeView(trace, 'decoder.self_attn', 0, 0, 1, 6, theta)!.fromRule).toBe(true);
  });

  it('rotates the first d_k − 1 dimensions of an odd d_k', () => {
    const odd = engine.run({ texts, mode: 'encoder', config: { dModel: 12, heads: 4, layers: 1, positions: 'rope' } });
    const view = ropeView(odd, 'encoder.self_attn', 0, 0, 1, 6, theta)!;
    expect([view.headDim, view.rotaryDim]).toEqual([3, 2]);
    expect(view.maxDifference).toBeLessThan(1e-5);
  });
});

describe('ALiBi and added positions in the Positions view', () => {
  it('reads each head’s slope off the recorded bias, as the paper’s formula gives it (also for H not a power of two)', () => {
    for (const heads of [4, 6]) {
      const trace = engine.run({
        texts,
        mode: 'decoder',
        config: { dModel: 24, heads, layers: 1, positions: 'alibi' },
      });
      expect(positionKind(trace, 'decoder.self_attn', 0)).toBe('alibi');
      const view = alibiView(trace, 'decoder.self_attn', 0, 4)!;
      expect(view.map((h) => h.slope)).toEqual(alibiSlopes(heads));
      for (const h of view) {
        expect(h.recordedSlope).toBeCloseTo(h.slope, 6);
        expect(Math.abs(h.row[4])).toBe(0);
        expect(h.row[0]).toBeCloseTo(-4 * h.slope, 5);
      }
    }
    expect(alibiSlopes(8)[0]).toBe(0.5);
    expect(alibiSlopes(6)).toEqual([0.25, 0.0625, 0.015625, 0.00390625, 0.5, 0.125]);
  });

  it('shows the added position vectors as input − embeddings', () => {
    const trace = engine.run({ texts, mode: 'encoder', config: { dModel: 16, heads: 2, layers: 1 } });
    expect(positionKind(trace, 'encoder.self_attn', 0)).toBe('added');
    const added = addedPositions(trace, 'encoder.self_attn', 1)!;
    expect([added.positions.rows, added.positions.cols]).toEqual([10, 16]);
    expect(added.maxDifference).toBeLessThan(1e-6);
    const none = engine.run({ texts, mode: 'encoder', config: { dModel: 16, heads: 2, layers: 1, positional: false } });
    expect(positionKind(none, 'encoder.self_attn', 0)).toBe('none');
  });
});

describe('the sliding window in the Masks view', () => {
  it('records the window as its own mask, and reach grows by w − 1 per layer', () => {
    const trace = engine.run({ texts, mode: 'decoder', config: { dModel: 16, heads: 2, layers: 3, window: 3 } });
    const mask = findStage(trace, 'decoder.self_attn.mask.window', 0)!;
    expect(mask.shape).toEqual([10, 10]);
    expect(windowOf(trace, 'decoder.self_attn', 0)).toBe(3);
    // Query 5 sees keys 3, 4, 5 only.
    const combined = findStage(trace, 'decoder.self_attn.mask', 0)!;
    expect(Array.from(combined.data.subarray(50, 60))).toEqual([1, 1, 1, 0, 0, 0, 1, 1, 1, 1]);
    expect(layerReach(trace, 'decoder.self_attn', 0, 10).map((r) => r.farthest)).toEqual([2, 4, 6]);
    const full = engine.run({ texts, mode: 'decoder', config: { dModel: 16, heads: 2, layers: 2 } });
    expect(layerReach(full, 'decoder.self_attn', 0, 10).map((r) => r.farthest)).toEqual([9, 9]);
    expect(windowOf(full, 'decoder.self_attn', 0)).toBe(0);
  });
});

describe('the playground’s modern settings', () => {
  it('keeps old links: positional=0 still means no positions, and positions defaults to sinusoidal', () => {
    const { state, problems } = stateFromHash('#positional=0');
    expect(problems).toEqual([]);
    expect([state.positional, state.positions]).toEqual([false, 'sinusoidal']);
    const withRope = stateFromHash('#positions=rope&kvHeads=2&window=4&normType=rmsnorm&ffn=gated').state;
    expect(modelConfig(withRope)).toMatchObject({
      positions: 'rope',
      kvHeads: 2,
      window: 4,
      normType: 'rmsnorm',
      ffn: 'gated',
    });
    expect(DEFAULT_STATE.kvHeads).toBe(0);
  });

  it('refuses, at the setting, K/V heads that do not divide the heads and RoPE on a d_k of 1', () => {
    expect(crossCheck({ ...DEFAULT_STATE, heads: 4, kvHeads: 3 }).kvHeads).toMatch(/must divide heads/);
    expect(crossCheck({ ...DEFAULT_STATE, heads: 4, kvHeads: 2 }).kvHeads).toBeUndefined();
    expect(crossCheck({ ...DEFAULT_STATE, dModel: 4, heads: 4, positions: 'rope' }).positions).toMatch(/RoPE/);
    expect(() => engine.run({ texts, mode: 'encoder', config: { heads: 4, kvHeads: 3 } })).toThrow(/kvHeads/);
  });

  it('refuses RoPE, ALiBi and a window in the cross mode, naming the setting in the playground’s words', () => {
    for (const [config, field] of [
      [{ positions: 'rope' }, 'positions'],
      [{ positions: 'alibi' }, 'positions'],
      [{ window: 2 }, 'window'],
    ] as const) {
      let error: { field?: string; message: string } | null = null;
      try {
        engine.run({ texts, source: texts, mode: 'cross', config });
      } catch (e) {
        error = e as { field?: string; message: string };
      }
      expect(error?.field).toBe(field);
      expect(error?.message).toMatch(/pick the encoder or decoder mode/);
    }
    // Positions switched off: the kind does not matter, and it runs.
    expect(() =>
      engine.run({ texts, source: texts, mode: 'cross', config: { positional: false, positions: 'rope' } }),
    ).not.toThrow();
  });

  it('builds the positional heads from RoPE alone: previous, next, self, first', () => {
    for (const kvHeads of [0, 2, 1]) {
      const trace = engine.run({
        texts,
        mode: 'encoder',
        config: { dModel: 32, heads: 4, kvHeads, layers: 1, preset: 'positional', positions: 'rope' },
      });
      expect(findStage(trace, 'encoder.positions')).toBeUndefined();
      for (const row of [2, 5, 8]) {
        const roles = [0, 1, 2, 3].map((h) => argmaxRow(trace, 'encoder.self_attn', 0, h, row));
        expect(roles, `kvHeads ${kvHeads} row ${row}`).toEqual([row - 1, row + 1, row, 0]);
      }
    }
  });

  it('keeps the sinusoidal positional heads with grouped K/V heads, and lets ALiBi alone attend nearest first', () => {
    const gqa = engine.run({
      texts,
      mode: 'encoder',
      config: { dModel: 32, heads: 4, kvHeads: 2, layers: 1, preset: 'positional' },
    });
    expect([0, 1, 2, 3].map((h) => argmaxRow(gqa, 'encoder.self_attn', 0, h, 4))).toEqual([3, 5, 4, 0]);
    const alibi = engine.run({
      texts,
      mode: 'encoder',
      config: { dModel: 32, heads: 4, layers: 1, preset: 'positional', positions: 'alibi' },
    });
    expect([0, 1, 2, 3].map((h) => argmaxRow(alibi, 'encoder.self_attn', 0, h, 4))).toEqual([4, 4, 4, 4]);
  });

  it('fills identity weights for grouped K/V heads from the first query head of each group', () => {
    const trace = engine.run({
      texts,
      mode: 'encoder',
      config: { dModel: 16, heads: 4, kvHeads: 2, layers: 1, preset: 'identity', positional: false },
    });
    const q = findStage(trace, 'encoder.self_attn.q_heads', 0)!;
    const k = findStage(trace, 'encoder.self_attn.k_heads', 0)!;
    expect(Array.from(headSlice(k, 0, 1).values)).toEqual(Array.from(headSlice(q, 0, 2).values));
    expect(Array.from(headSlice(k, 0, 0).values)).toEqual(Array.from(headSlice(q, 0, 0).values));
  });

  it('runs a gated FFN with RMSNorm in every mode and preset', () => {
    for (const mode of ['encoder', 'decoder', 'cross'] as const)
      for (const preset of ['random', 'identity', 'positional'] as const) {
        const trace = engine.run({
          texts,
          mode,
          source: mode === 'cross' ? ['le chat', 'un chien'] : undefined,
          config: { dModel: 16, heads: 2, layers: 1, ffn: 'gated', normType: 'rmsnorm', activation: 'silu', preset },
        });
        const stack = mode === 'cross' ? 'decoder' : mode;
        expect(findStage(trace, `${stack}.ffn.gate`, 0)!.shape).toEqual([2, 10, 64]);
        expect(trace.stages.every((s) => s.data.every(Number.isFinite) || s.name.endsWith('masked'))).toBe(true);
      }
  });
});
