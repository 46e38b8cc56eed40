// What a recorded tensor is and how it is shown: its place (stack, attention block,
// registry name), its caption with axis names and sizes, its values cut into
// (positions x features) panels, one per head where it has a head axis, and the
// per-token statistics of a panel. Axis names, kinds and help lines come from the
// engine's stage registry (ENGINE.stages); nothing here restates them. No DOM, so
// Vitest tests it in Node.
import { ENGINE, type Stage, type Trace } from 'attention-playground';
import { HEATMAP_STAGES, axisTokens, findStage, paddedLabels, type Block } from './trace-model.js';

export type Stack = 'encoder' | 'decoder';
export type Scope = 'stack' | 'layer' | 'attention';

export interface StagePlace {
  stack: Stack;
  /** 'self_attn' or 'cross_attn' for attention stages, else ''. */
  block: '' | 'self_attn' | 'cross_attn';
  /** The registry name, relative to its scope: 'q_heads', 'norm1', 'ffn.hidden', 'input'. */
  name: string;
  scope: Scope;
}

/** Where a stage sits, from its full name ('encoder.self_attn.q_heads', 'decoder.norm2', 'encoder.input'). */
export function stagePlace(fullName: string): StagePlace | null {
  const m = /^(encoder|decoder)\.(?:(self_attn|cross_attn)\.)?(.+)$/.exec(fullName);
  if (!m) return null;
  const [, stack, block = '', name] = m;
  const scope: Scope = block
    ? 'attention'
    : ENGINE.stages.some((s) => s.scope === 'stack' && s.name === name)
      ? 'stack'
      : 'layer';
  return { stack: stack as Stack, block: block as StagePlace['block'], name, scope };
}

/** The registry's one line on a stage, e.g. "queries gathered per head". */
export function stageHelp(fullName: string): string {
  const place = stagePlace(fullName);
  if (!place) return '';
  return ENGINE.stages.find((s) => s.scope === place.scope && s.name === place.name)?.help ?? '';
}

/** A stage's name inside its stack: 'self_attn.q_heads', 'norm1', 'input'. */
export function stackName(fullName: string): string {
  return fullName.replace(/^(encoder|decoder)\./, '');
}

/** The attention block whose tokens label a stage's positions ('encoder.self_attn' for the encoder's layer stages). */
export function blockOf(fullName: string): Block {
  const place = stagePlace(fullName);
  if (!place) return 'encoder.self_attn';
  return `${place.stack}.${place.block || 'self_attn'}` as Block;
}

/** "self_attn.weights (B, H, Sq, Sk) = (2, 4, 6, 6)": the tensor, its axis names and sizes. */
export function tensorShape(stage: Pick<Stage, 'name' | 'axes' | 'shape'>): string {
  return `${stackName(stage.name)} (${stage.axes.join(', ')}) = (${stage.shape.join(', ')})`;
}

export interface CaptionParts {
  /** The sentence shown, when the stage has a batch axis and the batch more than one sentence. */
  sequence?: number;
  head?: number;
  layer?: number;
  /** d_k, stated for the attention scores and weights (the scale divides by √d_k). */
  dK?: number;
}

/**
 * A heatmap's caption: the tensor with axis names and sizes, then which slice is drawn,
 * e.g. "self_attn.weights (B, H, Sq, Sk) = (2, 4, 6, 6) · d_k = 16 · sentence 2 · head 1 · layer 0".
 */
export function tensorCaption(stage: Pick<Stage, 'name' | 'axes' | 'shape'>, parts: CaptionParts): string {
  const b = stage.axes.indexOf('B');
  const out = [tensorShape(stage)];
  if (parts.dK !== undefined) out.push(`d_k = ${parts.dK}`);
  if (parts.sequence !== undefined && b >= 0 && stage.shape[b] > 1) out.push(`sentence ${parts.sequence + 1}`);
  if (parts.head !== undefined) out.push(`head ${parts.head}`);
  if (parts.layer !== undefined && parts.layer >= 0) out.push(`layer ${parts.layer}`);
  return out.join(' · ');
}

/** d_k of a block's layer, read from its recorded per-head queries (B, H, Sq, d_k); else E / H of the config. */
export function headDim(trace: Trace, block: Block, layer: number): number {
  const q = findStage(trace, `${block}.q_heads`, layer);
  return q ? q.shape[3] : trace.config.dModel / trace.config.heads;
}

/** One (positions x features) slice of a stage: one sentence, and one head where the stage has a head axis. */
export interface ValuePanel {
  head: number | null;
  rows: number;
  cols: number;
  /** (rows, cols), row-major. */
  values: Float32Array;
  /** Axis names of the rows and columns, e.g. 'Sq' and 'd_k'; rowAxis '' for a single row. */
  rowAxis: string;
  colAxis: string;
}

