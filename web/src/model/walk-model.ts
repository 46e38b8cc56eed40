// One head's scaled dot-product attention as a sequence of steps, for the Step by step
// view: Q·Kᵀ → ÷ √d_k → mask → softmax over keys → · V. Every step of one query row is
// recomputed here from the step before it (in float64, from the engine's recorded float32
// values) and set beside the engine's own recorded row, so the view's numbers prove each
// step instead of asserting it. No DOM: Vitest tests it in Node.
import type { Stage, Trace } from 'attention-playground';
import { HEATMAP_STAGES, findStage, headSlice, type Block, type StageName } from './trace-model.js';
import { layerStages } from './flow-model.js';
import { stagePlace, type Stack } from './stage-values.js';

/** One (rows, cols) matrix of one sentence and head, row-major. */
export interface Matrix {
  rows: number;
  cols: number;
  values: Float32Array;
}

/** The walk's steps: the heatmap stages (scores … weights), then weights × V. */
export type WalkStepName = StageName | 'context';
export const WALK_STEPS: readonly WalkStepName[] = [...HEATMAP_STAGES, 'context'];

export interface WalkStep {
  name: WalkStepName;
  /** The engine's recorded matrix of this head: (Sq, Sk), or (Sq, d_k) for the context. */
  matrix: Matrix;
  /** The followed query row as the engine recorded it. */
  engineRow: Float32Array;
  /** The same row recomputed here from the previous step's recorded values. */
  recomputedRow: Float64Array;
  /** max |engine − recomputed| over the row (0 for two −∞). */
  maxDifference: number;
}

export interface HeadWalk {
  dModel: number;
  heads: number;
  /** Each head's key size, read from the recorded per-head keys (B, H, Sk, d_k). */
  dK: number;
  /** What the scores are divided by: √d_k, or 1 when scaling is switched off. */
  divisor: number;
  sq: number;
  sk: number;
  /** The followed query row. */
  row: number;
  q: Matrix;
  k: Matrix;
  v: Matrix;
  /** (Sq, Sk), 1 = blocked (padding or the future). */
  blocked: Uint8Array;
  /** A user's additive float mask row, when the trace has one; else null. */
  additiveRow: Float32Array | null;
  /** Whether the block has a causal mask (a decoder's self-attention): else only padding blocks keys. */
  causal: boolean;
  steps: WalkStep[];
}

function perHead(
  trace: Trace,
  block: Block,
  name: string,
  layer: number,
  sequence: number,
  head: number,
): Matrix | null {
  const stage = findStage(trace, `${block}.${name}`, layer);
  return stage ? headSlice(stage, sequence, head) : null;
}

const rowOf = (m: Matrix, i: number) => m.values.subarray(i * m.cols, (i + 1) * m.cols);

/** The largest |a − b|, where two infinities of one sign count as equal. */
export function maxDifference(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let worst = 0;
  for (let j = 0; j < a.length; j++) {
    if (a[j] === b[j]) continue;
    const d = Math.abs(a[j] - b[j]);
    worst = Number.isNaN(d) ? Infinity : Math.max(worst, d);
  }
  return worst;
}

/** Softmax of one row: −∞ entries get 0; a row with nothing allowed is all 0 (the engine's rule for such rows). */
export function softmaxRow(row: ArrayLike<number>): Float64Array {
  const out = new Float64Array(row.length);
  let top = -Infinity;
  for (let j = 0; j < row.length; j++) top = Math.max(top, row[j]);
  if (top === -Infinity) return out;
  let sum = 0;
  for (let j = 0; j < row.length; j++) {
    out[j] = Math.exp(row[j] - top);
    sum += out[j];
  }
  for (let j = 0; j < row.length; j++) out[j] /= sum;
  return out;
}

/**
 * The walk of one head for one sentence, following query row `row` (clamped to the rows
 * there are). Null when the trace did not record the per-head stages (a long pretrained text).
 */
