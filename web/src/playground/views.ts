// What each view of the playground shows, as Lit templates built from a Trace
// and the view settings. The components do the drawing; this file chooses data: the
// pictures' specs (heatmapSpec, lineSpec, overlaySpec, maskPanels, thumbnails) are what
// both the view on screen and its PNG/SVG export (view-picture.ts) draw.
import { html, nothing } from 'lit';
import type { Trace } from 'attention-playground';
import { settingByName, shownValue, type State } from '../settings/settings.js';
import { ALLOWED_FILL, type ColorScale, rowScales, scoreScale, weightScale } from '../ui/colors.js';
import { explainCell } from '../model/explain.js';
import { count } from '../model/words.js';
import { axisTokens, blockedReason, findStage, headSlice, paddedLabels, type Block } from '../model/trace-model.js';
import { flowRows, headBlocks } from '../model/flow-model.js';
import { headDim, tensorCaption, type Stack } from '../model/stage-values.js';
import { layerKinds, layerReach, layerRuns, windowOf } from '../model/window-model.js';
import { kvGroups } from '../model/split-model.js';
import type { Thumbnail } from '../ui/overview.js';
import { fitColumns, gridWidth, type HeatmapSpec } from '../ui/heatmap.js';
import { RASTER_CELLS, drawsAsImage } from '../ui/heatmap-layout.js';
import type { LineSpec } from '../ui/line-view.js';

export interface ViewContext {
  trace: Trace;
  state: State;
  block: Block;
  layer: number;
  head: number;
  sequence: number;
}

// Twelve distinct colours (Dark2, then four more), so that GPT-2's and BERT's twelve heads overlay
// without repeats; beyond twelve, hues spaced by the golden angle.
const HEAD_COLORS = [
  '#1b9e77',
  '#d95f02',
  '#7570b3',
  '#e7298a',
  '#66a61e',
  '#e6ab02',
  '#a6761d',
  '#666666',
  '#1f78b4',
  '#e31a1c',
  '#17becf',
  '#6a3d9a',
];

/** A head's colour in the line views (the same head, the same colour, alone or overlaid). */
export function headColor(head: number): string {
  if (head < HEAD_COLORS.length) return HEAD_COLORS[head];
  return `hsl(${Math.round((head * 137.508) % 360)} 70% 38%)`;
}

/** The heads of the 'overlay' setting that this trace has, in order, each once. */
export function overlayHeads(overlay: string, heads: number): number[] {
  const chosen = overlay
    .split(',')
    .filter((p) => /^\d+$/.test(p.trim()))
    .map(Number)
    .filter((h) => h < heads);
  return [...new Set(chosen)].sort((a, b) => a - b);
}

function labels(ctx: ViewContext, rows: number, cols: number) {
  const { queries, keys } = axisTokens(ctx.trace, ctx.block);
  return {
    rowLabels: paddedLabels(queries[ctx.sequence] ?? [], rows),
    colLabels: paddedLabels(keys[ctx.sequence] ?? [], cols),
  };
}

function axisNames(ctx: ViewContext): { row: string; col: string } {
  return ctx.block === 'decoder.cross_attn'
    ? { row: 'query (target)', col: 'key (source)' }
    : { row: 'query', col: 'key' };
}

/** (Sq, Sk) of one sequence: 1 where blocked. */
export function blockedCells(ctx: ViewContext, layer = ctx.layer): Uint8Array {
  const mask = findStage(ctx.trace, `${ctx.block}.mask`, layer)!;
  const [, rows, cols] = mask.shape;
  return Uint8Array.from(mask.data.subarray(ctx.sequence * rows * cols, (ctx.sequence + 1) * rows * cols));
}

/**
 * The colour scale of the chosen stage. Weights: 0..1. Scores, scaled and masked share one
 * scale, fitted to the raw scores (the widest of the three), so dividing by √d_k shows as
 * paler colours and masking as hatching, not as a re-fitted scale that looks the same.
 */
