// <ap-heatmap>: one (queries x keys) matrix as an SVG heatmap with token labels
// on both axes, hatched blocked cells, a tooltip for the hovered or focused cell
// (arrow keys move it), and the same numbers as a table for screen readers.
// Data in (properties), events out ('cell-select'); no global state. The drawing itself
// is heatmapSvg(), a function of a HeatmapSpec, so that an export draws the same picture
// from the same data (heatmapPicture) instead of copying it off the screen.
import { LitElement, css, html, nothing, render, svg } from 'lit';
import { formatValue } from '../model/words.js';
import { BLOCKED_FILL, type ColorScale, textColorOn } from './colors.js';
import { placeTip } from './tip-placement.js';

export interface AxisLabel {
  label: string;
  pad: boolean;
}

const CELL = 28;
const LEFT = 92;
const TOP = 78;
const MAX_LABEL = 11;
/**
 * The smallest the drawing may be scaled to: cells of 21 px and 9 px labels. A wide
 * matrix (a long text) keeps this size and its box scrolls instead of shrinking it.
 */
export const MIN_SCALE = 0.75;
export const MIN_CELL_PX = CELL * MIN_SCALE;

function shorten(text: string): string {
  const points = Array.from(text);
  return points.length > MAX_LABEL ? points.slice(0, MAX_LABEL - 1).join('') + '…' : text;
}

/** What one heatmap shows: the drawing's data, as the element's properties of the same names. */
export interface HeatmapSpec {
  values: Float32Array;
  rows: number;
  cols: number;
  rowLabels: readonly AxisLabel[];
  colLabels: readonly AxisLabel[];
  /** (rows * cols), 1 = blocked. */
  blocked?: Uint8Array;
  scale: ColorScale;
  /** One scale per row (each row fitted to its own values), in place of `scale`. */
  rowScales?: ColorScale[];
  caption: string;
  rowAxis: string;
  colAxis: string;
  /** What a column is, for screen readers: 'tokens' (default) or e.g. 'features'. */
  colUnit?: string;
  showNumbers?: boolean;
}

/** The element's part of the drawing: the marked cell and the handlers (an exported picture has none). */
interface Interaction {
  active: { row: number; col: number } | null;
  select(row: number, col: number): void;
  onKey(event: KeyboardEvent): void;
  onLeave(): void;
  onFocus(): void;
}

/** The drawing's size in px: the cells, plus room for the labels. */
function heatmapSize(spec: HeatmapSpec): { width: number; height: number } {
  return { width: LEFT + spec.cols * CELL + 56, height: TOP + spec.rows * CELL + 4 };
}

function isBlocked(spec: HeatmapSpec, i: number, j: number): boolean {
  return !!spec.blocked && spec.blocked[i * spec.cols + j] === 1;
}

function cells(spec: HeatmapSpec, select: Interaction['select'] | undefined) {
  const out = [];
  for (let i = 0; i < spec.rows; i++)
    for (let j = 0; j < spec.cols; j++) {
      const x = LEFT + j * CELL,
        y = TOP + i * CELL;
      const value = spec.values[i * spec.cols + j];
      const enter = select && (() => select(i, j));
      if (isBlocked(spec, i, j)) {
        out.push(svg`<rect x=${x} y=${y} width=${CELL} height=${CELL} fill="url(#blocked)" stroke="#fff" stroke-width="1"
          data-row=${i} data-col=${j} data-blocked="1" @mouseenter=${enter}></rect>`);
        continue;
      }
      const fill = (spec.rowScales?.[i] ?? spec.scale).color(value);
      out.push(svg`<rect x=${x} y=${y} width=${CELL} height=${CELL} fill=${fill} stroke="#fff" stroke-width="1"
        data-row=${i} data-col=${j} data-value=${value} @mouseenter=${enter}></rect>`);
      if (spec.showNumbers)
        out.push(svg`<text x=${x + CELL / 2} y=${y + CELL / 2 + 3.5} font-size="9" text-anchor="middle"
          fill=${textColorOn(fill)} pointer-events="none">${Math.abs(value) >= 10 ? value.toFixed(0) : value.toFixed(2).replace(/^(-?)0\./, '$1.')}</text>`);
    }
  return out;
}

function axisLabels(spec: HeatmapSpec) {
  const labels = [];
  for (let i = 0; i < spec.rows; i++) {
    const l = spec.rowLabels[i] ?? { label: '', pad: true };
    labels.push(svg`<text x=${LEFT - 6} y=${TOP + i * CELL + CELL / 2 + 4} text-anchor="end" font-size="12"
      fill=${l.pad ? '#888' : '#111'} font-style=${l.pad ? 'italic' : 'normal'}><title>${l.label}</title>${shorten(l.label)}</text>`);
  }
  for (let j = 0; j < spec.cols; j++) {
    const l = spec.colLabels[j] ?? { label: '', pad: true };
    const x = LEFT + j * CELL + CELL / 2 + 4,
      y = TOP - 6;
    labels.push(svg`<text transform=${`translate(${x} ${y}) rotate(-55)`} font-size="12"
      fill=${l.pad ? '#888' : '#111'} font-style=${l.pad ? 'italic' : 'normal'}><title>${l.label}</title>${shorten(l.label)}</text>`);
  }
  return labels;
}

