// Where a heatmap's parts go, for a given cell size: the row labels' column, the rotated key
// labels above, the axis names, the cells. Pure arithmetic on the labels' measured widths, so
// that the element (which picks the cell size that fits its box), the grids that hold
// several heatmaps (which pick how many columns fit) and the PNG/SVG exports agree, and so
// that it is tested in Node.
import { tokenLabel } from '../model/token-label.js';

/** The cell size a picture draws at (exports), and the first guess on screen before the box is measured. */
export const CELL = 28;
/** The largest cell on screen, where a box has room to spare (a short text in a wide column). */
export const MAX_CELL = 32;
/**
 * The smallest cell on screen: labels stay LABEL_FONT px (the key labels, rotated, just clear each other); a box too
 * narrow even for this scrolls.
 */
export const MIN_CELL = 18;
/**
 * The smallest cell of a drawing without numbers in its cells (a Values view's 64 features): its row labels still
 * read at LABEL_FONT px, and its key labels, too close to clear each other below MIN_CELL, name every keyStride-th
 * column (each cell's tooltip names it).
 */
export const MIN_BARE_CELL = 14;
/**
 * The narrowest column of a drawing without numbers (an FFN's 256 hidden features): its rows stay MIN_BARE_CELL tall
 * (the token labels read), its columns narrow down to this before the box scrolls.
 */
export const MIN_COLUMN = 3;
/** Label strides that count in round steps (every 2nd, 5th, 8th, … key), the smallest that keeps labels apart is used. */
const STRIDES = [1, 2, 4, 5, 8, 10, 16, 20, 25, 32, 50, 64, 100];
/** The cell a grid of heatmaps gives each: it takes fewer columns rather than draw them smaller. */
export const GRID_CELL = 22;
/** Cells below this size drop the numbers drawn in them (the tooltip still has them). */
export const NUMBER_CELL = 26;
export const LABEL_FONT = 12;
/** The axis names ("query ↓", "key →"). */
export const AXIS_FONT = 12;
export const NUMBER_FONT = 10;
/** Labels longer than this are cut with '…' (the full label is its tooltip and in the table). */
export const MAX_LABEL = 11;
/** The key labels' angle above the horizontal, degrees. */
const ANGLE = 55;
const COS = Math.cos((ANGLE * Math.PI) / 180),
  SIN = Math.sin((ANGLE * Math.PI) / 180);
/** A glyph box's extent above and below the baseline, in em (generous, so a label is never cut). */
const ASCENT = 0.95,
  DESCENT = 0.3;
const AXIS_ROW = AXIS_FONT + 8;
/** Where a key label starts, right of its column's centre (its rotated glyphs lean left). */
const KEY_NUDGE = 4;

export interface AxisLabel {
  label: string;
  pad: boolean;
}

/** A label as drawn: escaped (tokenLabel) and cut to MAX_LABEL characters. */
export function shownLabel(text: string): string {
  const points = Array.from(tokenLabel(text));
  return points.length > MAX_LABEL ? points.slice(0, MAX_LABEL - 1).join('') + '…' : points.join('');
}

/** Text width in px at a font size; italic for padding labels. */
export type Measure = (text: string, font: number, italic?: boolean) => number;

/** A width estimate without a browser: 0.62 em a character, 1 em a wide (CJK, emoji) one. */
export const estimateWidth: Measure = (text, font) => {
  let em = 0;
  for (const char of text)
    em +=
      /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\u{1f000}-\u{1faff}\u{20000}-\u{3fffd}]/u.test(
        char,
      )
        ? 1
        : 0.62;
  return em * font;
};

const widths = new Map<string, number>();
let context: CanvasRenderingContext2D | null | undefined;

/** Text width as the browser draws it (the SVG's own font), cached; the estimate where there is no canvas. */
export const measureText: Measure = (text, font, italic = false) => {
  const key = `${italic ? 'i' : ''}${font}|${text}`;
  const known = widths.get(key);
  if (known !== undefined) return known;
  if (context === undefined)
    context = typeof document === 'undefined' ? null : document.createElement('canvas').getContext('2d');
  let width = estimateWidth(text, font);
  if (context) {
    context.font = `${italic ? 'italic ' : ''}${font}px system-ui, sans-serif`;
    width = context.measureText(text).width;
  }
  widths.set(key, width);
  return width;
};

