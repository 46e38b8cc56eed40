// The view helpers on real traces from the engine (Node, SIMD build).
import { describe, expect, it } from 'vitest';
import { loadAttention } from '../../dist/node.js';
import {
  axisTokens,
  blockedReason,
  blocksOf,
  editedPositions,
  headSlice,
  paddedLabels,
  rowChanges,
  rowSum,
  findStage,
} from '../../web/src/model/trace-model.js';
import { flowRows } from '../../web/src/model/flow-model.js';

const engine = await loadAttention();

describe('trace helpers', () => {
  it('labels axes, pads, and says why a cell is blocked', () => {
    const trace = engine.run({ texts: ['one two three', 'four'], mode: 'decoder', config: { dModel: 8, heads: 2 } });
    expect(blocksOf(trace)).toEqual(['decoder.self_attn']);
    expect(paddedLabels(axisTokens(trace, 'decoder.self_attn').keys[1], 3)).toEqual([
      { label: 'four', pad: false },
      { label: '<pad>', pad: true },
      { label: '<pad>', pad: true },
    ]);
    expect(blockedReason(trace, 'decoder.self_attn', 0, 0, 0, 1)).toBe('future');
    expect(blockedReason(trace, 'decoder.self_attn', 0, 1, 2, 1)).toBe('padding');
    expect(blockedReason(trace, 'decoder.self_attn', 0, 0, 2, 1)).toBeNull();
    const w = headSlice(findStage(trace, 'decoder.self_attn.weights', 0)!, 0, 1);
    expect([w.rows, w.cols]).toEqual([3, 3]);
    expect(rowSum(w, 2)).toBeCloseTo(1, 6);
  });

  it('gives cross-attention target rows and source columns', () => {
    const trace = engine.run({ texts: ['a b'], mode: 'cross', source: ['x y z'], config: { dModel: 8, heads: 2 } });
    expect(blocksOf(trace)).toEqual(['decoder.cross_attn', 'decoder.self_attn', 'encoder.self_attn']);
    expect(axisTokens(trace, 'decoder.cross_attn')).toEqual({ queries: [['a', 'b']], keys: [['x', 'y', 'z']] });
    expect(axisTokens(trace, 'encoder.self_attn').queries).toEqual([['x', 'y', 'z']]);
    const flow = flowRows(trace, 'decoder', 0).flatMap((r) => r.steps.map((s) => s.name));
    expect(flow.slice(0, 3)).toEqual(['embeddings', 'positions', 'input']);
    expect(flow).toContain('cross_attn.weights');
  });

  it('finds which rows an edit moved: one for a linear layer, all for attention', () => {
    const config = { dModel: 16, heads: 2 };
    const before = engine.run({ texts: ['the cat sat'], config });
    const after = engine.run({ texts: ['the dog sat'], config });
    expect(editedPositions(before.tokens[0], after.tokens[0])).toEqual([1]);
    expect(editedPositions(['a'], ['a', 'b'])).toBeNull();
    const linear = rowChanges(before, after, 'encoder.self_attn.q_proj', 0, 0)!;
    expect(linear.map((d) => d > 1e-6)).toEqual([false, true, false]);
    const attention = rowChanges(before, after, 'encoder.self_attn.output', 0, 0)!;
    expect(attention.every((d) => d > 1e-6)).toBe(true);
    const other = engine.run({ texts: ['the cat sat on'], config });
    expect(rowChanges(before, other, 'encoder.self_attn.output', 0, 0)).toBeNull();
  });
});