/** The heatmap as an SVG template: with `on`, the element's (the active cell marked, its handlers bound), else a picture's. */
export function heatmapSvg(spec: HeatmapSpec, on: Interaction | null = null) {
  const { width, height } = heatmapSize(spec);
  const active = on?.active && on.active.row < spec.rows && on.active.col < spec.cols ? on.active : null;
  return html`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width=${width} height=${height}
          role="img" aria-label=${`${spec.caption}: heatmap of ${spec.rows} ${spec.rowAxis} by ${spec.cols} ${spec.colAxis} ${spec.colUnit ?? 'tokens'}; a table follows`}
          tabindex="0" font-family="system-ui, sans-serif" @keydown=${on?.onKey} @mouseleave=${on?.onLeave}
          @focus=${on?.onFocus} @blur=${on?.onLeave}>
          <defs><pattern id="blocked" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width="6" height="6" fill=${BLOCKED_FILL}></rect><line x1="0" y1="0" x2="0" y2="6" stroke="#555" stroke-width="2"></line>
          </pattern></defs>
          <rect width=${width} height=${height} fill="#fff"></rect>
          <text x=${LEFT - 6} y="12" text-anchor="end" font-size="10" fill="#555">${spec.rowAxis} ↓</text>
          <text x=${LEFT} y="12" font-size="10" fill="#555">${spec.colAxis} →</text>
          ${axisLabels(spec)}
          ${cells(spec, on?.select)}
          ${
            active
              ? svg`<rect x=${LEFT + active.col * CELL} y=${TOP + active.row * CELL} width=${CELL} height=${CELL}
            fill="none" stroke="#e8175d" stroke-width="3" pointer-events="none"></rect>`
              : nothing
          }
        </svg>`;
}

/** The heatmap as a standalone SVG element (not on the page), drawn from `spec` as <ap-heatmap> draws it, for exports. */
export function heatmapPicture(spec: HeatmapSpec): SVGSVGElement {
  const box = document.createElement('div');
  render(heatmapSvg(spec), box);
  return box.querySelector('svg')!;
}

export class Heatmap extends LitElement {
  static override properties = {
    values: { attribute: false },
    rows: { type: Number },
    cols: { type: Number },
    rowLabels: { attribute: false },
    colLabels: { attribute: false },
    blocked: { attribute: false },
    scale: { attribute: false },
    rowScales: { attribute: false },
    caption: { type: String },
    rowAxis: { type: String, attribute: 'row-axis' },
    colAxis: { type: String, attribute: 'col-axis' },
    colUnit: { type: String, attribute: 'col-unit' },
    describeCell: { attribute: false },
    showNumbers: { type: Boolean, attribute: 'show-numbers' },
    active: { state: true },
  };

  declare values: Float32Array;
  declare rows: number;
  declare cols: number;
  declare rowLabels: AxisLabel[];
  declare colLabels: AxisLabel[];
  /** (rows * cols), 1 = blocked. */
  declare blocked: Uint8Array | undefined;
  declare scale: ColorScale;
  /** One scale per row (each row fitted to its own values), in place of `scale`; the legend says so. */
  declare rowScales: ColorScale[] | undefined;
  declare caption: string;
  declare rowAxis: string;
  declare colAxis: string;
  /** What a column is, for screen readers: 'tokens' (default) or e.g. 'features'. */
  declare colUnit: string;
  /** Lines of text explaining one cell: value, row sum, how it was computed. */
  declare describeCell: ((row: number, col: number) => string[]) | undefined;
  declare showNumbers: boolean;
  declare active: { row: number; col: number } | null;

  constructor() {
    super();
    this.values = new Float32Array(0);
    this.rows = 0;
    this.cols = 0;
    this.rowLabels = [];
    this.colLabels = [];
    this.caption = '';
    this.rowAxis = 'query';
    this.colAxis = 'key';
    this.colUnit = 'tokens';
    this.showNumbers = false;
    this.active = null;
  }

  static override styles = css`
    :host { display: block; position: relative; min-width: 0; }
    figure { margin: 0; }
    figcaption { font: 600 0.9rem system-ui, sans-serif; margin: 0 0 0.25rem; }
    /* The scroll box: a long text scrolls here (both ways) rather than shrinking below MIN_SCALE. Its height has a
       floor in rem: in an iframe that grows to its content (embed.html), a bare vh height would feed back on itself. */
    .plot { overflow: auto; max-height: max(24rem, min(48rem, 85vh)); overscroll-behavior: contain; }
    .plot:focus-visible { outline: 3px solid #1a73e8; }
    .canvas { position: relative; }
    svg { width: 100%; height: auto; display: block; outline: none; }
    svg:focus-visible { outline: 3px solid #1a73e8; outline-offset: 2px; }
    .tip {
      position: absolute; z-index: 2; pointer-events: none; max-width: 20rem;
      background: #111; color: #fff; font: 0.78rem/1.35 ui-monospace, monospace;
      padding: 0.4rem 0.55rem; border-radius: 4px; white-space: pre-wrap; box-shadow: 0 2px 8px #0005;
    }
    .sr-only {
      position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap;
    }
  `;