export function stageScale(ctx: ViewContext): ColorScale {
  if (ctx.state.stage === 'weights') return weightScale();
  const stage = findStage(ctx.trace, `${ctx.block}.scores`, ctx.layer)!;
  const [, heads, rows, cols] = stage.shape;
  const size = heads * rows * cols;
  return scoreScale(stage.data.subarray(ctx.sequence * size, (ctx.sequence + 1) * size));
}

/** Stages before the mask is applied (raw and scaled scores) show every cell; later ones hatch the blocked. */
export function showsMask(stage: State['stage']): boolean {
  return stage === 'masked' || stage === 'weights';
}

/** The heatmap of one head, at the chosen stage. */
export function heatmapSpec(ctx: ViewContext, head: number, scale: ColorScale): HeatmapSpec {
  const stage = findStage(ctx.trace, `${ctx.block}.${ctx.state.stage}`, ctx.layer)!;
  const view = headSlice(stage, ctx.sequence, head);
  const { rowLabels, colLabels } = labels(ctx, view.rows, view.cols);
  const axes = axisNames(ctx);
  return {
    values: view.values,
    rows: view.rows,
    cols: view.cols,
    rowLabels,
    colLabels,
    blocked: showsMask(ctx.state.stage) ? blockedCells(ctx) : undefined,
    scale,
    rowScales: ctx.state.colorScale === 'row' ? rowScales(scale.kind, view.values, view.rows, view.cols) : undefined,
    caption: tensorCaption(stage, {
      dK: headDim(ctx.trace, ctx.block, ctx.layer),
      sequence: ctx.sequence,
      head,
      layer: ctx.layer,
    }),
    rowAxis: axes.row,
    colAxis: axes.col,
    showNumbers: view.cols <= 10,
  };
}

/** An <ap-heatmap> drawing `spec`, marked data-head or data-mask. */
function heatmapElement(
  spec: HeatmapSpec,
  mark: { head?: number; mask?: string },
  describeCell: (row: number, col: number) => string[],
) {
  return html`<ap-heatmap data-head=${mark.head ?? nothing} data-mask=${mark.mask ?? nothing} .values=${spec.values}
    .rows=${spec.rows} .cols=${spec.cols} .rowLabels=${spec.rowLabels} .colLabels=${spec.colLabels} .blocked=${spec.blocked}
    .scale=${spec.scale} .rowScales=${spec.rowScales} row-axis=${spec.rowAxis} col-axis=${spec.colAxis}
    ?show-numbers=${spec.showNumbers} ?image=${spec.image} caption=${spec.caption} .describeCell=${describeCell}></ap-heatmap>`;
}

export function heatmap(ctx: ViewContext, head: number, scale: ColorScale) {
  return heatmapElement(heatmapSpec(ctx, head, scale), { head }, (i: number, j: number) =>
    explainCell(ctx.trace, ctx.block, ctx.layer, ctx.sequence, head, i, j),
  );
}

/**
 * A grid of drawings, as many columns as fit at `width` px each (the widest drawing's, with GRID_CELL cells): fewer
 * columns rather than smaller cells; a drawing alone in a narrower row shrinks its cells, and scrolls only below MIN_CELL.
 */
function fitGrid(width: number, count: number, items: unknown) {
  return html`<div class="heads" data-count=${count} data-fit=${Math.ceil(width)}
    style=${`grid-template-columns:${fitColumns(width, count)}`}>${items}</div>`;
}

/** With grouped-query attention: which K/V head each query head reads (kv_group), else null. */
export function kvHeadOf(ctx: ViewContext): number[] | null {
  const groups = kvGroups(ctx.trace, ctx.block, ctx.layer);
  if (!groups || groups.kvHeads === groups.heads) return null;
  const of: number[] = [];
  groups.groups.forEach((heads, g) => heads.forEach((h) => (of[h] = g)));
  return of;
}

