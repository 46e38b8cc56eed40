// <ap-line-view>: each query token (left) linked to the keys it attends to
// (right), line opacity = softmax weight, as BertViz's head view. One head by default
// (`weights`, `color`); `overlay` draws several heads at once, each in its own colour,
// with a legend naming them. Hover or focus a query token to see only its lines, a key
// token to see only the lines into it, a legend entry to see only that head.
// Long inputs keep ROW px per token: the drawing scrolls in its own box. The drawing
// itself is lineSvg(), a function of a LineSpec, so that an export draws the same
// picture from the same data (linePicture) instead of copying it off the screen.
import { LitElement, css, html, nothing, render, svg } from 'lit';
import { tokenLabel } from '../model/token-label.js';
import type { AxisLabel } from './heatmap-layout.js';
import { PICTURE_INK } from './tokens.js';
import { defineOnce } from './define.js';

const ROW = 22;
const WIDTH = 360;
const TEXT_W = 110;
const MAX_LABEL = 14;
/** The drawing's smallest scale: its 12 px token labels stay at least 10 px (the box scrolls below it). */
const MIN_SCALE = 10 / 12;
/** The axis names ("query", "key"): at least 11 px at MIN_SCALE. */
const AXIS_FONT = 13.5;

/** One head of an overlay. */
export interface LineLayer {
  head: number;
  color: string;
  weights: Float32Array;
}

/** A token as drawn: escaped (tokenLabel) and cut to MAX_LABEL characters. */
function shorten(text: string): string {
  const points = Array.from(tokenLabel(text));
  return points.length > MAX_LABEL ? points.slice(0, MAX_LABEL - 1).join('') + '…' : text;
}

/** What one line view shows: the drawing's data, as the element's properties of the same names. */
export interface LineSpec {
  /** One head's (rows x cols) weights, drawn in `color`, when `overlay` is empty. */
  weights: Float32Array;
  rows: number;
  cols: number;
  rowLabels: readonly AxisLabel[];
  colLabels: readonly AxisLabel[];
  color: string;
  /** Several heads drawn together, each in its colour; empty: the one head of `weights`. */
  overlay: readonly LineLayer[];
  caption: string;
}

/** The element's part of the drawing: what is focused, and the handlers (an exported picture has none). */
interface Focus {
  row: number | null;
  col: number | null;
  head: number | null;
  focus(row: number | null, col: number | null): void;
}

function lineLayers(spec: LineSpec): readonly LineLayer[] {
  return spec.overlay.length > 0 ? spec.overlay : [{ head: -1, color: spec.color, weights: spec.weights }];
}

/** The lines as an SVG template: with `on`, the element's (only the focused token's lines, its handlers bound), else a picture's. */
export function lineSvg(spec: LineSpec, on: Focus | null = null) {
  const height = Math.max(spec.rows, spec.cols) * ROW + 28;
  const overlaid = spec.overlay.length > 0;
  const [focusedRow, focusedCol, focusedHead] = [on?.row ?? null, on?.col ?? null, on?.head ?? null];
  // Several heads share the picture: thinner lines, so that the colours underneath still show.
  const widthOf = (w: number) => (overlaid ? 0.75 + 2.25 * w : 1 + 3 * w);
  const lines = [];
  for (const layer of lineLayers(spec)) {
    if (focusedHead !== null && layer.head !== focusedHead) continue;
    for (let i = 0; i < spec.rows; i++) {
      if (focusedRow !== null && focusedRow !== i) continue;
      for (let j = 0; j < spec.cols; j++) {
        if (focusedCol !== null && focusedCol !== j) continue;
        const w = layer.weights[i * spec.cols + j];
        if (!(w > 0.01)) continue;
        lines.push(svg`<line x1=${TEXT_W} y1=${24 + i * ROW} x2=${WIDTH - TEXT_W} y2=${24 + j * ROW}
            stroke=${layer.color} stroke-width=${widthOf(w)} stroke-opacity=${Math.min(1, w * 1.1)}
            data-row=${i} data-col=${j} data-head=${layer.head >= 0 ? layer.head : nothing}></line>`);
      }
    }
  }
  const label = (l: AxisLabel | undefined) => tokenLabel(l?.label ?? '');
  const focus = (row: number | null, col: number | null) => on && (() => on.focus(row, col));
  return html`<svg viewBox="0 0 ${WIDTH} ${height}" role="img" style=${`min-width:${Math.ceil(WIDTH * MIN_SCALE)}px`}
        aria-label=${`${spec.caption}: lines from each query token to the keys it attends to`}>
        <text x=${TEXT_W - 8} y="11" text-anchor="end" fill="#555" class="pic-ink-muted" font-size=${AXIS_FONT}>query</text>
        <text x=${WIDTH - TEXT_W + 8} y="11" fill="#555" class="pic-ink-muted" font-size=${AXIS_FONT}>key</text>
        ${lines}
        ${Array.from(
          { length: spec.rows },
          (
            _,
            i,
          ) => svg`<text class=${spec.rowLabels[i]?.pad ? 'token pic-ink-muted' : 'token pic-ink'} tabindex="0" x=${TEXT_W - 8} y=${28 + i * ROW}
          text-anchor="end" fill=${spec.rowLabels[i]?.pad ? '#666' : '#111'} data-row=${i}
          @mouseenter=${focus(i, null)} @mouseleave=${focus(null, null)}
          @focus=${focus(i, null)} @blur=${focus(null, null)}><title>${label(spec.rowLabels[i])}</title>${shorten(label(spec.rowLabels[i]))}</text>`,
        )}
        ${Array.from(
          { length: spec.cols },
          (
            _,
            j,
          ) => svg`<text class=${spec.colLabels[j]?.pad ? 'token pic-ink-muted' : 'token pic-ink'} tabindex="0" x=${WIDTH - TEXT_W + 8} y=${28 + j * ROW}
          fill=${spec.colLabels[j]?.pad ? '#666' : '#111'} data-col=${j}
          @mouseenter=${focus(null, j)} @mouseleave=${focus(null, null)}
          @focus=${focus(null, j)} @blur=${focus(null, null)}><title>${label(spec.colLabels[j])}</title>${shorten(label(spec.colLabels[j]))}</text>`,
        )}
      </svg>`;
}

