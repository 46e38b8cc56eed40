// The numbers behind the Positions view: how each kind of position reaches attention.
//   RoPE: each head's q and k are turned pair by pair (Hugging Face's rotate-half layout:
//     pair i is dimensions (i, i + rot/2)) by position × inv_freq_i, inv_freq_i =
//     theta^(−2i / rot) (a model with another base or a scaling: each pair's angle per
//     position measured off the trace instead; the rotary dimensions are always read off
//     it). Here the same rotation is done again from the recorded q before RoPE, checked
//     against the engine's q_rotated, and used to show that the score of
//     query position m and key position n depends on m − n only: moving both by the same
//     amount leaves it unchanged.
//   ALiBi: each head's slope (Press et al.) and its bias row −slope × |i − j|, read from
//     the recorded alibi stage and checked against the paper's formula.
//   Sinusoidal or learned: the position vectors the stack adds to the token vectors.
// What the trace recorded decides which applies. No DOM: Vitest tests it in Node.
import type { Stage, Trace } from 'attention-playground';
import { findStage, headSlice, type Block } from './trace-model.js';
import type { Matrix } from './walk-model.js';

export type PositionKind = 'rope' | 'alibi' | 'added' | 'none';

/** The kind of positions a block of this trace uses, from the stages it recorded. */
export function positionKind(trace: Trace, block: Block, layer: number): PositionKind {
  if (findStage(trace, `${block}.q_rotated`, layer)) return 'rope';
  if (findStage(trace, `${block}.alibi`, layer)) return 'alibi';
  if (findStage(trace, `${block.split('.')[0]}.positions`)) return 'added';
  return 'none';
}

/**
 * The RoPE base θ a layer of the trace's model turns with: a pretrained model's trace carries its config's ropeTheta
 * (and Gemma 3's ropeLocalTheta, for its windowed layers); the playground's model has the engine's default. The
 * view checks it against the recorded rotation either way (ropeFrequencies falls back to the measured frequencies).
 */
export function ropeBase(trace: Trace, block: Block, layer: number, fallback: number): number {
  const config = trace.config as { ropeTheta?: number; ropeLocalTheta?: number };
  const local = config.ropeLocalTheta && findStage(trace, `${block}.mask.window`, layer) ? config.ropeLocalTheta : 0;
  return local || config.ropeTheta || fallback;
}

/** RoPE's inverse frequencies inv_freq_i = theta^(−2i / rot), i < rot / 2 (no scaling: the playground's model). */
export function ropeInverseFrequencies(rotaryDim: number, theta: number): number[] {
  return Array.from({ length: rotaryDim / 2 }, (_, i) => Math.pow(theta, (-2 * i) / rotaryDim));
}

/** One head vector (d_h values) turned to `position`: pairs (i, i + rot/2) by position × invFreq[i]; the rest passes. */
export function rotate(vector: ArrayLike<number>, position: number, invFreq: readonly number[]): Float64Array {
  const out = Float64Array.from(vector);
  const half = invFreq.length;
  for (let i = 0; i < half; i++) {
    const angle = position * invFreq[i];
    const [c, s] = [Math.cos(angle), Math.sin(angle)];
    const [x, y] = [vector[i], vector[i + half]];
    out[i] = x * c - y * s;
    out[i + half] = y * c + x * s;
  }
  return out;
}

export function dot(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i] * b[i];
  return sum;
}

/** Row `row` of one (sequence, head) slice of a (B, H, S, d) stage. */
function headRow(stage: Stage, sequence: number, head: number, row: number): Float32Array {
  const view = headSlice(stage, sequence, head);
  const d = stage.shape[3];
  return view.values.subarray(row * d, (row + 1) * d);
}

/** The K/V head query head `head` reads (kv_group; itself without grouped-query attention). */
export function kvHeadOf(trace: Trace, block: Block, layer: number, head: number): number {
  const group = findStage(trace, `${block}.kv_group`, layer);
  return group ? group.data[head] : head;
}

export interface RopePair {
  /** Pair i: dimensions i and i + rot/2. */
  index: number;
  dims: [number, number];
  /** Radians per position. */
  invFreq: number;
  /** The pair of the query before RoPE (the token's own q, at no position). */
  before: [number, number];
  /** The engine's rotated pair at the token's position, and the same turned here. */
  engine: [number, number];
  computed: [number, number];
  /** The query's pair turned to each position 0 … S − 1 (the circle it moves on). */
  path: [number, number][];
}

export interface RopeView extends RopeFrequencies {
  headDim: number;
  theta: number;
  /** The query's token position. */
  token: number;
  pairs: RopePair[];
  /** max |q_rotated (engine) − rotate(q) (here)| over the token's whole head vector. */
  maxDifference: number;
}

