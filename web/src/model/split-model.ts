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

export interface KvGroups {
  heads: number;
  kvHeads: number;
  headDim: number;
  /** groups[g]: the query heads that share K/V head g (kv_group, or one head each without grouped-query attention). */
  groups: number[][];
}

/** Which query heads share which K/V head in a block's layer (the recorded kv_group); null without the heads' shapes. */
export function kvGroups(trace: Trace, block: Block, layer: number): KvGroups | null {
  const q = findStage(trace, `${block}.q_heads`, layer);
  const k = findStage(trace, `${block}.k_heads`, layer);
  if (!q || !k) return null;
  const heads = q.shape[1],
    kvHeads = k.shape[1];
  const map = findStage(trace, `${block}.kv_group`, layer);
  const groups: number[][] = Array.from({ length: kvHeads }, () => []);
  for (let h = 0; h < heads; h++) groups[map ? map.data[h] : h].push(h);
  return { heads, kvHeads, headDim: q.shape[3], groups };
}

/** Bytes a KV cache holds per token: K and V, of each layer, H_kv heads × d_h values of `bytesPerValue` (float32: 4). */
export function kvCacheBytesPerToken(layers: number, kvHeads: number, headDim: number, bytesPerValue = 4): number {
  return 2 * layers * kvHeads * headDim * bytesPerValue;
}

/**
 * The KV cache per token of this model's shape as multi-head (H_kv = H), grouped (its own H_kv, or H / 2 for an
 * example when it has no groups) and multi-query (H_kv = 1) attention; `current` marks the model's own.
 */
export function kvCacheComparison(
  layers: number,
  groups: KvGroups,
): { name: 'MHA' | 'GQA' | 'MQA'; kvHeads: number; bytes: number; current: boolean }[] {
  const { heads, kvHeads } = groups;
  const own = kvHeads === heads ? 'MHA' : kvHeads === 1 ? 'MQA' : 'GQA';
  const grouped = own === 'GQA' ? kvHeads : heads >= 4 && heads % 2 === 0 ? heads / 2 : 0;
  const rows = [
    { name: 'MHA' as const, kvHeads: heads },
    { name: 'GQA' as const, kvHeads: grouped },
    { name: 'MQA' as const, kvHeads: 1 },
  ].filter((r) => r.kvHeads > 0 && (r.name !== 'MQA' || heads > 1));
  return rows.map((r) => ({
    ...r,
    bytes: kvCacheBytesPerToken(layers, r.kvHeads, groups.headDim),
    current: r.name === own,
  }));
}