/** What the layout reads of a heatmap. */
export interface HeatmapShape {
  rows: number;
  cols: number;
  rowLabels: readonly AxisLabel[];
  colLabels: readonly AxisLabel[];
  rowAxis: string;
  colAxis: string;
  showNumbers?: boolean;
}

/** The parts' positions at one cell size, px. Cell (i, j) is at (left + j * column, top + i * cell). */
export interface HeatmapLayout {
  /** A cell's height, px (and its width, but where columns narrow below it). */
  cell: number;
  /** A cell's width, px: `cell`, or less where a drawing without numbers is too wide even at MIN_BARE_CELL. */
  column: number;
  left: number;
  top: number;
  width: number;
  height: number;
  /** Where the key axis's name starts (the query axis's starts at 2). */
  colAxisX: number;
  /** Numbers are drawn in the cells. */
  numbers: boolean;
  /** Every keyStride-th key column is labelled (1: all; more where cells are below MIN_CELL). */
  keyStride: number;
}

/**
 * Which key columns a drawing with `column` px columns labels: every one from MIN_CELL up, else every n-th (0, n,
 * 2n, …), n a round step at least MIN_CELL / column.
 */
export function keyStride(column: number): number {
  const least = Math.ceil(MIN_CELL / column);
  return STRIDES.find((n) => n >= least) ?? least;
}

/** The smallest cell a drawing fits down to before its box scrolls: MIN_CELL, or MIN_BARE_CELL without numbers. */
export function minCell(shape: Pick<HeatmapShape, 'showNumbers'>): number {
  return shape.showNumbers ? MIN_CELL : MIN_BARE_CELL;
}

const label = (labels: readonly AxisLabel[], i: number): AxisLabel => labels[i] ?? { label: '', pad: true };

/** The label widths, which do not depend on the cell size. */
function labelWidths(shape: HeatmapShape, measure: Measure) {
  const width = (l: AxisLabel) => measure(shownLabel(l.label), LABEL_FONT, l.pad);
  return {
    rows: Array.from({ length: shape.rows }, (_, i) => width(label(shape.rowLabels, i))),
    cols: Array.from({ length: shape.cols }, (_, j) => width(label(shape.colLabels, j))),
    rowAxis: measure(`${shape.rowAxis} ↓`, AXIS_FONT),
    colAxis: measure(`${shape.colAxis} →`, AXIS_FONT),
  };
}

type Widths = ReturnType<typeof labelWidths>;

function layoutAt(shape: HeatmapShape, cell: number, w: Widths, column = cell): HeatmapLayout {
  const left = Math.ceil(Math.max(4, ...w.rows) + 8);
  const stride = keyStride(column);
  const keys = w.cols.filter((_, j) => j % stride === 0);
  const longestKey = Math.max(0, ...keys);
  // A key label starts at its column's centre, 6 px above the cells, and rises at ANGLE: its top corner is
  // SIN * length + COS * ascent above that, its right corner COS * length + SIN * descent right of it.
  const top = Math.ceil(AXIS_ROW + 6 + SIN * longestKey + COS * ASCENT * LABEL_FONT);
  let right = left + shape.cols * column;
  w.cols.forEach((length, j) => {
    if (j % stride !== 0) return;
    right = Math.max(right, left + j * column + column / 2 + KEY_NUDGE + COS * length + SIN * DESCENT * LABEL_FONT);
  });
  const colAxisX = Math.ceil(Math.max(left, 2 + w.rowAxis + 14));
  return {
    cell,
    column,
    left,
    top,
    width: Math.ceil(Math.max(right, colAxisX + w.colAxis) + 3),
    height: top + shape.rows * cell + 4,
    colAxisX,
    numbers: !!shape.showNumbers && cell >= NUMBER_CELL,
    keyStride: stride,
  };
}

/** The layout at `cell` px (exports draw at CELL). */
export function heatmapLayout(shape: HeatmapShape, cell = CELL, measure: Measure = measureText): HeatmapLayout {
  return layoutAt(shape, cell, labelWidths(shape, measure));
}

