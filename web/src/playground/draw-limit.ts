// What a view would draw for a long text, against what the page draws at once
// (ui/heatmap-layout.ts MAX_VIEW_CELLS): a view over the limit is not drawn; it says why,
// how long a text it draws, and which views still draw this one (Layers × heads draws
// thumbnails as canvas pixels and has no limit). The tab never stalls on a long text.
import { html } from 'lit';
import type { View } from '../settings/why-notes.js';
import { MAX_VIEW_CELLS, longestDrawn } from '../ui/heatmap-layout.js';
import { axisTokens, findStage } from '../model/trace-model.js';
import { overlayHeads, type ViewContext } from './views.js';

/** Per view: how many (S × S) drawings it sets side by side, or, for the views of (S × E) matrices, how many of those. */
function drawings(ctx: ViewContext): { square: number; wide: number } {
  const heads = ctx.trace.config.heads;
  const overlay = overlayHeads(ctx.state.overlay, heads).length;
  const views: Partial<Record<View, { square: number; wide: number }>> = {
    heads: { square: heads, wide: 0 },
    head: { square: 2, wide: 0 }, // its heatmap and its line view
    lines: { square: overlay > 0 ? overlay : heads, wide: 0 },
    masks: { square: 5, wide: 0 }, // padding, causal, window, combined, and the reach rows
    steps: { square: 4, wide: 3 }, // scores, scaled, masked, weights; Q, K, V
    changes: { square: 2 * heads, wide: 0 }, // each head now and before
    rows: { square: 0, wide: 4 },
    split: { square: 0, wide: 3 },
    values: { square: 0, wide: 1 },
  };
  return views[ctx.state.view] ?? { square: 0, wide: 0 };
}

/** The model's width E (the Q projection's last axis), for the views of (S × E) matrices. */
function width(ctx: ViewContext): number {
  const q = findStage(ctx.trace, `${ctx.block}.q_proj`, ctx.layer);
  return q ? q.shape[q.shape.length - 1] : ctx.trace.config.dModel;
}

/** The longest text this view of this model draws, in tokens (Infinity: no limit). */
export function longestForView(ctx: ViewContext): number {
  const { square, wide } = drawings(ctx);
  if (square === 0 && wide === 0) return Infinity;
  // S² · square + S · E · wide ≤ MAX_VIEW_CELLS, solved for S
  const e = width(ctx) * wide;
  if (square === 0) return Math.floor(MAX_VIEW_CELLS / e);
  return Math.min(
    longestDrawn(square),
    Math.floor((-e + Math.sqrt(e * e + 4 * square * MAX_VIEW_CELLS)) / (2 * square)),
  );
}

/** In place of a view too large to draw: why, and what to do instead; null when the view draws. */
export function drawRefusal(ctx: ViewContext) {
  const tokens = Math.max(...axisTokens(ctx.trace, ctx.block).queries.map((q) => q.length), 0);
  const longest = longestForView(ctx);
  if (tokens <= longest) return null;
  const { square } = drawings(ctx);
  const heads = ctx.trace.config.heads;
  return html`<p class="hint warn" role="status" data-testid="too-long-to-draw" data-tokens=${tokens} data-longest=${longest}>
    <strong>This text is ${tokens} tokens: this view would draw more than the ${MAX_VIEW_CELLS.toLocaleString('en-US')} cells
    the page draws at once${square > 1 ? html` (${square} pictures of ${tokens} × ${tokens})` : ''}.</strong>
    It draws up to ${longest} tokens. ${
      ctx.state.view === 'heads' || ctx.state.view === 'lines' || ctx.state.view === 'changes'
        ? `One head draws up to ${longestDrawn(2)}; `
        : ''
    }Layers × heads draws every one of the ${heads} heads of every layer at any length; or shorten the text.</p>`;
}
