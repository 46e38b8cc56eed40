// The Values and Shapes views' logic on real traces from the engine (Node, SIMD build):
// captions with axis names and sizes, panels cut from recorded tensors, the flow rows
// (Q, K, V in parallel; residual and norm placement), and which settings open a step.
import { describe, expect, it } from 'vitest';
import { loadAttention } from '../../dist/node.js';
import { findStage } from '../../web/src/model/trace-model.js';
import { stateFromHash, stateToHash } from '../../web/src/settings/settings.js';
import { flowRows, headBlocks, resolveTensor, stepTitle } from '../../web/src/model/flow-model.js';
import {
  axisLabels,
  firstColumns,
  headDim,
  rowStats,
  stagePanels,
  stagePlace,
  stepSettings,
  tensorCaption,
} from '../../web/src/model/stage-values.js';

const engine = await loadAttention();
const config = { dModel: 16, heads: 4, layers: 2 };
const trace = engine.run({ texts: ['the cat sat', 'a dog'], mode: 'encoder', config });

describe('captions', () => {
  it('state the tensor, its axis names and sizes, and the slice drawn', () => {
    const weights = findStage(trace, 'encoder.self_attn.weights', 1)!;
    expect(tensorCaption(weights, { dK: headDim(trace, 'encoder.self_attn', 1), sequence: 1, head: 2, layer: 1 })).toBe(
      'self_attn.weights (B, H, Sq, Sk) = (2, 4, 3, 3) · d_k = 4 · sentence 2 · head 2 · layer 1',
    );
    const one = engine.run({ texts: ['x y'], config });
    expect(tensorCaption(findStage(one, 'encoder.norm1', 0)!, { sequence: 0, layer: 0 })).toBe(
      'norm1 (B, S, E) = (1, 2, 16) · layer 0',
    );
  });
});

describe('panels', () => {
  it('cut Q per head (B, H, Sq, d_k) into one (Sq, d_k) panel per head, the same numbers as Q (B, Sq, E)', () => {
    const heads = findStage(trace, 'encoder.self_attn.q_heads', 0)!;
    const q = findStage(trace, 'encoder.self_attn.q_proj', 0)!;
    const panels = stagePanels(heads, 1);
    expect(panels.map((p) => [p.head, p.rows, p.cols, p.rowAxis, p.colAxis])).toEqual(
      [0, 1, 2, 3].map((h) => [h, 3, 4, 'Sq', 'd_k']),
    );
    // Head h, position i, feature j of head h = Q[b=1, i, h * d_k + j].
    for (let h = 0; h < 4; h++)
      for (let i = 0; i < 3; i++)
        for (let j = 0; j < 4; j++) expect(panels[h].values[i * 4 + j]).toBe(q.data[(1 * 3 + i) * 16 + h * 4 + j]);
    // q_split (B, Sq, H, d_k) gives the same panels as q_heads (B, H, Sq, d_k).
    expect(stagePanels(findStage(trace, 'encoder.self_attn.q_split', 0)!, 1)).toEqual(panels);
  });

  it('gives one (S, E) panel for the residual stream, labelled by tokens, with per-token statistics', () => {
    const norm = findStage(trace, 'encoder.norm1', 0)!;
    const [panel] = stagePanels(norm, 0);
    expect([panel.head, panel.rows, panel.cols, panel.rowAxis, panel.colAxis]).toEqual([null, 3, 16, 'S', 'E']);
    expect(axisLabels(trace, norm.name, 'S', 3, 1).map((l) => l.label)).toEqual(['a', 'dog', '<pad>']);
    expect(axisLabels(trace, norm.name, 'E', 3, 0).map((l) => l.label)).toEqual(['0', '1', '2']);
    // Post-LN: every token of norm1 has mean 0 and standard deviation 1 (the norm's weights start at 1 and 0).
    for (const s of rowStats(panel)) {
      expect(s.mean).toBeCloseTo(0, 5);
      expect(s.std).toBeCloseTo(1, 3);
    }
    expect(rowStats({ rows: 1, cols: 2, values: Float32Array.of(3, 4) })).toEqual([{ mean: 3.5, std: 0.5, norm: 5 }]);
    // A wide tensor keeps its first columns within the cell budget: 3 rows x 5 columns of 16.
    const cut = firstColumns(panel, 15);
    expect([cut.rows, cut.cols]).toEqual([3, 5]);
    expect(Array.from(cut.values.subarray(5, 10))).toEqual(Array.from(panel.values.subarray(16, 21)));
    expect(firstColumns(panel, 10_000)).toBe(panel);
  });
});

