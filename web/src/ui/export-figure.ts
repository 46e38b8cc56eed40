// One exported picture: a title (what is shown, and the input as text), a colour legend,
// and the view's panels (the very SVGs on screen, copied) laid out as on the page. Every
// string goes in through textContent: typed text is never parsed as markup.
import { formatValue } from '../model/words.js';
import { BLOCKED_FILL, type ColorScale } from './colors.js';
import { wrapText } from '../model/export-names.js';

const NS = 'http://www.w3.org/2000/svg';
const MARGIN = 16;
const GAP = 18;
const CAPTION_LINE = 17;
// The least an average glyph counts for (the text is measured where a canvas can: textWidth).
const CAPTION_CHAR_PX = 7.8; // the bold 13 px caption font
const CHAR_PX = 7; // the 12 px title font
const HEADING_CHAR_PX = 8.5; // the bold 15 px heading
const MIN_WIDTH = 520;
const TEXT_MAX = 1000;
const HEADING_FONT = '700 15px system-ui, sans-serif';
const TEXT_FONT = '12px system-ui, sans-serif';
const CAPTION_FONT = '600 13px system-ui, sans-serif';
/** Room for an SVG opened elsewhere, whose system-ui may be a little wider than the browser's that measured it. */
const MEASURE_SLACK = 1.08;

let measurer: CanvasRenderingContext2D | null | undefined;

/**
 * A line's width in a font: measured by the browser (which also draws the PNG), with some slack, and never less
 * than `perChar` a character (where nothing can measure, e.g. a test's DOM without canvas, the estimate alone).
 */
function textWidth(text: string, font: string, perChar: number): number {
  const estimate = Array.from(text).length * perChar;
  if (measurer === undefined) {
    try {
      measurer = document.createElement('canvas').getContext('2d');
    } catch {
      measurer = null;
    }
  }
  if (!measurer) return estimate;
  measurer.font = font;
  return Math.max(estimate, measurer.measureText(text).width * MEASURE_SLACK);
}

/** The widest a character of `text` draws on average in a font (what wrapping by characters needs). */
function charWidth(text: string, font: string, perChar: number): number {
  const n = Array.from(text).length;
  return n ? textWidth(text, font, perChar) / n : perChar;
}

/** A picture of the view: an SVG (drawn by a component) and its caption. */
export interface Panel {
  svg: SVGSVGElement;
  caption: string;
  /** Marks the panel in the file (data-head, data-mask), so that tools and tests can find each head. */
  data?: Record<string, string>;
}

export interface LegendSwatch {
  label: string;
  color: string;
  shape: 'line' | 'box' | 'hatch';
  /** A line's SVG stroke-dasharray (compared runs' curves are dashed or dotted). */
  dash?: string;
}

export interface Legend {
  /** A colour bar from the scale's low to high end; `ends` names them instead of the domain's numbers (a scale per row). */
  scale?: { scale: ColorScale; label: string; ends?: [string, string] };
  swatches?: LegendSwatch[];
  note?: string;
}

export interface FigureSpec {
  heading: string;
  /** Further title lines, e.g. the input text (wrapped to the picture's width). */
  texts: { label: string; text: string }[];
  legend: Legend;
  panels: Panel[];
  /** Panels per row; without it, as many as fit in the widest of 1100 px and the widest panel. */
  columns?: number;
}

function el<K extends keyof SVGElementTagNameMap>(
  name: K,
  attrs: Record<string, string | number> = {},
  text?: string,
): SVGElementTagNameMap[K] {
  const node = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  if (text !== undefined) node.textContent = text;
  return node;
}

/** The size an SVG draws at: its width and height attributes, else its viewBox. */
export function svgSize(svg: SVGSVGElement): { width: number; height: number } {
  const box =
    svg
      .getAttribute('viewBox')
      ?.split(/[\s,]+/)
      .map(Number) ?? [];
  return {
    width: Number(svg.getAttribute('width')) || box[2] || 0,
    height: Number(svg.getAttribute('height')) || box[3] || 0,
  };
}