  #isBlocked(i: number, j: number): boolean {
    return !!this.blocked && this.blocked[i * this.cols + j] === 1;
  }

  #onKey(event: KeyboardEvent) {
    const moves: Record<string, [number, number]> = {
      ArrowUp: [-1, 0],
      ArrowDown: [1, 0],
      ArrowLeft: [0, -1],
      ArrowRight: [0, 1],
    };
    if (event.key === 'Escape') {
      this.active = null;
      return;
    }
    const move = moves[event.key];
    if (!move || this.rows === 0) return;
    event.preventDefault();
    const { row, col } = this.active ?? { row: 0, col: 0 };
    const next = this.active
      ? {
          row: Math.min(this.rows - 1, Math.max(0, row + move[0])),
          col: Math.min(this.cols - 1, Math.max(0, col + move[1])),
        }
      : { row: 0, col: 0 };
    this.#select(next.row, next.col);
  }

  #cellEnter = (row: number, col: number) => this.#select(row, col);
  #keyDown = (event: KeyboardEvent) => this.#onKey(event);
  #leave = () => {
    this.active = null;
  };
  #focus = () => {
    if (!this.active && this.rows > 0) this.#select(0, 0);
  };

  #select(row: number, col: number) {
    this.active = { row, col };
    this.dispatchEvent(new CustomEvent('cell-select', { detail: { row, col }, bubbles: true, composed: true }));
  }

  #renderTable() {
    const header = this.colLabels.map((l) => html`<th scope="col">${l.label}</th>`);
    const body = Array.from(
      { length: this.rows },
      (_, i) => html`<tr>
      <th scope="row">${this.rowLabels[i]?.label ?? ''}</th>
      ${Array.from({ length: this.cols }, (_, j) => html`<td>${this.#isBlocked(i, j) ? 'blocked' : formatValue(this.values[i * this.cols + j])}</td>`)}
    </tr>`,
    );
    return html`<div class="sr-only"><table><caption>${this.caption}: rows are ${this.rowAxis} tokens, columns are ${this.colAxis} ${this.colUnit}</caption>
      <thead><tr><th scope="col">${this.rowAxis} \\ ${this.colAxis}</th>${header}</tr></thead><tbody>${body}</tbody></table></div>`;
  }

  #renderTip(width: number) {
    if (!this.active || !this.describeCell || this.active.row >= this.rows || this.active.col >= this.cols)
      return nothing;
    const { row, col } = this.active;
    // Placed once drawn (updated()), when its size is known: beside the cell, inside the visible part of the plot.
    return html`<div class="tip" role="status" style="left:0;top:0;visibility:hidden" data-width=${width}>${this.describeCell(row, col).join('\n')}</div>`;
  }

  override updated() {
    if (!this.active) return; // no tip: nothing to place (the common case, e.g. while a model trains)
    const tip = this.renderRoot.querySelector<HTMLElement>('.tip');
    const plot = this.renderRoot.querySelector<HTMLElement>('.plot');
    const svg = this.renderRoot.querySelector('svg');
    if (!tip || !plot || !svg || !this.active) return;
    const scale = svg.clientWidth / Number(tip.dataset.width);
    const cell = {
      left: (LEFT + this.active.col * CELL) * scale,
      top: (TOP + this.active.row * CELL) * scale,
      width: CELL * scale,
      height: CELL * scale,
    };
    const area = { left: plot.scrollLeft, top: plot.scrollTop, width: plot.clientWidth, height: plot.clientHeight };
    const { left, top } = placeTip(cell, { width: tip.offsetWidth, height: tip.offsetHeight }, area);
    Object.assign(tip.style, { left: `${left}px`, top: `${top}px`, visibility: 'visible' });
  }

  override render() {
    const { width } = heatmapSize(this);
    return html`<figure>
      ${this.caption ? html`<figcaption>${this.caption}</figcaption>` : nothing}
      <div class="plot"><div class="canvas" style=${`min-width:${Math.ceil(width * MIN_SCALE)}px`}>
        ${heatmapSvg(this, { active: this.active, select: this.#cellEnter, onKey: this.#keyDown, onLeave: this.#leave, onFocus: this.#focus })}
        ${this.#renderTip(width)}
      </div></div>
      ${this.#renderTable()}
    </figure>`;
  }
}

customElements.define('ap-heatmap', Heatmap);

declare global {
  interface HTMLElementTagNameMap {
    'ap-heatmap': Heatmap;
  }
}
