// Pure helpers that read a Trace for the views: which tokens label which axis,
// one head's matrix, why a cell is blocked, shapes with axis names, and which
// rows changed between two traces. No DOM here, so Vitest tests it in Node.
import { ENGINE, findStage, type Stage, type Trace } from 'attention-playground';

type EngineStage = (typeof ENGINE.stages)[number];

/** An attention block, '<stack>.<block>', as the engine declares them. */
export type Block = (typeof ENGINE.blocks)[number]['name'];
/** Every block, in the order views prefer them (a mode's own block first). */
export const ALL_BLOCKS: readonly Block[] = ENGINE.blocks.map((b) => b.name);

/** The attention stages drawn as heatmaps: those of shape (B, H, Sq, Sk), scores to weights. */
export type StageName = Extract<EngineStage, { scope: 'attention'; kind: 'scores' | 'weights' }>['name'];
export const HEATMAP_STAGES: readonly StageName[] = ENGINE.stages
  .filter((s) => s.scope === 'attention' && s.axes.join() === 'B,H,Sq,Sk')
  .map((s) => s.name as StageName);

export const PAD = '<pad>';

export { findStage };

/** The blocks this trace holds, e.g. ['encoder.self_attn'] or the three of cross mode. */
export function blocksOf(trace: Trace): Block[] {
  return ALL_BLOCKS.filter((b) => findStage(trace, `${b}.weights`, 0));
}

/** Query-axis and key-axis tokens of a block, one list per sequence (unpadded). */
export function axisTokens(trace: Trace, block: Block): { queries: string[][]; keys: string[][] } {
  const source = trace.mode === 'cross' ? trace.sourceTokens : trace.tokens;
  if (block === 'encoder.self_attn') return { queries: source, keys: source };
  if (block === 'decoder.cross_attn') return { queries: trace.tokens, keys: trace.sourceTokens };
  return { queries: trace.tokens, keys: trace.tokens };
}

/** Labels for a padded axis: the tokens, then PAD for each padding position. */
export function paddedLabels(tokens: string[], length: number): { label: string; pad: boolean }[] {
  return Array.from({ length }, (_, i) =>
    i < tokens.length ? { label: tokens[i], pad: false } : { label: PAD, pad: true },
  );
}

export interface HeadView {
  values: Float32Array; // (Sq, Sk) of one sequence and head
  rows: number;
  cols: number;
}

/** One (sequence, head) slice of a (B, H, Sq, Sk) stage. */
export function headSlice(stage: Stage, sequence: number, head: number): HeadView {
  const [, heads, rows, cols] = stage.shape;
  const offset = (sequence * heads + head) * rows * cols;
  return { values: stage.data.subarray(offset, offset + rows * cols), rows, cols };
}

export type BlockedReason = 'padding' | 'future' | 'window' | 'mask';

/**
 * Why (query i, key j) of a sequence is blocked, or null if it is not: read from the
 * masks the engine records by kind (mask.padding (B, Sk), mask.causal and mask.window (Sq, Sk)) beside
 * the combined one (mask (B, Sq, Sk)); nothing is re-derived here.
 */
export function blockedReason(
  trace: Trace,
  block: Block,
  layer: number,
  sequence: number,
  i: number,
  j: number,
): BlockedReason | null {
  const mask = findStage(trace, `${block}.mask`, layer);
  if (!mask) return null;
  const [, rows, cols] = mask.shape;
  if (mask.data[(sequence * rows + i) * cols + j] === 0) return null;
  const padding = findStage(trace, `${block}.mask.padding`, layer);
  if (padding && padding.data[sequence * padding.shape[1] + j] !== 0) return 'padding';
  const causal = findStage(trace, `${block}.mask.causal`, layer);
  if (causal && causal.data[i * causal.shape[1] + j] !== 0) return 'future';
  const window = findStage(trace, `${block}.mask.window`, layer);
  if (window && window.data[i * window.shape[1] + j] !== 0) return 'window';
  return 'mask';
}

/** Writes a shape with its axis names: "(B=2, S=6, E=64)". */
export function describeShape(axes: string[], shape: number[]): string {
  return `(${axes.map((a, i) => `${a}=${shape[i]}`).join(', ')})`;
}

/**
 * For each position of one sequence, how much a (B, S, E) stage moved between two
 * traces (Euclidean norm of the difference of the rows). Null when the two
 * traces cannot be compared (different shapes).
 */
export function rowChanges(
  before: Trace,
  after: Trace,
  name: string,
  layer: number,
  sequence: number,
): number[] | null {
  const a = findStage(before, name, layer);
  const b = findStage(after, name, layer);
  if (!a || !b || a.shape.join() !== b.shape.join() || a.shape.length !== 3) return null;
  const [, rows, width] = a.shape;
  return Array.from({ length: rows }, (_, r) => {
    let sum = 0;
    for (let e = 0; e < width; e++) {
      const k = (sequence * rows + r) * width + e;
      sum += (a.data[k] - b.data[k]) ** 2;
    }
    return Math.sqrt(sum);
  });
}

/** Positions where two token lists differ, if they have the same length; else null. */
export function editedPositions(before: string[], after: string[]): number[] | null {
  if (before.length !== after.length) return null;
  return before.flatMap((t, i) => (t === after[i] ? [] : [i]));
}

/** Sum of a row of a (Sq, Sk) head view. */
export function rowSum(view: HeadView, row: number): number {
  let sum = 0;
  for (let j = 0; j < view.cols; j++) sum += view.values[row * view.cols + j];
  return sum;
}
