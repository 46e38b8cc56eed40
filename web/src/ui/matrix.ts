// <ap-matrix>: a small matrix as a compact SVG colour grid, for the views that set several
// matrices side by side (Row by row, Head split, Step by step): token labels down the side,
// no feature labels, optional coloured column bands on top (the heads' blocks of columns),
// highlighted rows, hatched blocked cells. Its numbers are not drawn: the views print
// the numbers they argue from in tables beside it. Data in (properties), nothing out.
import { LitElement, css, html, svg } from 'lit';
import { tokenLabel } from '../model/token-label.js';
import { BLOCKED_FILL, type ColorScale } from './colors.js';
import { HostWidth } from './host-width.js';
import { defineOnce } from './define.js';

/** A run of columns drawn with a coloured band above it, e.g. head 1's d_k columns. */
export interface ColumnBand {
  from: number;
  to: number;
  color: string;
  label: string;
}

const LEFT = 64;
/** A row is at least this tall, so that its token label reads (cells may be narrower: E = 768 columns). */
const MIN_ROW = 14;
const BAND = 16;
/** The narrowest a fitted column gets, px: below it the box scrolls. */
const MIN_FIT_CELL = 3;
const MAX_LABEL = 8;

/** A token as drawn: escaped (tokenLabel) and cut to MAX_LABEL characters. */
function shorten(text: string): string {
  const points = Array.from(tokenLabel(text));
  return points.length > MAX_LABEL ? `${points.slice(0, MAX_LABEL - 1).join('')}…` : points.join('');
}

export class Matrix extends LitElement {
  static override properties = {
    values: { attribute: false },
    rows: { type: Number },
    cols: { type: Number },
    rowLabels: { attribute: false },
    scale: { attribute: false },
    bands: { attribute: false },
    blocked: { attribute: false },
    highlight: { attribute: false },
    cell: { type: Number },
    label: { type: String },
    fit: { type: Boolean },
  };
  declare values: ArrayLike<number>;
  declare rows: number;
  declare cols: number;
  declare rowLabels: string[];
  declare scale: ColorScale;
  declare bands: ColumnBand[];
  /** (rows * cols), 1 = blocked. */
  declare blocked: Uint8Array | undefined;
  /** The rows outlined. */
  declare highlight: number[];
  /** A cell's width in px (its height: at least MIN_ROW). */
  declare cell: number;
  /** What the picture shows, for screen readers. */
  declare label: string;
  /**
   * Narrow the columns (down to MIN_FIT_CELL px, never the row labels) to fit the box, e.g. E = 64 columns on a phone
   * (the default; false: always `cell` px, scrolling in a narrow box).
   */
  declare fit: boolean;
  // The host's width is the grid column's (or the page's), never the drawing's: choosing the cell from it cannot
  // feed back on itself.
  readonly #width = new HostWidth(this);

  constructor() {
    super();
    this.values = new Float32Array(0);
    this.rows = 0;
    this.cols = 0;
    this.rowLabels = [];
    this.bands = [];
    this.highlight = [];
    this.cell = 12;
    this.label = '';
    this.fit = true;
  }

  /** A cell's width: `cell`, or with `fit` as much of it as the box leaves (the box scrolls below MIN_FIT_CELL). */
  #cellWidth(): number {
    if (!this.fit || this.#width.value <= 0 || this.cols === 0) return this.cell;
    return Math.max(MIN_FIT_CELL, Math.min(this.cell, Math.floor((this.#width.value - LEFT - 2) / this.cols)));
  }

  /**
   * The host is as wide as the matrix at `cell` px (--natural-width), or the box if that is narrower: measured, that
   * gives the columns their width, and it never depends on the width they were last drawn at.
   */
  override willUpdate() {
    const natural = LEFT + this.cols * this.cell + 2;
    this.style.setProperty('--natural-width', `${natural}px`);
  }

  static override styles = css`
    :host { display: block; width: var(--natural-width, auto); max-width: 100%; overflow-x: auto; }
    svg { display: block; }
    /* The theme's ink on screen (an SVG copied off the page keeps its light attributes): the row labels, drawn
       without a fill, and the rules between column bands, in the paper's colour. */
    svg > text:not([fill]) { fill: var(--ap-text); }
    svg > line { stroke: var(--ap-bg); }
  `;

  override render() {
    const c = this.#cellWidth(),
      h = Math.max(MIN_ROW, this.cell);
    const top = this.bands.length ? BAND + 2 : 2;
    const width = LEFT + this.cols * c + 2,
      height = top + this.rows * h + 2;
    const cells = [];
    for (let i = 0; i < this.rows; i++)
      for (let j = 0; j < this.cols; j++) {
        const blocked = this.blocked?.[i * this.cols + j] === 1;
        cells.push(svg`<rect x=${LEFT + j * c} y=${top + i * h} width=${c} height=${h}
          fill=${blocked ? 'url(#hatch)' : this.scale.color(this.values[i * this.cols + j])}></rect>`);
      }
    return html`<svg xmlns="http://www.w3.org/2000/svg" width=${width} height=${height} viewBox="0 0 ${width} ${height}"
      role="img" aria-label=${this.label} font-family="system-ui, sans-serif">
      <defs><pattern id="hatch" width="5" height="5" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
        <rect width="5" height="5" fill=${BLOCKED_FILL}></rect><line x1="0" y1="0" x2="0" y2="5" stroke="#666" stroke-width="1.5"></line>
      </pattern></defs>
      ${this.bands.map(
        (
          b,
        ) => svg`<rect x=${LEFT + b.from * c} y="0" width=${(b.to - b.from) * c} height=${BAND - 2} fill=${b.color}></rect>
        <text x=${LEFT + ((b.from + b.to) / 2) * c} y=${BAND - 5} font-size="10" fill="#fff" text-anchor="middle">${b.label}</text>`,
      )}
      ${Array.from(
        { length: this.rows },
        (_, i) => svg`<text x=${LEFT - 4} y=${top + i * h + h / 2 + 4} font-size="11" text-anchor="end"
        font-weight=${this.highlight.includes(i) ? '700' : '400'}><title>${tokenLabel(this.rowLabels[i] ?? '')}</title>${shorten(this.rowLabels[i] ?? '')}</text>`,
      )}
      ${cells}
      ${this.bands.slice(1).map((b) => svg`<line x1=${LEFT + b.from * c} x2=${LEFT + b.from * c} y1="0" y2=${height} stroke="#fff" stroke-width="2"></line>`)}
      ${this.highlight
        .filter((r) => r >= 0 && r < this.rows)
        .map(
          (r) => svg`<rect x=${LEFT - 1} y=${top + r * h} width=${this.cols * c + 2}
        height=${h} fill="none" stroke="#e8175d" stroke-width="2"></rect>`,
        )}
    </svg>`;
  }
}

defineOnce('ap-matrix', Matrix);

declare global {
  interface HTMLElementTagNameMap {
    'ap-matrix': Matrix;
  }
}