export function headWalk(
  trace: Trace,
  block: Block,
  layer: number,
  sequence: number,
  head: number,
  row: number,
): HeadWalk | null {
  const get = (name: string) => perHead(trace, block, name, layer, sequence, head);
  const [q, k, v, scores, scaled, masked, weights, context] = [
    'q_heads',
    'k_heads',
    'v_heads',
    'scores',
    'scaled',
    'masked',
    'weights',
    'context',
  ].map(get);
  const maskStage = findStage(trace, `${block}.mask`, layer);
  if (!q || !k || !v || !scores || !scaled || !masked || !weights || !context || !maskStage) return null;
  const sq = scores.rows,
    sk = scores.cols,
    dK = k.cols;
  const i = Math.min(Math.max(0, row), sq - 1);
  const blocked = Uint8Array.from(maskStage.data.subarray(sequence * sq * sk, (sequence + 1) * sq * sk));
  const additive = findStage(trace, `${block}.mask.additive`, layer);
  const additiveRow = additive ? additive.data.subarray((sequence * sq + i) * sk, (sequence * sq + i + 1) * sk) : null;
  // Trained and pretrained models always scale; the untrained playground model says whether it does.
  const divisor = trace.config.scale === false ? 1 : Math.sqrt(dK);

  const qi = rowOf(q, i);
  const scoreRow = Float64Array.from({ length: sk }, (_, j) => {
    let dot = 0;
    for (let d = 0; d < dK; d++) dot += qi[d] * k.values[j * dK + d];
    return dot;
  });
  const scaledRow = Float64Array.from(rowOf(scores, i), (s) => s / divisor);
  const maskedRow = Float64Array.from(rowOf(scaled, i), (s, j) =>
    blocked[i * sk + j] ? -Infinity : s + (additiveRow?.[j] ?? 0),
  );
  const weightRow = softmaxRow(rowOf(masked, i));
  const w = rowOf(weights, i);
  const contextRow = Float64Array.from({ length: dK }, (_, d) => {
    let sum = 0;
    for (let j = 0; j < sk; j++) sum += w[j] * v.values[j * dK + d];
    return sum;
  });
  const recomputed: Record<WalkStepName, Float64Array> = {
    scores: scoreRow,
    scaled: scaledRow,
    masked: maskedRow,
    weights: weightRow,
    context: contextRow,
  };
  const matrices: Record<WalkStepName, Matrix> = { scores, scaled, masked, weights, context };
  const steps = WALK_STEPS.map((name) => {
    const engineRow = rowOf(matrices[name], i);
    return {
      name,
      matrix: matrices[name],
      engineRow,
      recomputedRow: recomputed[name],
      maxDifference: maxDifference(engineRow, recomputed[name]),
    };
  });
  return {
    dModel: findStage(trace, `${block}.q_proj`, layer)?.shape[2] ?? trace.config.dModel,
    heads: findStage(trace, `${block}.q_heads`, layer)!.shape[1],
    dK,
    divisor,
    sq,
    sk,
    row: i,
    q,
    k,
    v,
    blocked,
    additiveRow,
    causal: findStage(trace, `${block}.mask.causal`, layer) !== undefined,
    steps,
  };
}

/**
 * Whether a recomputed row agrees with the engine's: within float32 rounding of the row's
 * magnitude (the engine sums in float32, in another order, with SIMD).
 */
export function agrees(step: Pick<WalkStep, 'engineRow' | 'maxDifference'>): boolean {
  let size = 1;
  for (const x of step.engineRow) if (Number.isFinite(x)) size = Math.max(size, Math.abs(x));
  return step.maxDifference <= 1e-4 * size;
}

/**
 * The query row the walk follows unless the person picks one: a row where the mask bites, so the mask step shows
 * something. Among the real query rows (`queries` of them), those with a blocked real key (the causal mask), else
 * those with any blocked key (padding); of these the one blocking closest to half its keys (the softmax still has
 * a choice), the later on a tie. With nothing blocked anywhere: the last real row.
 */