/** Above the heads, with grouped-query attention: which query heads share each K/V head. */
export function kvGroupsNote(ctx: ViewContext) {
  const groups = kvGroups(ctx.trace, ctx.block, ctx.layer);
  if (!groups || groups.kvHeads === groups.heads) return nothing;
  return html`<p class="hint" data-testid="kv-groups" data-groups=${JSON.stringify(groups.groups)}>
    <strong>${groups.heads} query heads share ${count(groups.kvHeads, 'K/V head')}</strong> (grouped-query attention): ${groups.groups
      .map((heads, g) => `K/V head ${g} → heads ${layerRuns(heads)}`)
      .join('; ')}. Heads of one group compare their own queries with the same keys.</p>`;
}

export function headsView(ctx: ViewContext, scale: ColorScale) {
  const kv = kvHeadOf(ctx);
  const specs = Array.from({ length: ctx.trace.config.heads }, (_, h) => {
    const spec = heatmapSpec(ctx, h, scale);
    return kv ? { ...spec, caption: `${spec.caption} · K/V head ${kv[h]}` } : spec;
  });
  return html`${kvGroupsNote(ctx)}${fitGrid(
    Math.max(...specs.map((spec) => gridWidth(spec))),
    specs.length,
    specs.map((spec, h) =>
      heatmapElement(spec, { head: h }, (i: number, j: number) =>
        explainCell(ctx.trace, ctx.block, ctx.layer, ctx.sequence, h, i, j),
      ),
    ),
  )}`;
}

/** One head's lines, in the head's colour. */
export function lineSpec(ctx: ViewContext, head: number): LineSpec {
  const stage = findStage(ctx.trace, `${ctx.block}.weights`, ctx.layer)!;
  const weights = headSlice(stage, ctx.sequence, head);
  const { rowLabels, colLabels } = labels(ctx, weights.rows, weights.cols);
  return {
    weights: weights.values,
    rows: weights.rows,
    cols: weights.cols,
    rowLabels,
    colLabels,
    color: headColor(head),
    overlay: [],
    caption: tensorCaption(stage, { sequence: ctx.sequence, head, layer: ctx.layer }),
  };
}

/** Several heads' lines in one picture, each in its colour (BertViz's head view with several heads chosen). */
export function overlaySpec(ctx: ViewContext, heads: number[]): LineSpec {
  const stage = findStage(ctx.trace, `${ctx.block}.weights`, ctx.layer)!;
  const overlay = heads.map((head) => ({
    head,
    color: headColor(head),
    weights: headSlice(stage, ctx.sequence, head).values,
  }));
  const { rows, cols } = headSlice(stage, ctx.sequence, heads[0]);
  const { rowLabels, colLabels } = labels(ctx, rows, cols);
  return {
    weights: new Float32Array(0),
    rows,
    cols,
    rowLabels,
    colLabels,
    color: headColor(heads[0]),
    overlay,
    caption: `${tensorCaption(stage, { sequence: ctx.sequence })} · head${heads.length > 1 ? 's' : ''} ${heads.join(', ')} · layer ${ctx.layer}`,
  };
}

function lineView(ctx: ViewContext, head: number) {
  const spec = lineSpec(ctx, head);
  return html`<ap-line-view data-head=${head} .weights=${spec.weights} .rows=${spec.rows} .cols=${spec.cols}
    .rowLabels=${spec.rowLabels} .colLabels=${spec.colLabels} color=${spec.color} caption=${spec.caption}></ap-line-view>`;
}

function overlayView(ctx: ViewContext, heads: number[]) {
  const spec = overlaySpec(ctx, heads);
  return html`<ap-line-view data-overlay=${heads.join(',')} .overlay=${spec.overlay} .rows=${spec.rows} .cols=${spec.cols}
    .rowLabels=${spec.rowLabels} .colLabels=${spec.colLabels} caption=${spec.caption}></ap-line-view>`;
}

/**
 * The line view's head strip: one checkbox per head, in the head's colour. Ticking heads
 * overlays them in one line view; none ticked: one line view per head.
 */