/**
 * The stage RoPE turns: q after its norm (qkNorm) where there is one, else q_heads. `side`: 'q' or 'k'.
 */
function beforeRope(trace: Trace, block: Block, layer: number, side: 'q' | 'k'): Stage | undefined {
  return findStage(trace, `${block}.${side}_normed`, layer) ?? findStage(trace, `${block}.${side}_heads`, layer);
}

/**
 * The rotary dimensions, read off the trace: the leading dimensions of a head that RoPE changed at some position (the
 * rest pass through unchanged: partial rotary, or the last dimension of an odd d_h in the playground's model).
 */
export function rotaryDimOf(before: Stage, rotated: Stage): number {
  const d = before.shape[3];
  let last = 0;
  for (let k = 0; k < before.data.length; k++)
    if (before.data[k] !== rotated.data[k]) last = Math.max(last, (k % d) + 1);
  // A sentence of one token turns nothing: then all of an even d_h.
  return last === 0 ? d - (d % 2) : last + (last % 2);
}

/**
 * Each pair's angle per position as the engine turned it, measured at positions 1 … 3 (an angle below π, since
 * inv_freq <= 1), from the query whose pair is longest there.
 */
export function measuredInverseFrequencies(before: Stage, rotated: Stage, rotaryDim: number): number[] {
  const [batch, heads, seq, d] = before.shape;
  const half = rotaryDim / 2;
  return Array.from({ length: half }, (_, i) => {
    let best = 0,
      freq = 0;
    for (let b = 0; b < batch; b++)
      for (let h = 0; h < heads; h++)
        for (let p = 1; p < Math.min(seq, 4); p++) {
          const k = ((b * heads + h) * seq + p) * d;
          const [x, y, x2, y2] = [
            before.data[k + i],
            before.data[k + i + half],
            rotated.data[k + i],
            rotated.data[k + i + half],
          ];
          const length = Math.hypot(x, y);
          if (length > best) {
            best = length;
            freq = Math.atan2(x * y2 - y * x2, x * x2 + y * y2) / p;
          }
        }
    return freq;
  });
}

export interface RopeFrequencies {
  rotaryDim: number;
  invFreq: number[];
  /** True: theta^(−2i / rot) with the given theta; false: that rule does not fit this model (another base or a scaling), so measured. */
  fromRule: boolean;
}

/** The rotary dimensions and frequencies of a block's layer: the rule with `theta` where the trace agrees, else measured. */
export function ropeFrequencies(trace: Trace, block: Block, layer: number, theta: number): RopeFrequencies | null {
  const before = beforeRope(trace, block, layer, 'q');
  const rotated = findStage(trace, `${block}.q_rotated`, layer);
  if (!before || !rotated) return null;
  const rotaryDim = rotaryDimOf(before, rotated);
  const rule = ropeInverseFrequencies(rotaryDim, theta);
  if (rotated.shape[2] < 2) return { rotaryDim, invFreq: rule, fromRule: true };
  const measured = measuredInverseFrequencies(before, rotated, rotaryDim);
  const fits = measured.every((f, i) => Math.abs(f - rule[i]) <= 1e-3 * rule[i] + 1e-6);
  return { rotaryDim, invFreq: fits ? rule : measured, fromRule: fits };
}

/** One query's pairs before and after RoPE, for the Positions view; null when the block has no RoPE. */
export function ropeView(
  trace: Trace,
  block: Block,
  layer: number,
  sequence: number,
  head: number,
  token: number,
  theta: number,
): RopeView | null {
  const q = beforeRope(trace, block, layer, 'q');
  const rotated = findStage(trace, `${block}.q_rotated`, layer);
  if (!q || !rotated) return null;
  const [, , positions, headDim] = rotated.shape;
  const frequencies = ropeFrequencies(trace, block, layer, theta)!;
  const { rotaryDim, invFreq } = frequencies;
  const before = headRow(q, sequence, head, token);
  const engine = headRow(rotated, sequence, head, token);
  const computed = rotate(before, token, invFreq);
  let maxDifference = 0;
  for (let d = 0; d < headDim; d++) maxDifference = Math.max(maxDifference, Math.abs(engine[d] - computed[d]));
  const half = rotaryDim / 2;
  const pairs = invFreq.map((f, i): RopePair => {
    const path = Array.from({ length: positions }, (_, p): [number, number] => {
      const [c, s] = [Math.cos(p * f), Math.sin(p * f)];
      return [before[i] * c - before[i + half] * s, before[i + half] * c + before[i] * s];
    });
    return {
      index: i,
      dims: [i, i + half],
      invFreq: f,
      before: [before[i], before[i + half]],
      engine: [engine[i], engine[i + half]],
      computed: [computed[i], computed[i + half]],
      path,
    };
  });
  return { ...frequencies, headDim, theta, token, pairs, maxDifference };
}

