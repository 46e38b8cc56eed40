// A grid of cells that each hold a short text on a colour (the logit lens: layers x positions,
// each cell the top token, coloured by its probability). Drawn from a TextGridSpec by one
// function, for the screen and an exported picture alike (textGridPicture). Every string is a
// text node: tokens are typed text. On screen the paper and labels follow the theme (PICTURE_INK).
import { html, render, svg } from 'lit';
import { shownLabel } from './heatmap-layout.js';
import { textColorOn, type ColorScale } from './colors.js';

export interface TextGridSpec {
  rows: number;
  cols: number;
  rowLabels: readonly string[];
  colLabels: readonly string[];
  /** (rows * cols) the text of each cell. */
  texts: readonly string[];
  /** (rows * cols) the value that colours each cell. */
  values: ArrayLike<number>;
  scale: ColorScale;
  rowAxis: string;
  colAxis: string;
  caption: string;
  /** A line of detail per cell (its tooltip), e.g. the runners-up. */
  details?: readonly string[];
}

const CELL_W = 64;
const CELL_H = 26;
const LEFT = 70;
const TOP = 58;

/** The grid as an SVG template. */
export function textGridSvg(spec: TextGridSpec, select?: (row: number, col: number) => void) {
  const width = LEFT + spec.cols * CELL_W + 8;
  const height = TOP + spec.rows * CELL_H + 8;
  const cells = [];
  for (let r = 0; r < spec.rows; r++)
    for (let c = 0; c < spec.cols; c++) {
      const i = r * spec.cols + c;
      const fill = spec.scale.color(spec.values[i]);
      const x = LEFT + c * CELL_W,
        y = TOP + r * CELL_H;
      cells.push(svg`<g data-row=${r} data-col=${c} @click=${select ? () => select(r, c) : null}>
        <rect x=${x} y=${y} width=${CELL_W - 1} height=${CELL_H - 1} fill=${fill}></rect>
        <text x=${x + CELL_W / 2} y=${y + 17} text-anchor="middle" font-size="11" fill=${textColorOn(fill)}>${shownLabel(spec.texts[i] ?? '')}</text>
        <title>${spec.details?.[i] ?? spec.texts[i]}</title>
      </g>`);
    }
  return html`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width=${width} height=${height}
    role="img" aria-label=${`${spec.caption}: ${spec.rows} ${spec.rowAxis} by ${spec.cols} ${spec.colAxis}`} font-family="system-ui, sans-serif">
    <rect class="pic-paper" width=${width} height=${height} fill="#fff"></rect>
    <text x="2" y="14" font-size="12" fill="#555" class="pic-ink-muted">${spec.rowAxis} ↓</text>
    <text x=${LEFT} y="14" font-size="12" fill="#555" class="pic-ink-muted">${spec.colAxis} →</text>
    ${spec.colLabels.map(
      (label, c) =>
        svg`<text x=${LEFT + c * CELL_W + CELL_W / 2} y=${TOP - 8} text-anchor="middle" font-size="12" fill="#222" class="pic-ink">${shownLabel(label)}</text>`,
    )}
    ${spec.rowLabels.map(
      (label, r) =>
        svg`<text x=${LEFT - 6} y=${TOP + r * CELL_H + 17} text-anchor="end" font-size="12" fill="#222" class="pic-ink">${label}</text>`,
    )}
    ${cells}
  </svg>`;
}

/** The grid as a standalone SVG element (not on the page), for exports. */
export function textGridPicture(spec: TextGridSpec): SVGSVGElement {
  const box = document.createElement('div');
  render(textGridSvg(spec), box);
  return box.querySelector('svg')!;
}