/**
 * The layout for a box `available` px wide and at most `maxHeight` px tall: the largest cell from MAX_CELL down to
 * minCell (MIN_CELL, or MIN_BARE_CELL without numbers) whose drawing fits both ways; without numbers, then columns
 * narrower than the rows, down to MIN_COLUMN; else MIN_CELL (and the box scrolls). `available` 0 (not measured yet): CELL.
 */
export function fittedLayout(
  shape: HeatmapShape,
  available: number,
  maxHeight = Infinity,
  measure: Measure = measureText,
): HeatmapLayout {
  const w = labelWidths(shape, measure);
  if (!(available > 0)) return layoutAt(shape, CELL, w);
  const smallest = minCell(shape);
  for (let cell = MAX_CELL; cell >= smallest; cell--) {
    const layout = layoutAt(shape, cell, w);
    if (layout.width <= available && layout.height <= maxHeight) return layout;
  }
  // Too wide even at MIN_BARE_CELL: narrower columns, rows as they were (the token labels still read), where that
  // makes it fit (a drawing too tall for its box scrolls anyway).
  if (!shape.showNumbers && layoutAt(shape, smallest, w).height <= maxHeight)
    for (let column = smallest - 1; column >= MIN_COLUMN; column--) {
      const layout = layoutAt(shape, smallest, w, column);
      if (layout.width <= available) return layout;
    }
  // Nothing smaller fits: the box scrolls, and it may as well show MIN_CELL's cells with every key labelled.
  return layoutAt(shape, MIN_CELL, w);
}

/** The width a grid should give each of these heatmaps (cells of GRID_CELL px, or NUMBER_CELL with numbers). */
export function gridWidth(shape: HeatmapShape, measure: Measure = measureText): number {
  return heatmapLayout(shape, shape.showNumbers ? NUMBER_CELL : GRID_CELL, measure).width;
}

/**
 * A grid's columns for drawings at least `width` px wide: as many as fit, sharing the row (an unused column folds away); one (the whole row) when
 * not even one fits, and the drawing shrinks or scrolls in it. `count`: how many drawings the grid holds.
 */
export function fitColumns(width: number, count = 0): string {
  // Four drawings lay out 2 + 2, not 3 + 1: at most two columns (each over a third of the row).
  const min = count === 4 ? `max(${Math.ceil(width)}px, 34%)` : `${Math.ceil(width)}px`;
  return `repeat(auto-fit, minmax(min(100%, ${min}), 1fr))`;
}

/**
 * The most SVG cells one view draws at once (matrix cells, line-view lines, heatmap cells up to RASTER_CELLS): each is
 * an element with its handler, tens of µs apiece in Chromium (measured on this project's loaded 2-core CI machine:
 * 80,000 cells in 5 s, 160,000 in 16 s). This many is the untrained model's four heads at its longest text (128
 * tokens); past it a view would stall the tab for many seconds on every change, so it says why it is not drawn instead
 * (docs/views.md, "Long texts").
 */
export const MAX_VIEW_CELLS = 4 * 128 * 128;
/** The most cells a view draws as raster heatmaps (a pixel each): 16 heads of 500 × 500 tokens. */
export const MAX_VIEW_PIXELS = 4_000_000;

/**
 * Above this many cells (a 128 × 128 heatmap) a heatmap draws its cells as one image, a pixel per cell scaled up, not
 * one SVG rect each (tens of µs a rect: a 300-token head would take seconds); the pointer and the arrow keys still
 * name each cell, and screen readers get a note in place of a table of every number.
 */
export const RASTER_CELLS = 128 * 128;

/**
 * Whether a heatmap of `cells` cells, drawn beside `together` as large in one view, draws as an image: past
 * RASTER_CELLS, or when the view's heatmaps together would pass MAX_VIEW_CELLS as SVG (16 heads of 80 tokens).
 */
export function drawsAsImage(cells: number, together = 1): boolean {
  return cells > RASTER_CELLS || cells * together > MAX_VIEW_CELLS;
}

/** The longest text (tokens) whose `pictures` square (S × S) SVG drawings fit MAX_VIEW_CELLS together. */
export function longestDrawn(pictures: number): number {
  return Math.floor(Math.sqrt(MAX_VIEW_CELLS / Math.max(1, pictures)));
}