export function overlayStrip(ctx: ViewContext) {
  const heads = ctx.trace.config.heads;
  const chosen = overlayHeads(ctx.state.overlay, heads);
  const send = (target: EventTarget | null, list: number[]) =>
    target?.dispatchEvent(
      new CustomEvent('setting-input', {
        detail: { name: 'overlay', raw: list.join(',') },
        bubbles: true,
        composed: true,
      }),
    );
  const toggle = (event: Event, head: number) => {
    const on = (event.target as HTMLInputElement).checked;
    send(event.target, on ? [...chosen, head].sort((a, b) => a - b) : chosen.filter((h) => h !== head));
  };
  return html`<fieldset class="overlay-strip" data-setting="overlay">
    <legend>Overlay heads <span class="note">(none ticked: one picture per head)</span></legend>
    ${Array.from(
      { length: heads },
      (_, h) => html`<label style=${`--head-color:${headColor(h)}`}><input type="checkbox"
      name="overlay" value=${h} .checked=${chosen.includes(h)} @change=${(e: Event) => toggle(e, h)}><span class="swatch"></span>${h}</label>`,
    )}
    <button type="button" ?disabled=${chosen.length === heads} @click=${(e: Event) =>
      send(
        e.target,
        Array.from({ length: heads }, (_, h) => h),
      )}>all</button>
    <button type="button" ?disabled=${chosen.length === 0} @click=${(e: Event) => send(e.target, [])}>none</button>
  </fieldset>`;
}

export function headView(ctx: ViewContext, scale: ColorScale) {
  const tokens = axisTokens(ctx.trace, ctx.block).queries[ctx.sequence]?.length ?? 0;
  // A long text's heatmap is an image; its line view (a line per pair, as SVG) would stall the tab: left out, said.
  const lines =
    tokens * tokens > RASTER_CELLS
      ? html`<p class="hint" data-testid="no-line-view">The line view is drawn for texts up to
          ${Math.floor(Math.sqrt(RASTER_CELLS))} tokens (one line per pair of tokens); this one has ${tokens}.</p>`
      : lineView(ctx, ctx.head);
  return html`<div class="one-head">${heatmap(ctx, ctx.head, scale)}${lines}</div>`;
}

export function linesView(ctx: ViewContext) {
  const chosen = overlayHeads(ctx.state.overlay, ctx.trace.config.heads);
  if (chosen.length > 0) return overlayView(ctx, chosen);
  return html`<div class="heads" data-count=${ctx.trace.config.heads}>${Array.from({ length: ctx.trace.config.heads }, (_, h) => lineView(ctx, h))}</div>`;
}

const ALLOWED: ColorScale = { kind: 'sequential', domain: [0, 1], color: () => ALLOWED_FILL, at: () => ALLOWED_FILL };

/** The Masks view's square pictures at most: padding, causal, window, combined (and the reach rows). */
export const MASK_PICTURES = 5;

/** One panel of the masks view: what it draws, its mark (data-mask) and its cells' explanations. */
export interface MaskPanel {
  mask: string;
  spec: HeatmapSpec;
  describeCell: (row: number, col: number) => string[];
}

