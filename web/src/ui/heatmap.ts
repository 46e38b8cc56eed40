// <ap-heatmap>: one (queries x keys) matrix as an SVG heatmap with token labels
// on both axes, hatched blocked cells, a tooltip for the hovered or focused cell
// (arrow keys move it), and the same numbers as a table for screen readers. A large one
// (more than RASTER_CELLS, or `image`: one of a view's many) draws its cells as one image, so
// a long text stays quick.
// Data in (properties), events out ('cell-select'); no global state. The drawing itself
// is heatmapSvg(), a function of a HeatmapSpec, so that an export draws the same picture
// from the same data (heatmapPicture) instead of copying it off the screen.
import { LitElement, css, html, nothing, render, svg } from 'lit';
import { fixed, formatValue } from '../model/words.js';
import { tokenLabel } from '../model/token-label.js';
import { BLOCKED_FILL, type ColorScale, opaqueRgb, textColorOn } from './colors.js';
import {
  AXIS_FONT,
  LABEL_FONT,
  NUMBER_FONT,
  RASTER_CELLS,
  fittedLayout,
  heatmapLayout,
  shownLabel,
  type AxisLabel,
  type HeatmapLayout,
} from './heatmap-layout.js';
import { placeTip } from './tip-placement.js';
import { PICTURE_INK } from './tokens.js';
import { HostWidth } from './host-width.js';
import { defineOnce } from './define.js';

export type { AxisLabel } from './heatmap-layout.js';
export { MIN_BARE_CELL, MIN_CELL, fitColumns, gridWidth } from './heatmap-layout.js';

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
  /** Draw the cells as one image even at or below RASTER_CELLS (one of a view's many heatmaps: drawsAsImage). */
  image?: boolean;
}

/** The element's part of the drawing: the marked cell and the handlers (an exported picture has none). */
interface Interaction {
  active: { row: number; col: number } | null;
  select(row: number, col: number): void;
  onKey(event: KeyboardEvent): void;
  onLeave(): void;
  onFocus(): void;
}

function isBlocked(spec: HeatmapSpec, i: number, j: number): boolean {
  return !!spec.blocked && spec.blocked[i * spec.cols + j] === 1;
}

/** A cell's number: whole from 10 up, else 2 decimals, with its leading digit and never a signed zero (words.ts). */
const cellNumber = (value: number) => fixed(value, Math.abs(value) >= 10 ? 0 : 2);
/** About the width of one character of a cell's number, in NUMBER_FONT (digits are 0.56 em in the UI sans fonts). */
const NUMBER_CHAR_EM = 0.56;
/** A number wider than its cell ('-0.25' in an 18 px cell) is squeezed to the cell rather than run into the next one. */
const squeezeTo = (text: string, column: number) =>
  text.length * NUMBER_CHAR_EM * NUMBER_FONT > column - 3 ? column - 3 : nothing;

/** A raster's picture, kept per values array while its colours stay the same (a hover redraws, the picture does not change). */
const rasters = new WeakMap<
  Float32Array,
  { scale: ColorScale; rowScales?: ColorScale[]; blocked?: Uint8Array; rows: number; cols: number; href: string }
>();

/** The cells as a PNG, one pixel a cell (blocked cells plain grey: a hatch does not read at a pixel), as a data URL. */
function rasterHref(spec: HeatmapSpec): string {
  const kept = rasters.get(spec.values);
  if (
    kept &&
    kept.scale === spec.scale &&
    kept.rowScales === spec.rowScales &&
    kept.blocked === spec.blocked &&
    kept.rows === spec.rows &&
    kept.cols === spec.cols
  )
    return kept.href;
  const canvas = document.createElement('canvas');
  canvas.width = spec.cols;
  canvas.height = spec.rows;
  const context = canvas.getContext('2d')!;
  // One ImageData, not a fillStyle and a fillRect per cell: 16 heads of 260 x 260 cells took over a
  // second of the main thread that way (tests/e2e/pretrained-modern.test.mjs, a 2-vCPU Xeon).
  const image = context.createImageData(spec.cols, spec.rows);
  const px = image.data;
  let rgb = 0; // as fillStyle: black at first, kept where a colour does not parse (a scale's NaN gives undefined)
  for (let i = 0; i < spec.rows; i++)
    for (let j = 0; j < spec.cols; j++) {
      const k = i * spec.cols + j;
      const parsed = opaqueRgb(
        isBlocked(spec, i, j) ? BLOCKED_FILL : (spec.rowScales?.[i] ?? spec.scale).color(spec.values[k]),
      );
      if (parsed !== null) rgb = parsed;
      px[4 * k] = rgb >>> 16;
      px[4 * k + 1] = (rgb >>> 8) & 255;
      px[4 * k + 2] = rgb & 255;
      px[4 * k + 3] = 255;
    }
  context.putImageData(image, 0, 0);
  const href = canvas.toDataURL('image/png');
  rasters.set(spec.values, { ...spec, href });
  return href;
}

