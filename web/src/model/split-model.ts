// The head split and merge as numbers, for the Head split view. One projection makes Q
// (B, S, E) for all heads at once; head h reads columns h·d_k … (h+1)·d_k − 1 of it, which
// the engine records per head as q_heads (B, H, S, d_k). After attention, the heads'
// contexts (B, H, S, d_k) are laid side by side again as merged (B, S, E). Here each head's
// block is cut out of the recorded full matrix and compared with the recorded per-head
// tensor, so the view shows that the split and the merge are a reshape and nothing else.
// No DOM: Vitest tests it in Node.
import type { Trace } from 'attention-playground';
import { findStage, headSlice, type Block } from './trace-model.js';
import { maxDifference, type Matrix } from './walk-model.js';

export type Projection = 'q' | 'k' | 'v';
export const PROJECTIONS: readonly Projection[] = ['q', 'k', 'v'];

export interface HeadBlock {
  head: number;
  /** The first and one-past-last column of the full matrix this head owns. */
  from: number;
  to: number;
  /** The recorded per-head tensor of this head: (S, d_k). */
  perHead: Matrix;
  /** max |full[:, from:to] − perHead| (0 for an exact reshape). */
  maxDifference: number;
}

export interface SplitSide {
  /** Full stage names: e.g. 'encoder.self_attn.q_proj' and 'encoder.self_attn.q_heads'. */
  fullName: string;
  perHeadName: string;
  /** (S, E) of one sentence. */
  full: Matrix;
  blocks: HeadBlock[];
}

export interface HeadSplit {
  e: number;
  heads: number;
  dK: number;
  batch: number;
  /** The projection cut into heads (Q, K or V). */
  split: SplitSide;
  /** The heads' contexts merged back: merged (S, E) against context (S, d_k) per head. */
  merge: SplitSide;
}

/** One sentence of a (B, S, E) stage as an (S, E) matrix. */
function sentenceOf(data: Float32Array, shape: number[], sequence: number): Matrix {
  const [, rows, cols] = shape;
  return { rows, cols, values: data.subarray(sequence * rows * cols, (sequence + 1) * rows * cols) };
}

/** Columns from … to − 1 of a matrix. */
export function columns(m: Matrix, from: number, to: number): Matrix {
  const cols = to - from;
  const values = new Float32Array(m.rows * cols);
  for (let i = 0; i < m.rows; i++) values.set(m.values.subarray(i * m.cols + from, i * m.cols + to), i * cols);
  return { rows: m.rows, cols, values };
}

function side(trace: Trace, fullName: string, perHeadName: string, layer: number, sequence: number): SplitSide | null {
  const full = findStage(trace, fullName, layer);
  const perHead = findStage(trace, perHeadName, layer);
  if (!full || !perHead || full.shape.length !== 3 || perHead.shape.length !== 4) return null;
  const matrix = sentenceOf(full.data, full.shape, sequence);
  const [, heads, , dK] = perHead.shape;
  const blocks = Array.from({ length: heads }, (_, head) => {
    const slice = headSlice(perHead, sequence, head);
    const own = columns(matrix, head * dK, (head + 1) * dK);
    return {
      head,
      from: head * dK,
      to: (head + 1) * dK,
      perHead: slice,
      maxDifference: maxDifference(own.values, slice.values),
    };
  });
  return { fullName, perHeadName, full: matrix, blocks };
}

/** The split of one projection and the merge of the contexts, of one block, layer and sentence; null if not recorded. */
export function headSplit(
  trace: Trace,
  block: Block,
  layer: number,
  sequence: number,
  projection: Projection,
): HeadSplit | null {
  const split = side(trace, `${block}.${projection}_proj`, `${block}.${projection}_heads`, layer, sequence);
  const merge = side(trace, `${block}.merged`, `${block}.context`, layer, sequence);
  if (!split || !merge) return null;
  const heads = split.blocks.length;
  const dK = split.blocks[0].to - split.blocks[0].from;
  return { e: split.full.cols, heads, dK, batch: findStage(trace, split.fullName, layer)!.shape[0], split, merge };
}