export function maskedRow(blocked: Uint8Array, sq: number, sk: number, queries: number, keys: number): number {
  const last = Math.max(0, Math.min(queries, sq) - 1);
  const count = (i: number, upTo: number) => {
    let n = 0;
    for (let j = 0; j < upTo; j++) n += blocked[i * sk + j];
    return n;
  };
  const rows = Array.from({ length: last + 1 }, (_, i) => i);
  const bitten = rows.filter((i) => count(i, Math.min(keys, sk)) > 0);
  const candidates = bitten.length ? bitten : rows.filter((i) => count(i, sk) > 0);
  if (candidates.length === 0) return last;
  let best = candidates[0];
  for (const i of candidates) if (Math.abs(count(i, sk) - sk / 2) <= Math.abs(count(best, sk) - sk / 2)) best = i;
  return best;
}

/** The residual add after an attention block, for one row: what it adds to the block's output, recomputed. */
export interface ResidualRow {
  /** The stage the residual adds back: the block's input x (the layer input, or the sub-layer before). */
  x: Stage;
  /** The residual stage (x + the block's output). */
  residual: Stage;
  /** The row as the engine recorded it, and recomputed as x + output. */
  engineRow: Float32Array;
  recomputedRow: Float64Array;
  maxDifference: number;
  /** max |residual − (Q + output)| of the row: what adding Q instead of x would be off by (Q is not what is added). */
  qDifference: number;
}

const sentenceRow = (stage: Stage, sequence: number, row: number) => {
  const [, s, e] = stage.shape;
  return stage.data.subarray((sequence * s + row) * e, (sequence * s + row + 1) * e);
};

/**
 * The residual add after `block` at one query row: residual = x + output, where x is what the block's sub-layer
 * read before any pre-LN norm (not Q, which is x after W_q). Null without residual connections or unrecorded stages.
 */
export function residualRow(
  trace: Trace,
  block: Block,
  layer: number,
  sequence: number,
  row: number,
): ResidualRow | null {
  const stack = block.split('.')[0] as Stack;
  const stages = layerStages(trace, stack, layer);
  const at = (name: string) => stages.findIndex((s) => s.name === name);
  const first = at(`${block}.q_proj`);
  const outputAt = at(`${block}.output`);
  if (first < 0 || outputAt < 0) return null;
  const residual = stages.slice(outputAt + 1).find((s) => stagePlace(s.name)?.name.startsWith('residual'));
  // The next residual must be this block's: no other attention block's stage before it.
  if (
    !residual ||
    stages.slice(outputAt + 1, stages.indexOf(residual)).some((s) => stagePlace(s.name)?.scope === 'attention')
  )
    return null;
  // What the sub-layer read: the last (B, S, E) stage before its first, not of attention; a pre-LN norm is skipped.
  let i = first - 1;
  const isInput = (s: Stage) => s.shape.length === 3 && stagePlace(s.name)?.scope !== 'attention';
  while (i >= 0 && !isInput(stages[i])) i--;
  if (i >= 0 && trace.config.norm === 'pre' && stagePlace(stages[i].name)?.name.startsWith('norm')) {
    i--;
    while (i >= 0 && !isInput(stages[i])) i--;
  }
  if (i < 0) return null;
  const x = stages[i];
  const output = stages[outputAt];
  const q = stages[first];
  if (x.shape.join() !== residual.shape.join() || output.shape.join() !== residual.shape.join()) return null;
  const [xr, outr, qr] = [x, output, q].map((s) => sentenceRow(s, sequence, row));
  const engineRow = sentenceRow(residual, sequence, row);
  const recomputedRow = Float64Array.from(xr, (v, f) => v + outr[f]);
  const withQ = Float64Array.from(qr, (v, f) => v + outr[f]);
  return {
    x,
    residual,
    engineRow,
    recomputedRow,
    maxDifference: maxDifference(engineRow, recomputedRow),
    qDifference: maxDifference(engineRow, withQ),
  };
}