/**
 * A stage cut into panels: the batch axis B fixed at `sequence`, one panel per head H;
 * the two axes left are rows and columns (one axis left: a single row).
 * q_heads (B, H, Sq, d_k) -> H panels of (Sq, d_k); norm1 (B, S, E) -> one panel of (S, E).
 */
export function stagePanels(stage: Pick<Stage, 'axes' | 'shape' | 'data'>, sequence: number): ValuePanel[] {
  const { axes, shape, data } = stage;
  const strides = shape.map((_, i) => shape.slice(i + 1).reduce((a, b) => a * b, 1));
  const b = axes.indexOf('B');
  const h = axes.indexOf('H');
  const free = axes.map((_, i) => i).filter((i) => i !== b && i !== h);
  if (free.length === 0 || free.length > 2) return [];
  const [r, c] = free.length === 2 ? free : [-1, free[0]];
  const rows = r < 0 ? 1 : shape[r];
  const cols = shape[c];
  const heads = h < 0 ? 1 : shape[h];
  return Array.from({ length: heads }, (_, head) => {
    const base = (b < 0 ? 0 : sequence * strides[b]) + (h < 0 ? 0 : head * strides[h]);
    const values = new Float32Array(rows * cols);
    for (let i = 0; i < rows; i++)
      for (let j = 0; j < cols; j++) values[i * cols + j] = data[base + (r < 0 ? 0 : i * strides[r]) + j * strides[c]];
    return { head: h < 0 ? null : head, rows, cols, values, rowAxis: r < 0 ? '' : axes[r], colAxis: axes[c] };
  });
}

/**
 * The first columns of a panel, at most `maxCells` cells in all (a heatmap draws one SVG
 * rect per cell: GPT-2's FFN, (64, 3072), would be 196,608). At least one column.
 */
export function firstColumns(panel: ValuePanel, maxCells: number): ValuePanel {
  const cols = Math.max(1, Math.min(panel.cols, Math.floor(maxCells / Math.max(1, panel.rows))));
  if (cols === panel.cols) return panel;
  const values = new Float32Array(panel.rows * cols);
  for (let i = 0; i < panel.rows; i++)
    values.set(panel.values.subarray(i * panel.cols, i * panel.cols + cols), i * cols);
  return { ...panel, cols, values };
}

const POSITION_AXES = ['S', 'Sq', 'Sk'];

/** Labels of a panel's axis: tokens (padded) for a position axis, indices for a feature axis. */
export function axisLabels(trace: Trace, fullName: string, axis: string, length: number, sequence: number) {
  if (POSITION_AXES.includes(axis)) {
    const { queries, keys } = axisTokens(trace, blockOf(fullName));
    return paddedLabels((axis === 'Sk' ? keys : queries)[sequence] ?? [], length);
  }
  return Array.from({ length }, (_, i) => ({ label: String(i), pad: false }));
}

export interface RowStats {
  mean: number;
  std: number;
  norm: number;
}

/** Each row's mean, standard deviation (over its features, as LayerNorm computes them) and length. */
export function rowStats(panel: Pick<ValuePanel, 'rows' | 'cols' | 'values'>): RowStats[] {
  return Array.from({ length: panel.rows }, (_, i) => {
    const row = panel.values.subarray(i * panel.cols, (i + 1) * panel.cols);
    let sum = 0,
      squares = 0;
    for (const v of row) {
      sum += v;
      squares += v * v;
    }
    const mean = sum / panel.cols;
    return { mean, std: Math.sqrt(Math.max(0, squares / panel.cols - mean * mean)), norm: Math.sqrt(squares) };
  });
}

/** Stages shown elsewhere: scores and weights in the heatmap views, masks in the Masks view. */
export function viewOfStage(
  fullName: string,
): { view: 'heads'; stage: string } | { view: 'masks' } | { view: 'values' } {
  const place = stagePlace(fullName);
  if (place?.scope === 'attention' && (HEATMAP_STAGES as readonly string[]).includes(place.name))
    return { view: 'heads', stage: place.name };
  if (place?.scope === 'attention' && (place.name === 'mask' || place.name.startsWith('mask.')))
    return { view: 'masks' };
  return { view: 'values' };
}

/**
 * The settings that open a step's values: the view that shows it, the tensor or stage, and
 * (with more than one attention block) the block. As {name, raw} pairs, in the order to apply.
 * `tensor`: the Values view's name for it ('input' for what a layer reads, whichever stage that is).
 */
export function stepSettings(
  fullName: string,
  mode: Trace['mode'],
  tensor = stackName(fullName),
): { name: string; raw: string }[] {
  const target = viewOfStage(fullName);
  const settings: { name: string; raw: string }[] = [];
  if (mode === 'cross') settings.push({ name: 'block', raw: blockOf(fullName) });
  if (target.view === 'heads') settings.push({ name: 'stage', raw: target.stage });
  if (target.view === 'values') settings.push({ name: 'tensor', raw: tensor });
  settings.push({ name: 'view', raw: target.view });
  return settings;
}