/** A large heatmap's cells: one image; the pointer's cell is found from where it is. */
function rasterCells(spec: HeatmapSpec, at: HeatmapLayout, select: Interaction['select'] | undefined) {
  const { cell, column, left, top } = at;
  const move =
    select &&
    ((event: MouseEvent) => {
      const box = (event.currentTarget as SVGImageElement).getBoundingClientRect();
      const i = Math.floor((event.clientY - box.top) / cell),
        j = Math.floor((event.clientX - box.left) / column);
      if (i >= 0 && i < spec.rows && j >= 0 && j < spec.cols) select(i, j);
    });
  return svg`<image href=${rasterHref(spec)} x=${left} y=${top} width=${spec.cols * column} height=${spec.rows * cell}
    preserveAspectRatio="none" style="image-rendering: pixelated" data-cells=${spec.rows * spec.cols}
    @mousemove=${move}></image>`;
}

function cells(spec: HeatmapSpec, at: HeatmapLayout, select: Interaction['select'] | undefined) {
  if (spec.image || spec.rows * spec.cols > RASTER_CELLS) return [rasterCells(spec, at, select)];
  const { cell, column, left, top } = at;
  // Narrow columns (an FFN's hidden features) without the cells' outline, which would cover half of each.
  const outline = column >= 8 ? 1 : 0;
  const out = [];
  for (let i = 0; i < spec.rows; i++)
    for (let j = 0; j < spec.cols; j++) {
      const x = left + j * column,
        y = top + i * cell;
      const value = spec.values[i * spec.cols + j];
      const enter = select && (() => select(i, j));
      if (isBlocked(spec, i, j)) {
        out.push(svg`<rect x=${x} y=${y} width=${column} height=${cell} fill="url(#blocked)" stroke="#fff" class="pic-rim" stroke-width=${outline}
          data-row=${i} data-col=${j} data-blocked="1" @mouseenter=${enter}></rect>`);
        continue;
      }
      const fill = (spec.rowScales?.[i] ?? spec.scale).color(value);
      out.push(svg`<rect x=${x} y=${y} width=${column} height=${cell} fill=${fill} stroke="#fff" class="pic-rim" stroke-width=${outline}
        data-row=${i} data-col=${j} data-value=${value} @mouseenter=${enter}></rect>`);
      if (at.numbers) {
        const text = cellNumber(value);
        const squeeze = squeezeTo(text, column);
        out.push(svg`<text x=${x + cell / 2} y=${y + cell / 2 + NUMBER_FONT * 0.36} font-size=${NUMBER_FONT} text-anchor="middle"
          textLength=${squeeze} lengthAdjust="spacingAndGlyphs" fill=${textColorOn(fill)} pointer-events="none">${text}</text>`);
      }
    }
  return out;
}

function axisLabels(spec: HeatmapSpec, at: HeatmapLayout) {
  const { cell, column, left, top } = at;
  const labels = [];
  for (let i = 0; i < spec.rows; i++) {
    const l = spec.rowLabels[i] ?? { label: '', pad: true };
    labels.push(svg`<text x=${left - 6} y=${top + i * cell + cell / 2 + LABEL_FONT * 0.35} text-anchor="end" font-size=${LABEL_FONT}
      fill=${l.pad ? '#666' : '#111'} class=${l.pad ? 'pic-ink-muted' : 'pic-ink'} font-style=${l.pad ? 'italic' : 'normal'} data-row-label=${i}><title>${tokenLabel(l.label)}</title>${shownLabel(l.label)}</text>`);
  }
  for (let j = 0; j < spec.cols; j += at.keyStride) {
    const l = spec.colLabels[j] ?? { label: '', pad: true };
    const x = left + j * column + column / 2 + 4,
      y = top - 6;
    labels.push(svg`<text transform=${`translate(${x} ${y}) rotate(-55)`} font-size=${LABEL_FONT}
      fill=${l.pad ? '#666' : '#111'} class=${l.pad ? 'pic-ink-muted' : 'pic-ink'} font-style=${l.pad ? 'italic' : 'normal'} data-col-label=${j}><title>${tokenLabel(l.label)}</title>${shownLabel(l.label)}</text>`);
  }
  return labels;
}