/** The masks view's panels, in order: the batch's key padding, this sentence's padding, causal (if any), combined. */
export function maskPanels(ctx: ViewContext): MaskPanel[] {
  const combined = blockedCells(ctx);
  const rows = findStage(ctx.trace, `${ctx.block}.mask`, ctx.layer)!.shape[1];
  const cols = combined.length / rows;
  const { rowLabels, colLabels } = labels(ctx, rows, cols);
  const keyCount = axisTokens(ctx.trace, ctx.block).keys[ctx.sequence].length;
  const causal = ctx.block !== 'decoder.cross_attn' && ctx.trace.mode !== 'encoder';
  // The sliding window, as its own mask kind (recorded only in a layer that has one).
  const windowMask = findStage(ctx.trace, `${ctx.block}.mask.window`, ctx.layer);
  const window = windowMask ? ctx.trace.config.window || windowOf(ctx.trace, ctx.block, ctx.layer) : 0;
  const make = (blocked: (i: number, j: number) => boolean) =>
    Uint8Array.from({ length: rows * cols }, (_, k) => (blocked(Math.floor(k / cols), k % cols) ? 1 : 0));
  const axes = axisNames(ctx);
  // Each panel's caption ends with the recorded tensor it draws, its axis names and sizes.
  const shape = (name: string, sequence?: number) => {
    const stage = findStage(ctx.trace, `${ctx.block}.${name}`, ctx.layer);
    return stage ? ` — ${tensorCaption(stage, { sequence, layer: ctx.layer })}` : '';
  };
  const panel = (caption: string, blocked: Uint8Array, mask: string): MaskPanel => ({
    mask,
    spec: {
      values: new Float32Array(rows * cols),
      rows,
      cols,
      rowLabels,
      colLabels,
      blocked,
      scale: ALLOWED,
      caption,
      rowAxis: axes.row,
      colAxis: axes.col,
    },
    describeCell: (i, j) => {
      const reason = blockedReason(ctx.trace, ctx.block, ctx.layer, ctx.sequence, i, j);
      return [`query ${i} → key ${j}`, blocked[i * cols + j] ? `blocked${reason ? ` (${reason})` : ''}` : 'allowed'];
    },
  });
  // The key padding of every sentence of the batch at once: (B, Sk), blocked = padding.
  const keysPerSentence = axisTokens(ctx.trace, ctx.block).keys.map((k) => k.length);
  const batch = keysPerSentence.length;
  const batchPanel: MaskPanel = {
    mask: 'batch-padding',
    spec: {
      values: new Float32Array(batch * cols),
      rows: batch,
      cols,
      rowLabels: keysPerSentence.map((n, b) => ({ label: `${b + 1}: ${n} token${n === 1 ? '' : 's'}`, pad: n < cols })),
      colLabels: Array.from({ length: cols }, (_, j) => ({ label: String(j), pad: false })),
      blocked: Uint8Array.from({ length: batch * cols }, (_, k) =>
        k % cols >= keysPerSentence[Math.floor(k / cols)] ? 1 : 0,
      ),
      scale: ALLOWED,
      caption: `Key padding of the whole batch: the batch is padded to its longest sentence${shape('mask.padding')}`,
      rowAxis: 'sentence',
      colAxis: 'key position',
    },
    describeCell: (b, j) => [
      `sentence ${b + 1}, key ${j}`,
      j >= keysPerSentence[b] ? 'padding: blocked for every query' : 'a real token',
    ],
  };
  return [
    batchPanel,
    panel(
      `${keyCount < cols ? `Key padding: keys ${keyCount}–${cols - 1} are padding` : `Key padding: none in sentence ${ctx.sequence + 1}`}${shape(
        'mask.padding',
        ctx.sequence,
      )}`,
      make((_, j) => j >= keyCount),
      'padding',
    ),
    ...(causal
      ? [
          panel(
            `Causal: no looking ahead (j > i)${shape('mask.causal')}`,
            make((i, j) => j > i),
            'causal',
          ),
        ]
      : []),
    ...(windowMask
      ? [
          panel(
            `Sliding window of ${window}: no looking further back than ${window - 1} (j ≤ i − ${window})${
              causal ? '' : `, nor further ahead (j ≥ i + ${window})`
            }${shape('mask.window')}`,
            Uint8Array.from(windowMask.data.subarray(0, rows * cols)),
            'window',
          ),
        ]
      : []),
    panel(`Combined mask (what the softmax sees)${shape('mask', ctx.sequence)}`, combined, 'combined'),
  ];
}

/**
 * In a model whose layers differ (local layers with a sliding window, global ones without: Gemma 3), which this layer
 * is, and which the others are; nothing when every layer is alike.
 */
