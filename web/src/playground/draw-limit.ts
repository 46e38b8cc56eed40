// What a view would draw for a long text, against what the page draws at once
// (ui/heatmap-layout.ts: MAX_VIEW_CELLS SVG cells, MAX_VIEW_PIXELS raster heatmap cells):
// a view over either is not drawn; it says why, how long a text it draws, and which views
// still draw this one. Heatmaps over RASTER_CELLS, or many heatmaps together past
// MAX_VIEW_CELLS, are images (cheap); the line view, the Values view's panels (cut to their
// first columns) and the matrices of Step by step, Row by row, Head split and What changed
// are SVG (dear).
// Layers × heads draws canvas thumbnails and has no limit. The tab never stalls on a text.
import { html } from 'lit';
import { MAX_VIEW_CELLS, MAX_VIEW_PIXELS, RASTER_CELLS, drawsAsImage } from '../ui/heatmap-layout.js';
import { axisTokens, findStage } from '../model/trace-model.js';
import { MASK_PICTURES, overlayHeads, type ViewContext } from './views.js';
import { MAX_CELLS as VALUES_PANEL_CELLS } from './tensor-view.js';

/** What this view draws for S tokens: SVG cells and raster heatmap cells. */
export function viewCells(ctx: ViewContext, tokens: number): { svg: number; pixels: number } {
  const heads = ctx.trace.config.heads;
  const square = tokens * tokens;
  // n heatmaps of S × S, drawn as images when views.ts draws them so (drawsAsImage)
  const heatmaps = (n: number, cells = square) =>
    drawsAsImage(cells, n) ? { svg: 0, pixels: n * cells } : { svg: n * cells, pixels: 0 };
  const q = findStage(ctx.trace, `${ctx.block}.q_proj`, ctx.layer);
  const width = q ? q.shape[q.shape.length - 1] : ctx.trace.config.dModel; // E, for the (S × E) matrices
  const dK = width / heads;
  switch (ctx.state.view) {
    case 'heads':
      return heatmaps(heads);
    case 'head': {
      // its heatmap, and its line view while that is short enough to draw (views.ts headView)
      const map = heatmaps(1);
      return { svg: map.svg + (square > RASTER_CELLS ? 0 : square), pixels: map.pixels };
    }
    case 'lines':
      return { svg: (overlayHeads(ctx.state.overlay, heads).length || heads) * square, pixels: 0 };
    case 'masks':
      return heatmaps(MASK_PICTURES);
    case 'steps':
      return { svg: 4 * square + 3 * tokens * dK, pixels: 0 }; // scores, scaled, masked, weights; Q, K, V
    case 'changes':
      return { svg: 3 * square, pixels: 0 }; // one head's weights before, after and their difference
    case 'rows':
      return { svg: 4 * tokens * width, pixels: 0 };
    case 'split':
      return { svg: 3 * tokens * width, pixels: 0 };
    case 'values': {
      // one (S × E) panel, or one (S × d) panel per head, each cut to its first columns (tensor-view.ts MAX_CELLS)
      const stage = findStage(ctx.trace, `${ctx.block.split('.')[0]}.${ctx.state.tensor}`, ctx.layer);
      const shape = stage?.shape ?? [1, tokens, width];
      const panels = shape.length === 4 ? shape[1] : 1;
      const cols = shape[shape.length - 1];
      return { svg: panels * tokens * Math.max(1, Math.min(cols, Math.floor(VALUES_PANEL_CELLS / tokens))), pixels: 0 };
    }
    default:
      return { svg: 0, pixels: 0 };
  }
}

/** The longest text this view of this trace draws, in tokens (found by halving: the counts grow with S). */
export function longestForView(ctx: ViewContext, upTo: number): number {
  const fits = (s: number) => {
    const { svg, pixels } = viewCells(ctx, s);
    return svg <= MAX_VIEW_CELLS && pixels <= MAX_VIEW_PIXELS;
  };
  if (fits(upTo)) return upTo;
  let [lo, hi] = [0, upTo]; // fits(lo), !fits(hi)
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (fits(mid)) lo = mid;
    else hi = mid;
  }
  return lo;
}

/** In place of a view too large to draw: why, and what to do instead; null when the view draws. */
export function drawRefusal(ctx: ViewContext) {
  const tokens = Math.max(0, ...axisTokens(ctx.trace, ctx.block).queries.map((q) => q.length));
  const longest = longestForView(ctx, tokens);
  if (tokens <= longest) return null;
  const { svg } = viewCells(ctx, tokens);
  const over =
    svg > MAX_VIEW_CELLS
      ? `${svg.toLocaleString('en-US')} cells, more than the ${MAX_VIEW_CELLS.toLocaleString('en-US')} the page draws at once`
      : `more than the ${MAX_VIEW_PIXELS.toLocaleString('en-US')} heatmap cells the page draws at once`;
  return html`<p class="hint warn" role="status" data-testid="too-long-to-draw" data-tokens=${tokens} data-longest=${longest}>
    <strong>This text is ${tokens} tokens: this view would draw ${over}.</strong> It draws up to ${longest} tokens.
    All heads, One head, Masks and Layers × heads draw this text (long heatmaps as images); or shorten it.</p>`;
}