/**
 * The heatmap as an SVG template, drawn at `at` (heatmapLayout: CELL px cells for a picture, the element's fitted
 * size on screen): with `on`, the element's (the active cell marked, its handlers bound), else a picture's.
 */
export function heatmapSvg(spec: HeatmapSpec, on: Interaction | null = null, at: HeatmapLayout = heatmapLayout(spec)) {
  const { width, height, cell, column, left, top } = at;
  const active = on?.active && on.active.row < spec.rows && on.active.col < spec.cols ? on.active : null;
  return html`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width=${width} height=${height}
          role="img" aria-label=${`${spec.caption}: heatmap of ${spec.rows} ${spec.rowAxis} by ${spec.cols} ${spec.colAxis} ${spec.colUnit ?? 'tokens'}; a table follows`}
          tabindex="0" font-family="system-ui, sans-serif" data-cell=${cell} data-column=${column} @keydown=${on?.onKey} @mouseleave=${on?.onLeave}
          @focus=${on?.onFocus} @blur=${on?.onLeave}>
          <defs><pattern id="blocked" width="6" height="6" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">
            <rect width="6" height="6" fill=${BLOCKED_FILL}></rect><line x1="0" y1="0" x2="0" y2="6" stroke="#555" stroke-width="2"></line>
          </pattern></defs>
          <rect class="pic-paper" width=${width} height=${height} fill="#fff"></rect>
          <text x="2" y=${AXIS_FONT + 2} font-size=${AXIS_FONT} fill="#555" class="pic-ink-muted" data-axis="row">${spec.rowAxis} ↓</text>
          <text x=${at.colAxisX} y=${AXIS_FONT + 2} font-size=${AXIS_FONT} fill="#555" class="pic-ink-muted" data-axis="col">${spec.colAxis} →</text>
          ${axisLabels(spec, at)}
          ${cells(spec, at, on?.select)}
          ${
            active
              ? svg`<rect x=${left + active.col * column} y=${top + active.row * cell} width=${column} height=${cell}
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
    image: { type: Boolean },
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
  declare image: boolean;
  declare active: { row: number; col: number } | null;
  // The host's width is the grid column's (or the page's), never the drawing's: choosing the cell from it cannot
  // feed back on itself.
  readonly #width = new HostWidth(this);
  /** The box height the drawing was laid out for: before the first render there is no box to read it from. */
  #laidOutFor = NaN;

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
    this.image = false;
    this.active = null;
  }

  /**
   * The drawing for the measured width: the largest cell that fits the box both ways; a drawing too tall even at
   * its smallest cell (minCell) scrolls down, so its width leaves room for the vertical scrollbar.
   */
  #layout(): HeatmapLayout {
    const maxHeight = this.#maxHeight();
    this.#laidOutFor = maxHeight;
    const layout = fittedLayout(this, this.#width.value, maxHeight);
    if (this.#width.value > 0 && layout.height > maxHeight)
      return fittedLayout(this, this.#width.value - scrollbarWidth(), maxHeight);
    return layout;
  }

  /** The scroll box's largest height, px (its CSS max-height, resolved). */
  #maxHeight(): number {
    const plot = this.renderRoot.querySelector<HTMLElement>('.plot');
    const px = plot ? parseFloat(getComputedStyle(plot).maxHeight) : NaN;
    return Number.isFinite(px) ? px : 24 * 16;
  }

  static override styles = [
    PICTURE_INK,
    css`
    :host { display: block; position: relative; min-width: 0; }
    figure { margin: 0; }
    figcaption { font: 600 0.9rem system-ui, sans-serif; margin: 0 0 0.25rem; }
    /* The scroll box: the drawing takes cells as large as the host's width allows (heatmap-layout.ts), and only a
       drawing that does not fit even at its smallest cell (minCell) scrolls here (both ways). Its height has a floor in rem: in an iframe
       that grows to its content (embed.html), a bare vh height would feed back on itself. */
    .plot { overflow: auto; max-height: max(24rem, min(48rem, 85vh)); overscroll-behavior: contain; }
    .plot:focus-visible { outline: 3px solid var(--ap-focus); }
    .canvas { position: relative; width: max-content; }
    svg { display: block; outline: none; }
    svg:focus-visible { outline: 3px solid var(--ap-focus); outline-offset: 2px; }
    .tip {
      position: absolute; z-index: 2; pointer-events: none; width: max-content; max-width: 20rem;
      background: light-dark(#111, #f1f3f5); color: light-dark(#fff, #111); font: 0.78rem/1.35 ui-monospace, monospace;
      padding: 0.4rem 0.55rem; border-radius: 4px; white-space: pre-wrap; box-shadow: 0 2px 8px #0005;
    }
    .sr-only {
      position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap;
    }
  `,
  ];

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
    if (this.image || this.rows * this.cols > RASTER_CELLS)
      return html`<p class="sr-only">${this.caption}: ${this.rows} by ${this.cols} cells, too many for a table; focus the
        drawing and move with the arrow keys to hear each cell.</p>`;
    const header = this.colLabels.map((l) => html`<th scope="col">${tokenLabel(l.label)}</th>`);
    const body = Array.from(
      { length: this.rows },
      (_, i) => html`<tr>
      <th scope="row">${tokenLabel(this.rowLabels[i]?.label ?? '')}</th>
      ${Array.from({ length: this.cols }, (_, j) => html`<td>${this.#isBlocked(i, j) ? 'blocked' : formatValue(this.values[i * this.cols + j])}</td>`)}
    </tr>`,
    );
    return html`<div class="sr-only"><table><caption>${this.caption}: rows are ${this.rowAxis} tokens, columns are ${this.colAxis} ${this.colUnit}</caption>
      <thead><tr><th scope="col">${this.rowAxis} \\ ${this.colAxis}</th>${header}</tr></thead><tbody>${body}</tbody></table></div>`;
  }

  #renderTip(at: HeatmapLayout) {
    if (!this.active || !this.describeCell || this.active.row >= this.rows || this.active.col >= this.cols)
      return nothing;
    const { row, col } = this.active;
    // Placed once drawn (updated()), when its size is known: beside the cell, inside the visible part of the plot.
    return html`<div class="tip" role="status" style="left:0;top:0;visibility:hidden"
      data-left=${at.left} data-top=${at.top}>${this.describeCell(row, col).join('\n')}</div>`;
  }

  override updated() {
    // The first layout guessed the box's height (no .plot yet); when the real one differs, a drawing taller than
    // it gets a vertical scrollbar that narrows the box it was fitted to: lay it out again for the real height.
    if (this.#maxHeight() !== this.#laidOutFor) this.requestUpdate();
    if (!this.active) return; // no tip: nothing to place (the common case, e.g. while a model trains)
    const tip = this.renderRoot.querySelector<HTMLElement>('.tip');
    const plot = this.renderRoot.querySelector<HTMLElement>('.plot');
    const svg = this.renderRoot.querySelector('svg');
    if (!tip || !plot || !svg || !this.active) return;
    const cell = Number(svg.dataset.cell),
      column = Number(svg.dataset.column),
      left = Number(tip.dataset.left),
      top = Number(tip.dataset.top);
    const box = {
      left: left + this.active.col * column,
      top: top + this.active.row * cell,
      width: column,
      height: cell,
    };
    // Its width does not depend on where it goes (max-content), at most the visible box's: it is measured once, here.
    tip.style.maxWidth = `${Math.max(120, Math.min(320, plot.clientWidth - 8))}px`;
    const area = { left: plot.scrollLeft, top: plot.scrollTop, width: plot.clientWidth, height: plot.clientHeight };
    const place = placeTip(box, { width: tip.offsetWidth, height: tip.offsetHeight }, area);
    Object.assign(tip.style, { left: `${place.left}px`, top: `${place.top}px`, visibility: 'visible' });
  }

  override render() {
    const at = this.#layout();
    const on = {
      active: this.active,
      select: this.#cellEnter,
      onKey: this.#keyDown,
      onLeave: this.#leave,
      onFocus: this.#focus,
    };
    return html`<figure>
      ${this.caption ? html`<figcaption>${this.caption}</figcaption>` : nothing}
      <div class="plot" data-cell=${at.cell}><div class="canvas">
        ${heatmapSvg(this, on, at)}
        ${this.#renderTip(at)}
      </div></div>
      ${this.#renderTable()}
    </figure>`;
  }
}

let scrollbar: number | undefined;

/** A classic scrollbar's width on this page, px (0 where scrollbars overlay the content). */
function scrollbarWidth(): number {
  if (scrollbar !== undefined) return scrollbar;
  const probe = document.createElement('div');
  probe.style.cssText = 'position:absolute;top:-999px;width:100px;height:100px;overflow:scroll';
  document.body.append(probe);
  scrollbar = probe.offsetWidth - probe.clientWidth;
  probe.remove();
  return scrollbar;
}

defineOnce('ap-heatmap', Heatmap);

declare global {
  interface HTMLElementTagNameMap {
    'ap-heatmap': Heatmap;
  }
}