/** The lines as a standalone SVG element (not on the page), drawn from `spec` as <ap-line-view> draws them, for exports. */
export function linePicture(spec: LineSpec): SVGSVGElement {
  const box = document.createElement('div');
  render(lineSvg(spec), box);
  return box.querySelector('svg')!;
}

export class LineView extends LitElement {
  static override properties = {
    weights: { attribute: false },
    rows: { type: Number },
    cols: { type: Number },
    rowLabels: { attribute: false },
    colLabels: { attribute: false },
    color: { type: String },
    overlay: { attribute: false },
    caption: { type: String },
    focusedRow: { state: true },
    focusedCol: { state: true },
    focusedHead: { state: true },
  };
  declare weights: Float32Array;
  declare rows: number;
  declare cols: number;
  declare rowLabels: AxisLabel[];
  declare colLabels: AxisLabel[];
  declare color: string;
  /** Several heads drawn together (each (rows x cols) weights in its colour); empty: the one head of `weights`. */
  declare overlay: LineLayer[];
  declare caption: string;
  declare focusedRow: number | null;
  declare focusedCol: number | null;
  declare focusedHead: number | null;

  constructor() {
    super();
    this.weights = new Float32Array(0);
    this.rows = 0;
    this.cols = 0;
    this.rowLabels = [];
    this.colLabels = [];
    this.color = '#1a73e8';
    this.overlay = [];
    this.caption = '';
    this.focusedRow = null;
    this.focusedCol = null;
    this.focusedHead = null;
  }

  static override styles = [
    PICTURE_INK,
    css`
    :host { display: block; min-width: 0; }
    .scroll { overflow: auto; max-height: max(24rem, min(48rem, 85vh)); overscroll-behavior: contain; }
    svg { width: 100%; max-width: 32rem; height: auto; display: block; font: 12px system-ui, sans-serif; }
    text.token { cursor: pointer; }
    text.token:focus { outline: none; font-weight: 700; fill: var(--ap-highlight); }
    figcaption { font: 600 0.9rem system-ui, sans-serif; }
    .legend { display: flex; flex-wrap: wrap; gap: 0.2rem 0.7rem; margin: 0.2rem 0 0.4rem; padding: 0; list-style: none; font: 0.8rem system-ui, sans-serif; }
    .legend li { display: flex; align-items: center; gap: 0.3rem; cursor: default; }
    .legend li[data-dim='1'] { opacity: 0.35; }
    .swatch { display: inline-block; width: 1.4rem; height: 0.3rem; border-radius: 2px; }
  `,
  ];

  #focus = (row: number | null, col: number | null) => {
    this.focusedRow = row;
    this.focusedCol = col;
  };

  override render() {
    const overlaid = this.overlay.length > 0;
    return html`<figure>
      <figcaption>${this.caption}</figcaption>
      ${
        overlaid
          ? html`<ul class="legend" aria-label="Head colours">${this.overlay.map(
              (l) => html`<li data-head=${l.head}
        data-color=${l.color} data-dim=${this.focusedHead !== null && this.focusedHead !== l.head ? '1' : '0'}
        @mouseenter=${() => {
          this.focusedHead = l.head;
        }} @mouseleave=${() => {
          this.focusedHead = null;
        }}>
        <span class="swatch" style=${`background:${l.color}`}></span>head ${l.head}</li>`,
            )}</ul>`
          : nothing
      }
      <div class="scroll">
      ${lineSvg(this, { row: this.focusedRow, col: this.focusedCol, head: this.focusedHead, focus: this.#focus })}
      </div>
    </figure>`;
  }
}
defineOnce('ap-line-view', LineView);