export interface RelativeScores {
  head: number;
  kvHead: number;
  query: number;
  key: number;
  shift: number;
  /** q of the query token turned to position `query`, · k of the key token turned to `key` (here). */
  score: number;
  /** The same two vectors turned to query + shift and key + shift. */
  shifted: number;
  /** The engine's own score Q·Kᵀ of that pair (before ÷ √d_k). */
  engine: number;
}

/**
 * The demonstration that RoPE's scores are relative: the recorded q of the query token and k of the key token
 * (before RoPE), turned to their positions and to both positions moved by `shift`, give the same dot product.
 */
export function relativeScores(
  trace: Trace,
  block: Block,
  layer: number,
  sequence: number,
  head: number,
  query: number,
  key: number,
  shift: number,
  theta: number,
): RelativeScores | null {
  const q = beforeRope(trace, block, layer, 'q');
  const k = beforeRope(trace, block, layer, 'k');
  const scores = findStage(trace, `${block}.scores`, layer);
  if (!q || !k || !scores || !findStage(trace, `${block}.q_rotated`, layer)) return null;
  const kvHead = kvHeadOf(trace, block, layer, head);
  const { invFreq } = ropeFrequencies(trace, block, layer, theta)!;
  const qv = headRow(q, sequence, head, query);
  const kv = headRow(k, sequence, kvHead, key);
  const score = dot(rotate(qv, query, invFreq), rotate(kv, key, invFreq));
  const shifted = dot(rotate(qv, query + shift, invFreq), rotate(kv, key + shift, invFreq));
  const view = headSlice(scores, sequence, head);
  return { head, kvHead, query, key, shift, score, shifted, engine: view.values[query * view.cols + key] };
}

/** ALiBi's slopes (Press et al.): 2^(−8(h+1)/H) for H a power of two; else the closest power's, then every other of twice as many. */
export function alibiSlopes(heads: number): number[] {
  const powerOfTwo = (n: number) => Array.from({ length: n }, (_, h) => Math.pow(Math.pow(2, -8 / n), h + 1));
  let closest = 1;
  while (closest * 2 <= heads) closest *= 2;
  const slopes = powerOfTwo(closest);
  const doubled = powerOfTwo(2 * closest);
  for (let i = 0; slopes.length < heads; i += 2) slopes.push(doubled[i]);
  return slopes;
}

export interface AlibiHead {
  head: number;
  /** The paper's slope, and the slope read off the recorded bias (−bias of a key one step away). */
  slope: number;
  recordedSlope: number;
  /** The bias row of the chosen query over the keys (Sk): −slope × |i − j|. */
  row: Float32Array;
}

/** Each head's ALiBi slope and bias row for query `query`; null when the block has no ALiBi. */
export function alibiView(trace: Trace, block: Block, layer: number, query: number): AlibiHead[] | null {
  const bias = findStage(trace, `${block}.alibi`, layer);
  if (!bias) return null;
  const [heads, rows, cols] = bias.shape;
  const slopes = alibiSlopes(heads);
  const i = Math.min(query, rows - 1);
  return slopes.map((slope, head) => {
    const row = bias.data.subarray((head * rows + i) * cols, (head * rows + i + 1) * cols);
    // A key one step from the query: j = i − 1, or i + 1 for the first query.
    const near = i > 0 ? i - 1 : Math.min(1, cols - 1);
    return { head, slope, recordedSlope: near === i ? 0 : -row[near], row };
  });
}

export interface AddedPositions {
  /** The recorded position vectors (S, E). */
  positions: Matrix;
  /** max |input − embeddings − positions| of the sentence: the positions are simply added (0 up to rounding). */
  maxDifference: number | null;
}

/** The position vectors a stack adds to its token vectors, and the check that input = embeddings + positions. */
export function addedPositions(trace: Trace, block: Block, sequence: number): AddedPositions | null {
  const stack = block.split('.')[0];
  const positions = findStage(trace, `${stack}.positions`);
  if (!positions) return null;
  const [rows, cols] = positions.shape;
  const embeddings = findStage(trace, `${stack}.embeddings`);
  const input = findStage(trace, `${stack}.input`);
  let maxDifference: number | null = null;
  if (embeddings && input && embeddings.shape.join() === input.shape.join()) {
    const [, seq, width] = input.shape;
    maxDifference = 0;
    for (let s = 0; s < Math.min(seq, rows); s++)
      for (let e = 0; e < width; e++) {
        const k = (sequence * seq + s) * width + e;
        const diff = Math.abs(input.data[k] - embeddings.data[k] - positions.data[s * cols + e]);
        maxDifference = Math.max(maxDifference, diff);
      }
  }
  return { positions: { rows, cols, values: positions.data }, maxDifference };
}
