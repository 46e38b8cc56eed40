// <ap-legend>: the colour bar of a heatmap scale, its end values, and the
// swatch that marks blocked cells; with `masks`, the Masks view's two swatches (allowed, blocked).
import { LitElement, css, html, unsafeCSS } from 'lit';
import { MINUS_INFINITY, formatValue } from '../model/words.js';
import { ALLOWED_FILL, BLOCKED_FILL, type ColorScale, rowScaleEnds } from './colors.js';
import { defineOnce } from './define.js';

export class Legend extends LitElement {
  static override properties = {
    scale: { attribute: false },
    label: { type: String },
    noBlocked: { type: Boolean, attribute: 'no-blocked' },
    masks: { type: Boolean },
    perRow: { type: Boolean, attribute: 'per-row' },
    plainBlocked: { type: Boolean, attribute: 'plain-blocked' },
  };
  declare scale: ColorScale | undefined;
  declare label: string;
  /** The view has no blocked cells: no swatch for them. */
  declare noBlocked: boolean;
  /** The Masks view's legend: what an allowed and a blocked cell mean. */
  declare masks: boolean;
  /** Each row of the heatmaps has its own scale: the bar's ends are the row's own, not numbers. */
  declare perRow: boolean;
  /** Blocked cells are drawn plain grey (the overview's thumbnails, too small to hatch), not hatched. */
  declare plainBlocked: boolean;

  constructor() {
    super();
    this.label = '';
    this.noBlocked = false;
    this.masks = false;
    this.perRow = false;
    this.plainBlocked = false;
  }

  static override styles = css`
    :host { display: flex; align-items: center; gap: 0.6rem; flex-wrap: wrap; font: 0.8rem system-ui, sans-serif; }
    .bar { width: 10rem; height: 0.8rem; border: 1px solid var(--ap-border-strong); }
    .blocked, .plain-blocked, .allowed { width: 1.1rem; height: 0.8rem; border: 1px solid var(--ap-border-strong); }
    .blocked { background: repeating-linear-gradient(45deg, #555 0 2px, ${unsafeCSS(BLOCKED_FILL)} 2px 6px); }
    .plain-blocked { background: ${unsafeCSS(BLOCKED_FILL)}; }
    .allowed { background: ${unsafeCSS(ALLOWED_FILL)}; }
  `;

  override render() {
    if (this.masks)
      return html`<span>${this.label}</span>
      <span class="allowed" aria-hidden="true"></span><span data-key="allowed">allowed: the query may attend to this key (its score goes on to the softmax)</span>
      <span class="blocked" aria-hidden="true"></span><span data-key="blocked">blocked: the score becomes ${MINUS_INFINITY}, so its weight after the softmax is exactly 0</span>`;
    if (!this.scale) return html``;
    const stops = Array.from({ length: 11 }, (_, i) => `${this.scale!.at(i / 10)} ${i * 10}%`).join(', ');
    const [low, high] = this.perRow ? rowScaleEnds(this.scale.kind) : this.scale.domain.map(formatValue);
    return html`<span>${this.label}</span>${this.perRow ? html`<span data-key="per-row">each row its own scale:</span>` : ''}
      <span>${low}</span>
      <span class="bar" role="img" aria-label=${`colour scale from ${low} to ${high}${this.perRow ? ', in each row' : ''}`}
        style=${`background: linear-gradient(to right, ${stops})`}></span>
      <span>${high}</span>
      ${this.noBlocked ? '' : html`<span class=${this.plainBlocked ? 'plain-blocked' : 'blocked'} aria-hidden="true"></span><span>blocked (${MINUS_INFINITY} before softmax, 0 after)</span>`}`;
  }
}
defineOnce('ap-legend', Legend);
