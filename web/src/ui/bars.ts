// A horizontal bar chart as SVG: one labelled bar per value, from a zero line, positive to the
// right and negative to the left, each with its number. Drawn from a BarsSpec by one function,
// for the screen and for an exported picture alike (barsPicture). Every label is a text node. On
// screen the paper and ink follow the theme (ui/tokens.ts PICTURE_INK); the exported file is
// light paper.
import { html, render, svg } from 'lit';
import { formatValue } from '../model/words.js';

export interface BarsSpec {
  bars: { label: string; value: number; /** Marks a bar (the chosen head). */ marked?: boolean }[];
  /** What the values are, under the axis. */
  valueAxis: string;
  caption: string;
}

const ROW = 20;
const LABEL = 84;
const PLOT = 360;
const NUMBER = 64;
const TOP = 8;
const AXIS = 30;
const POSITIVE = '#3b6fb6';
const NEGATIVE = '#d0782a';

/** The chart as an SVG template (for a Lit render). */
export function barsSvg(spec: BarsSpec) {
  const extent = Math.max(1e-9, ...spec.bars.map((b) => Math.abs(b.value)));
  const hasNegative = spec.bars.some((b) => b.value < 0);
  // A negative bar's number goes left of it: then the plot starts a number's width after the labels.
  const left = LABEL + (hasNegative ? NUMBER : 0);
  const zero = left + (hasNegative ? PLOT / 2 : 0);
  const scale = (hasNegative ? PLOT / 2 : PLOT) / extent;
  const width = left + PLOT + NUMBER;
  const height = TOP + spec.bars.length * ROW + AXIS;
  return html`<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width=${width} height=${height}
    role="img" aria-label=${`${spec.caption}: ${spec.bars.length} bars of ${spec.valueAxis}`} font-family="system-ui, sans-serif" font-size="12">
    <rect class="pic-paper" width=${width} height=${height} fill="#fff"></rect>
    ${spec.bars.map((bar, i) => {
      const y = TOP + i * ROW;
      const length = Math.abs(bar.value) * scale;
      const x = bar.value >= 0 ? zero : zero - length;
      const end = bar.value >= 0 ? zero + length + 4 : zero - length - 4;
      return svg`<g data-bar=${bar.label} data-value=${bar.value}>
        <text x=${LABEL - 6} y=${y + 14} text-anchor="end" fill="#222" class="pic-ink" font-weight=${bar.marked ? 700 : 400}>${bar.label}</text>
        <rect x=${x} y=${y + 3} width=${Math.max(length, 0.5)} height=${ROW - 6} fill=${bar.value >= 0 ? POSITIVE : NEGATIVE}
          stroke=${bar.marked ? '#e8175d' : 'none'} stroke-width="2"></rect>
        <text x=${end} y=${y + 14} text-anchor=${bar.value >= 0 ? 'start' : 'end'} fill="#444" class="pic-ink-muted" font-size="11">${formatValue(bar.value)}</text>
      </g>`;
    })}
    <line x1=${zero} x2=${zero} y1=${TOP} y2=${TOP + spec.bars.length * ROW} stroke="#555" class="pic-stroke-ink"></line>
    <text x=${left + PLOT / 2} y=${height - 8} text-anchor="middle" fill="#555" class="pic-ink-muted">${spec.valueAxis}</text>
  </svg>`;
}

/** The chart as a standalone SVG element (not on the page), for exports. */
export function barsPicture(spec: BarsSpec): SVGSVGElement {
  const box = document.createElement('div');
  render(barsSvg(spec), box);
  return box.querySelector('svg')!;
}
