// The numbers behind the Row by row, Head split and Step by step views, on real traces
// from the engine (Node, SIMD build). Each view recomputes a step from the recorded step
// before it, or compares two recorded tensors; these tests check that the recomputation
// agrees with the engine where it should, and that it disagrees when a recorded tensor is
// tampered with (so the views' check marks can fail).
import { describe, expect, it } from 'vitest';
import type { Trace } from 'attention-playground';
import { loadAttention } from '../../dist/node.js';
import { findStage } from '../../web/src/model/trace-model.js';
import { agrees, headWalk, softmaxRow } from '../../web/src/model/walk-model.js';
import { columns, headSplit } from '../../web/src/model/split-model.js';
import { projectionInput, rowWise } from '../../web/src/model/rows-model.js';

const engine = await loadAttention();
const texts = ['the cat sat on the mat', 'a dog barked'];

/** A copy of a trace whose stage `name` (layer 0) has every value multiplied by `factor`. */
function tampered(trace: Trace, name: string, factor: number): Trace {
  return {
    ...trace,
    stages: trace.stages.map((s) =>
      s.name === name && s.layer === 0 ? { ...s, data: s.data.map((x) => x * factor) } : s,
    ),
  };
}

describe('the Step by step walk', () => {
  const trace = engine.run({ texts, mode: 'decoder', config: { dModel: 32, heads: 4, layers: 2 } });

  it('recomputes every step of a row from the step before and agrees with the engine, in every head and layer', () => {
    for (let layer = 0; layer < 2; layer++)
      for (let head = 0; head < 4; head++)
        for (const [sequence, row] of [
          [0, 5],
          [0, 0],
          [1, 2],
          [1, 4],
        ]) {
          const walk = headWalk(trace, 'decoder.self_attn', layer, sequence, head, row)!;
          expect(walk.steps.map((s) => s.name)).toEqual(['scores', 'scaled', 'masked', 'weights', 'context']);
          for (const step of walk.steps)
            expect(agrees(step), `${step.name} L${layer} h${head} s${sequence} r${row}`).toBe(true);
        }
  });

  it('divides by √d_k with d_k = d_model / heads, whatever the sentence length', () => {
    const walk = headWalk(trace, 'decoder.self_attn', 0, 0, 1, 3)!;
    expect([walk.dModel, walk.heads, walk.dK, walk.divisor, walk.sq, walk.sk]).toEqual([32, 4, 8, Math.sqrt(8), 6, 6]);
    const scores = walk.steps[0].engineRow,
      scaled = walk.steps[1].engineRow;
    for (let j = 0; j < 6; j++) expect(scaled[j]).toBeCloseTo(scores[j] / Math.sqrt(8), 5);
    const unscaled = engine.run({ texts, mode: 'decoder', config: { dModel: 32, heads: 4, layers: 1, scale: false } });
    const off = headWalk(unscaled, 'decoder.self_attn', 0, 0, 1, 3)!;
    expect(off.divisor).toBe(1);
    expect(off.steps.every(agrees)).toBe(true);
  });

  it('shows the causal mask as −∞ in the masked row and exact zeros in the weights; each row sums to 1', () => {
    const walk = headWalk(trace, 'decoder.self_attn', 0, 0, 0, 2)!;
    const masked = walk.steps[2].engineRow,
      weights = walk.steps[3].engineRow;
    expect(Array.from(masked.subarray(3))).toEqual([-Infinity, -Infinity, -Infinity]);
    expect(Array.from(weights.subarray(3))).toEqual([0, 0, 0]);
    expect(weights.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 6);
    // Sentence 2 ("a dog barked") is padded from 3 to 6 keys: its last query may see keys 0..2 only.
    const padded = headWalk(trace, 'decoder.self_attn', 0, 1, 0, 2)!;
    expect(Array.from(padded.blocked.subarray(2 * 6, 3 * 6))).toEqual([0, 0, 0, 1, 1, 1]);
  });

  it('flags a step whose recorded values do not follow from the step before', () => {
    const bad = headWalk(tampered(trace, 'decoder.self_attn.scaled', 2), 'decoder.self_attn', 0, 0, 0, 5)!;
    expect(bad.steps.map((s) => agrees(s))).toEqual([true, false, false, true, true]);
    const wrongV = headWalk(tampered(trace, 'decoder.self_attn.v_heads', 1.5), 'decoder.self_attn', 0, 0, 0, 5)!;
    expect(agrees(wrongV.steps[4])).toBe(false);
  });

  it('has a softmax that ignores −∞ and leaves a fully blocked row at 0', () => {
    expect(Array.from(softmaxRow([0, -Infinity, 0]))).toEqual([0.5, 0, 0.5]);
    expect(Array.from(softmaxRow([-Infinity, -Infinity]))).toEqual([0, 0]);
  });
});