export function layerKindNote(ctx: ViewContext) {
  const { local, global } = layerKinds(ctx.trace, ctx.block);
  if (local.length === 0 || global.length === 0) return nothing;
  const isLocal = local.includes(ctx.layer);
  const window = ctx.trace.config.window || windowOf(ctx.trace, ctx.block, ctx.layer);
  return html`<p class="hint" data-testid="layer-kind" data-kind=${isLocal ? 'local' : 'global'}
    data-local=${local.join(',')} data-global=${global.join(',')}>
    <strong>Layer ${ctx.layer} is ${isLocal ? `local: a sliding window of ${window} tokens` : 'global: no window, every earlier token'}.</strong>
    Local layers (windowed): ${layerRuns(local)}; global layers: ${layerRuns(global)}.</p>`;
}

/** Each layer's kind, 'local' or 'global', where the model has both (else null). */
export function layerKindNames(ctx: ViewContext): string[] | null {
  const { local, global } = layerKinds(ctx.trace, ctx.block);
  if (local.length === 0 || global.length === 0) return null;
  return Array.from({ length: local.length + global.length }, (_, l) => (local.includes(l) ? 'local' : 'global'));
}

export function masksView(ctx: ViewContext) {
  const panels = maskPanels(ctx).map((p) => ({
    ...p,
    spec: { ...p.spec, image: drawsAsImage(p.spec.rows * p.spec.cols, MASK_PICTURES) },
  }));
  const reach = reachPanel(ctx);
  return html`${layerKindNote(ctx)}${fitGrid(
    Math.max(...panels.map((p) => gridWidth(p.spec))),
    panels.length,
    panels.map((p) => heatmapElement(p.spec, { mask: p.mask }, p.describeCell)),
  )}${reach ? html`${reach.note}${heatmapElement(reach.panel.spec, { mask: 'reach' }, reach.panel.describeCell)}` : nothing}`;
}

/**
 * With a sliding window: what the sentence's last word can draw on after each layer (rows = layers), composed from
 * the masks each layer's softmax saw (model/window-model.ts). One layer sees w − 1 words back; L layers about L × w.
 */
export function reachPanel(ctx: ViewContext): { panel: MaskPanel; note: unknown } | null {
  if (!ctx.trace.stages.some((s) => s.name === `${ctx.block}.mask.window`)) return null;
  const { queries } = axisTokens(ctx.trace, ctx.block);
  const tokens = queries[ctx.sequence] ?? [];
  const reach = layerReach(ctx.trace, ctx.block, ctx.sequence, tokens.length);
  if (reach.length === 0 || tokens.length === 0) return null;
  const n = Math.sqrt(reach[0].reachable.length);
  const last = tokens.length - 1;
  const window = ctx.trace.config.window || Math.max(...reach.map((r) => windowOf(ctx.trace, ctx.block, r.layer)));
  const blocked = new Uint8Array(reach.length * n);
  reach.forEach((r, l) => {
    for (let j = 0; j < n; j++) blocked[l * n + j] = r.reachable[last * n + j] ? 0 : 1;
  });
  const farthest = reach.map((r) => r.farthest);
  const panel: MaskPanel = {
    mask: 'reach',
    spec: {
      values: new Float32Array(reach.length * n),
      rows: reach.length,
      cols: n,
      rowLabels: reach.map((r) => ({ label: `layer ${r.layer}${r.windowed ? '' : ' (global)'}`, pad: false })),
      colLabels: paddedLabels(tokens, n),
      blocked,
      scale: ALLOWED,
      caption: `What “${tokens[last]}” (position ${last}) can draw on, layer by layer: window ${window}`,
      rowAxis: 'layer',
      colAxis: 'key',
    },
    describeCell: (l, j) => [
      `after layer ${reach[l].layer}, key ${j}`,
      blocked[l * n + j] ? 'not reachable yet' : 'reachable (directly or through earlier layers)',
    ],
  };
  const note = html`<p class="hint" data-testid="window-reach" data-window=${window} data-farthest=${farthest.join(',')}>
    <strong>Reach grows with depth.</strong> One windowed layer lets a word read ${window - 1} words back; the next layer
    reads words that already read ${window - 1} further, so after layer L (counting from 1) a word can draw on about
    L × ${window - 1} words back. Here, farthest reach after each layer: ${farthest.join(', ')}.</p>`;
  return { panel, note };
}