/** A copy of a panel's SVG, placed at (x, y), with ids made unique (several heatmaps each define #blocked). */
function placedCopy(
  svg: SVGSVGElement,
  index: number,
  x: number,
  y: number,
  size: { width: number; height: number },
): SVGSVGElement {
  const copy = svg.cloneNode(true) as SVGSVGElement;
  for (const name of ['tabindex', 'style', 'class', 'xmlns']) copy.removeAttribute(name);
  copy.setAttribute('x', String(x));
  copy.setAttribute('y', String(y));
  copy.setAttribute('width', String(size.width));
  copy.setAttribute('height', String(size.height));
  if (!copy.getAttribute('viewBox')) copy.setAttribute('viewBox', `0 0 ${size.width} ${size.height}`);
  // The line view takes its font from the page's CSS, which does not travel with the file.
  if (!copy.getAttribute('font-family')) copy.setAttribute('font-family', 'system-ui, sans-serif');
  if (!copy.getAttribute('font-size')) copy.setAttribute('font-size', '12');
  for (const node of copy.querySelectorAll('[tabindex]')) node.removeAttribute('tabindex');
  for (const node of copy.querySelectorAll('[id]')) {
    const old = node.id,
      renamed = `${old}-${index}`;
    node.id = renamed;
    for (const user of copy.querySelectorAll(`[fill="url(#${old})"]`)) user.setAttribute('fill', `url(#${renamed})`);
  }
  return copy;
}

function hatchPattern(id: string): SVGPatternElement {
  const pattern = el('pattern', {
    id,
    width: 6,
    height: 6,
    patternUnits: 'userSpaceOnUse',
    patternTransform: 'rotate(45)',
  });
  pattern.append(
    el('rect', { width: 6, height: 6, fill: BLOCKED_FILL }),
    el('line', { x1: 0, y1: 0, x2: 0, y2: 6, stroke: '#555', 'stroke-width': 2 }),
  );
  return pattern;
}

/** The legend as one row of items (wrapping at `width`); returns its group and height. */
function drawLegend(legend: Legend, defs: SVGDefsElement, width: number): { group: SVGGElement; height: number } {
  const group = el('g', { class: 'legend', 'font-size': 12, fill: '#222' });
  const items: { width: number; draw: (x: number, y: number) => SVGElement[] }[] = [];
  const textItem = (text: string, extra: Record<string, string | number> = {}) =>
    items.push({
      width: textWidth(text, extra['font-weight'] ? `600 ${TEXT_FONT}` : TEXT_FONT, CHAR_PX),
      draw: (x, y) => [el('text', { x, y: y + 11, ...extra }, text)],
    });
  if (legend.scale) {
    const { scale, label, ends = [formatValue(scale.domain[0]), formatValue(scale.domain[1])] } = legend.scale;
    const gradient = el('linearGradient', { id: 'legend-scale', x1: 0, x2: 1, y1: 0, y2: 0 });
    for (let i = 0; i <= 10; i++) gradient.append(el('stop', { offset: `${i * 10}%`, 'stop-color': scale.at(i / 10) }));
    defs.append(gradient);
    textItem(`${label}:`, { 'font-weight': 600 });
    textItem(ends[0]);
    items.push({
      width: 160,
      draw: (x, y) => [el('rect', { x, y: y + 1, width: 160, height: 12, fill: 'url(#legend-scale)', stroke: '#999' })],
    });
    textItem(ends[1]);
  }
  for (const swatch of legend.swatches ?? []) {
    items.push({
      width: 24 + textWidth(swatch.label, TEXT_FONT, CHAR_PX),
      draw: (x, y) => [
        swatch.shape === 'line'
          ? el('line', {
              x1: x,
              y1: y + 7,
              x2: x + 18,
              y2: y + 7,
              stroke: swatch.color,
              'stroke-width': 3,
              ...(swatch.dash && swatch.dash !== 'none' ? { 'stroke-dasharray': swatch.dash } : {}),
            })
          : el('rect', {
              x,
              y: y + 1,
              width: 18,
              height: 12,
              fill: swatch.shape === 'hatch' ? 'url(#legend-blocked)' : swatch.color,
              stroke: '#999',
            }),
        el('text', { x: x + 24, y: y + 11 }, swatch.label),
      ],
    });
  }
  if (legend.swatches?.some((s) => s.shape === 'hatch')) defs.append(hatchPattern('legend-blocked'));
  if (legend.note) textItem(legend.note, { fill: '#555' });
  let x = 0,
    y = 0;
  for (const item of items) {
    if (x > 0 && x + item.width > width) {
      x = 0;
      y += 20;
    }
    group.append(...item.draw(x, y));
    x += item.width + 10;
  }
  return { group, height: items.length ? y + 16 : 0 };
}

/** Places panels (with their captions' heights) in rows; returns each panel's position and the total size. */
function layout(sizes: { width: number; height: number; caption: number }[], maxWidth: number, columns?: number) {
  const places: { x: number; y: number }[] = [];
  let x = 0,
    y = 0,
    rowHeight = 0,
    width = 0,
    inRow = 0;
  for (const size of sizes) {
    const full = columns ? inRow >= columns : x > 0 && x + size.width > maxWidth;
    if (inRow > 0 && full) {
      x = 0;
      y += rowHeight + GAP;
      rowHeight = 0;
      inRow = 0;
    }
    places.push({ x, y });
    x += size.width + GAP;
    inRow++;
    width = Math.max(width, x - GAP);
    rowHeight = Math.max(rowHeight, size.height + size.caption);
  }
  return { places, width, height: y + rowHeight };
}