describe('the head split and merge', () => {
  const trace = engine.run({ texts, mode: 'encoder', config: { dModel: 24, heads: 3, layers: 1 } });

  it('finds each head\u2019s per-head tensor equal to its block of d_k columns of the full projection, and the merge likewise', () => {
    for (const projection of ['q', 'k', 'v'] as const)
      for (const sequence of [0, 1]) {
        const split = headSplit(trace, 'encoder.self_attn', 0, sequence, projection)!;
        expect([split.e, split.heads, split.dK, split.batch]).toEqual([24, 3, 8, 2]);
        expect(split.split.blocks.map((b) => [b.from, b.to, b.maxDifference])).toEqual([
          [0, 8, 0],
          [8, 16, 0],
          [16, 24, 0],
        ]);
        expect(split.merge.blocks.map((b) => b.maxDifference)).toEqual([0, 0, 0]);
        const full = findStage(trace, `encoder.self_attn.${projection}_proj`, 0)!;
        expect(split.split.full.values).toEqual(full.data.subarray(sequence * 6 * 24, (sequence + 1) * 6 * 24));
      }
  });

  it('sees a difference when the blocks are read in the wrong order', () => {
    const split = headSplit(trace, 'encoder.self_attn', 0, 0, 'q')!;
    const secondBlock = columns(split.split.full, 8, 16);
    expect(secondBlock.values).not.toEqual(split.split.blocks[0].perHead.values);
    expect(secondBlock.values).toEqual(split.split.blocks[1].perHead.values);
  });
});

describe('row by row', () => {
  it('gives equal Q, K, V rows for equal input rows; attention\u2019s output differs under the causal mask', () => {
    const trace = engine.run({
      texts,
      mode: 'decoder',
      config: { dModel: 16, heads: 2, layers: 1, positional: false },
    });
    const r = rowWise(trace, 'decoder.self_attn', 0, 0)!;
    expect(r.input.name).toBe('decoder.input');
    expect(r.pairs.map((p) => [p.token, p.a, p.b])).toEqual([['the', 0, 4]]);
    const [pair] = r.pairs;
    expect(pair.inputDifference).toBe(0);
    expect([pair.outputDifference.q_proj, pair.outputDifference.k_proj, pair.outputDifference.v_proj]).toEqual([
      0, 0, 0,
    ]);
    expect(pair.outputDifference.output!).toBeGreaterThan(1e-3);
    // Without a mask, two equal queries see the same keys: equal attention output too.
    const encoder = engine.run({
      texts,
      mode: 'encoder',
      config: { dModel: 16, heads: 2, layers: 1, positional: false },
    });
    expect(rowWise(encoder, 'encoder.self_attn', 0, 0)!.pairs[0].outputDifference.output).toBeLessThan(1e-5);
  });

  it('sees different input rows (and so different Q rows) with positional encoding on', () => {
    const trace = engine.run({ texts, mode: 'encoder', config: { dModel: 16, heads: 2, layers: 1, positional: true } });
    const [pair] = rowWise(trace, 'encoder.self_attn', 0, 0)!.pairs;
    expect(pair.inputDifference).toBeGreaterThan(1e-3);
    expect(pair.outputDifference.q_proj!).toBeGreaterThan(1e-4);
  });

  it('reads the projections\u2019 input where they read it: the layer input (post-LN), LayerNorm 1 (pre-LN)', () => {
    const post = engine.run({ texts, mode: 'encoder', config: { dModel: 16, heads: 2, layers: 2, norm: 'post' } });
    expect(projectionInput(post, 'encoder', 1)!.name).toBe('encoder.output');
    const pre = engine.run({ texts, mode: 'encoder', config: { dModel: 16, heads: 2, layers: 2, norm: 'pre' } });
    expect(projectionInput(pre, 'encoder', 1)!.name).toBe('encoder.norm1');
    expect(rowWise(pre, 'encoder.self_attn', 0, 0)!.x.values).toEqual(
      findStage(pre, 'encoder.norm1', 0)!.data.subarray(0, 6 * 16),
    );
  });

  it('has no row-wise view of cross-attention (its K and V read the encoder)', () => {
    const cross = engine.run({
      texts: ['the cat'],
      source: ['le chat est là'],
      mode: 'cross',
      config: { dModel: 16, heads: 2, layers: 1 },
    });
    expect(rowWise(cross, 'decoder.cross_attn', 0, 0)).toBeNull();
    // The walk and the split do work there: (Sq, Sk) = (2, 4), K and V cut from the encoder's side.
    const walk = headWalk(cross, 'decoder.cross_attn', 0, 0, 1, 1)!;
    expect([walk.sq, walk.sk, walk.dK]).toEqual([2, 4, 8]);
    expect(walk.steps.every(agrees)).toBe(true);
    const split = headSplit(cross, 'decoder.cross_attn', 0, 0, 'k')!;
    expect([split.split.full.rows, split.merge.full.rows]).toEqual([4, 2]);
    expect(split.split.blocks.map((b) => b.maxDifference)).toEqual([0, 0]);
  });
});