describe('flow rows', () => {
  const names = (rows: ReturnType<typeof flowRows>) =>
    rows.map((r) => `${r.kind}:${r.steps.map((s) => s.name).join('|')}`);

  it('put Q, K and V side by side, note the weight shapes, the residual add and the post-LN norm', () => {
    const rows = flowRows(trace, 'encoder', 0);
    expect(names(rows).slice(0, 5)).toEqual([
      'parallel:embeddings|positions',
      'input:input',
      'parallel:self_attn.q_proj|self_attn.k_proj|self_attn.v_proj',
      'step:self_attn.q_split',
      'parallel:self_attn.q_heads|self_attn.k_heads|self_attn.v_heads',
    ]);
    expect(rows[2].note).toMatch(/W_q, W_k, W_v each E × E = 16 × 16/);
    expect(rows[3].note).toMatch(/H = 4 blocks of d_k = 4/);
    expect(headBlocks(trace, 'encoder', 0)).toEqual({ heads: 4, dK: 4 });
    expect(names(rows)).toContain('parallel:self_attn.mask.padding|self_attn.mask');
    expect(names(rows).slice(-9)).toEqual([
      'step:self_attn.output',
      'residual:residual1',
      'norm:norm1',
      'step:ffn.hidden',
      'step:ffn.activated',
      'step:ffn.output',
      'residual:residual2',
      'norm:norm2',
      'step:output',
    ]);
    expect(rows.find((r) => r.kind === 'norm')!.note).toMatch(/post-LN/);
    expect(rows.find((r) => r.steps[0]?.name === 'ffn.hidden')!.note).toBe('W_1: F × E = 64 × 16, row by row');
    expect(rows.find((r) => r.steps[0]?.name === 'ffn.activated')!.note).toBe('activation: relu');
  });

  it('reads layer 1 from layer 0\u2019s output', () => {
    const rows = flowRows(trace, 'encoder', 1);
    expect(rows[0].kind).toBe('input');
    expect(resolveTensor(trace, 'encoder', 1, 'positions')).toBe(findStage(trace, 'encoder.positions', -1));
    expect(rows[0].steps[0]).toMatchObject({ name: 'input', full: 'encoder.output', layer: 0 });
    expect(resolveTensor(trace, 'encoder', 1, 'input')).toBe(findStage(trace, 'encoder.output', 0));
    expect(resolveTensor(trace, 'encoder', 0, 'input')).toBe(findStage(trace, 'encoder.input', -1));
  });

  it('says where the residual would add when residual connections are off, and shows pre-LN norms first', () => {
    const off = engine.run({
      texts: ['the cat sat'],
      mode: 'decoder',
      config: { ...config, residual: false, norm: 'pre' },
    });
    const rows = flowRows(off, 'decoder', 0);
    expect(rows.filter((r) => r.kind === 'residual')).toEqual([]);
    expect(rows.filter((r) => r.kind === 'no-residual')).toHaveLength(2);
    expect(names(rows)[2]).toBe('norm:norm1');
    expect(rows[2].note).toMatch(/pre-LN/);
    expect(resolveTensor(off, 'decoder', 0, 'residual1')).toBeUndefined();
  });

  it('in cross mode, names the cross-attention steps and opens them in their block', () => {
    const cross = engine.run({ texts: ['a b'], mode: 'cross', source: ['x y z'], config });
    const rows = flowRows(cross, 'decoder', 0);
    const parallel = rows.filter((r) => r.kind === 'parallel' && r.steps[0].name.startsWith('cross_attn'))[0];
    expect(parallel.steps.map((s) => s.shape)).toEqual([
      [1, 2, 16],
      [1, 3, 16],
      [1, 3, 16],
    ]);
    expect(parallel.note).toMatch(/K and V from the encoder/);
    expect(stepTitle('decoder.cross_attn.q_heads')).toBe('cross: Q per head');
    expect(stepSettings('decoder.cross_attn.k_heads', 'cross')).toEqual([
      { name: 'block', raw: 'decoder.cross_attn' },
      { name: 'tensor', raw: 'cross_attn.k_heads' },
      { name: 'view', raw: 'values' },
    ]);
  });
});

describe('which view opens a step', () => {
  it('sends scores and weights to the heatmaps, masks to the Masks view, the rest to Values', () => {
    expect(stepSettings('encoder.self_attn.scaled', 'encoder')).toEqual([
      { name: 'stage', raw: 'scaled' },
      { name: 'view', raw: 'heads' },
    ]);
    expect(stepSettings('encoder.self_attn.mask.padding', 'encoder')).toEqual([{ name: 'view', raw: 'masks' }]);
    expect(stepSettings('encoder.output', 'encoder', 'input')).toEqual([
      { name: 'tensor', raw: 'input' },
      { name: 'view', raw: 'values' },
    ]);
    expect(stagePlace('encoder.output')).toEqual({ stack: 'encoder', block: '', name: 'output', scope: 'layer' });
    expect(stagePlace('decoder.self_attn.output')).toEqual({
      stack: 'decoder',
      block: 'self_attn',
      name: 'output',
      scope: 'attention',
    });
    expect(stagePlace('encoder.input')?.scope).toBe('stack');
  });
});

describe('the tensor setting', () => {
  it('lives in the link, and takes stage names only', () => {
    const { state, problems } = stateFromHash('#view=values&tensor=ffn.activated');
    expect(problems).toEqual([]);
    expect([state.view, state.tensor]).toEqual(['values', 'ffn.activated']);
    expect(stateToHash(state)).toBe('#view=values&tensor=ffn.activated');
    expect(stateFromHash('#tensor=%3Cb%3Ex').problems).toEqual([
      'Tensor: a stage name such as self_attn.q_heads, norm1 or ffn.hidden',
    ]);
  });
});