/** The whole picture as one standalone SVG element (not attached to the page). */
export function composeFigure(spec: FigureSpec): SVGSVGElement {
  // A caption wraps to its panel's width (at least 160 px); the panel's place in the rows is as wide as the wider of
  // the panel and its caption's lines, so that neighbours' captions never overlap.
  const captions = spec.panels.map((p) =>
    wrapText(
      p.caption,
      Math.floor(Math.max(160, svgSize(p.svg).width) / charWidth(p.caption, CAPTION_FONT, CAPTION_CHAR_PX)),
      3,
    ),
  );
  const sizes = spec.panels.map((p, i) => ({ ...svgSize(p.svg), caption: captions[i].length * CAPTION_LINE + 6 }));
  const slots = sizes.map((size, i) => ({
    ...size,
    width: Math.max(size.width, ...captions[i].map((line) => textWidth(line, CAPTION_FONT, CAPTION_CHAR_PX))),
  }));
  const widest = Math.max(0, ...slots.map((s) => s.width));
  const grid = layout(slots, Math.max(1100, widest), spec.columns);
  // Wide enough for the heading on one line (up to TEXT_MAX); a long input wraps at TEXT_MAX, where lines still read well.
  const headingChar = charWidth(spec.heading, HEADING_FONT, HEADING_CHAR_PX);
  const headingWidth = Math.min(TEXT_MAX, Array.from(spec.heading).length * headingChar);
  const width = Math.max(MIN_WIDTH, headingWidth, grid.width) + 2 * MARGIN;
  const inner = width - 2 * MARGIN;
  const linesWidth = Math.min(inner, TEXT_MAX);
  const root = el('svg', { xmlns: NS, 'font-family': 'system-ui, sans-serif' });
  const defs = el('defs');
  root.append(defs);
  const background = el('rect', { width: '100%', height: '100%', fill: '#fff' });
  root.append(background);

  const title = el('g', { class: 'title', fill: '#111' });
  let y = MARGIN + 15;
  for (const line of wrapText(spec.heading, Math.floor(linesWidth / headingChar + 1e-6), 4)) {
    title.append(el('text', { x: MARGIN, y, 'font-size': 15, 'font-weight': 700 }, line));
    y += 20;
  }
  for (const { label, text } of spec.texts) {
    const line = `${label} ${text}`;
    const lines = wrapText(line, Math.floor(linesWidth / charWidth(line, TEXT_FONT, CHAR_PX) + 1e-6), 12);
    for (const line of lines) {
      title.append(el('text', { x: MARGIN, y, 'font-size': 12 }, line));
      y += 16;
    }
  }
  root.append(title);

  const legend = drawLegend(spec.legend, defs, inner);
  legend.group.setAttribute('transform', `translate(${MARGIN} ${y})`);
  root.append(legend.group);
  y += legend.height + 14;

  spec.panels.forEach((panel, index) => {
    const place = grid.places[index];
    const x0 = MARGIN + place.x,
      y0 = y + place.y;
    const group = el('g', { class: 'panel' });
    for (const [k, v] of Object.entries(panel.data ?? {})) group.setAttribute(`data-${k}`, v);
    captions[index].forEach((line, k) =>
      group.append(
        el('text', { x: x0, y: y0 + 14 + k * CAPTION_LINE, 'font-size': 13, 'font-weight': 600, fill: '#111' }, line),
      ),
    );
    group.append(placedCopy(panel.svg, index, x0, y0 + sizes[index].caption, sizes[index]));
    root.append(group);
  });
  const height = Math.ceil(y + grid.height + MARGIN);
  root.setAttribute('width', String(Math.ceil(width)));
  root.setAttribute('height', String(height));
  root.setAttribute('viewBox', `0 0 ${Math.ceil(width)} ${height}`);
  root.setAttribute('role', 'img');
  root.setAttribute('aria-label', spec.heading);
  return root;
}

/** A canvas (e.g. an overview thumbnail) as an SVG panel: its pixels as an image, drawn `size` px wide and tall. */
export function canvasPanel(canvas: HTMLCanvasElement, size: number): SVGSVGElement {
  const svg = el('svg', { width: size, height: size, viewBox: `0 0 ${size} ${size}` });
  // Nearest-neighbour scaling: each attention weight stays one crisp square, as on screen.
  svg.append(
    el('image', {
      href: canvas.toDataURL('image/png'),
      width: size,
      height: size,
      preserveAspectRatio: 'none',
      style: 'image-rendering: pixelated',
    }),
  );
  return svg;
}