export function shapesView(ctx: ViewContext) {
  const stacks = ctx.trace.mode === 'cross' ? (['encoder', 'decoder'] as const) : ([ctx.trace.mode] as const);
  return html`${stacks.map(
    (stack) => html`<ap-shape-flow data-stack=${stack} .rows=${flowRows(ctx.trace, stack, ctx.layer)}
    .blocks=${headBlocks(ctx.trace, stack, ctx.layer)} mode=${ctx.trace.mode} activation=${
      ctx.trace.config.activation ? shownValue(settingByName('activation')!, ctx.trace.config.activation) : ''
    }
    heading=${`${stack === 'encoder' ? 'Encoder' : 'Decoder'} layer ${ctx.layer}: click a step to see its values`}></ap-shape-flow>`,
  )}`;
}

/** The Row by row view: the projections' input and output rows, and every repeated word's two rows compared. */
export function rowsView(ctx: ViewContext) {
  return html`<ap-row-wise .trace=${ctx.trace} block=${ctx.block} layer=${ctx.layer} sequence=${ctx.sequence}
    ?untrained=${ctx.state.model === ''}></ap-row-wise>`;
}

/** The Head split view: Q, K or V cut into the heads' column blocks, and the contexts merged back. */
export function splitView(ctx: ViewContext) {
  return html`<ap-head-split .trace=${ctx.trace} block=${ctx.block} layer=${ctx.layer} sequence=${ctx.sequence}></ap-head-split>`;
}

/** The Positions view: RoPE's turning pairs and relative scores, ALiBi's slopes, or the added position vectors. */
export function positionsView(ctx: ViewContext) {
  return html`<ap-positions .trace=${ctx.trace} block=${ctx.block} layer=${ctx.layer} sequence=${ctx.sequence}
    head=${ctx.head}></ap-positions>`;
}

/** The Step by step view: one head's Q·Kᵀ → ÷ √d_k → mask → softmax → · V, each step recomputed from the one before. */
export function stepsView(ctx: ViewContext) {
  return html`<ap-head-walk .trace=${ctx.trace} block=${ctx.block} layer=${ctx.layer} sequence=${ctx.sequence} head=${ctx.head}></ap-head-walk>`;
}

/** The Values view: one recorded tensor of the chosen layer, of the chosen block's stack. */
export function valuesView(ctx: ViewContext) {
  return html`<ap-tensor-view .trace=${ctx.trace} stack=${ctx.block.split('.')[0] as Stack} layer=${ctx.layer}
    sequence=${ctx.sequence} tensor=${ctx.state.tensor}></ap-tensor-view>`;
}

/** Every layer x head's softmax weights of the chosen block and sentence, layer by layer. */
export function thumbnails(ctx: ViewContext): Thumbnail[] {
  const list: Thumbnail[] = [];
  for (let layer = 0; layer < ctx.trace.config.layers; layer++) {
    const stage = findStage(ctx.trace, `${ctx.block}.weights`, layer)!;
    const blocked = blockedCells(ctx, layer);
    for (let head = 0; head < ctx.trace.config.heads; head++) {
      const view = headSlice(stage, ctx.sequence, head);
      list.push({ layer, head, values: view.values, rows: view.rows, cols: view.cols, blocked });
    }
  }
  return list;
}

export function overviewView(ctx: ViewContext) {
  const weights = findStage(ctx.trace, `${ctx.block}.weights`, 0)!;
  return html`<p class="hint" data-testid="overview-caption">${tensorCaption(weights, { sequence: ctx.sequence })} in each of
    the ${ctx.trace.config.layers} layers: one thumbnail per layer and head</p>
    ${kvGroupsNote(ctx)}
    <ap-overview .thumbnails=${thumbnails(ctx)} .layers=${ctx.trace.config.layers} .heads=${ctx.trace.config.heads}
      .kvHeadOf=${kvHeadOf(ctx)} .layerKinds=${layerKindNames(ctx)}
      ?per-row=${ctx.state.colorScale === 'row'}></ap-overview>`;
}
