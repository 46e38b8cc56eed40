// <ap-line-view>: each query token (left) linked to the keys it attends to
// (right), line opacity = softmax weight, as BertViz's head view. Hover or focus
// a query token to see only its lines.
import { LitElement, css, html, svg } from 'lit';
import type { AxisLabel } from './heatmap.js';

const ROW = 22;
const WIDTH = 360;
const TEXT_W = 110;

export class LineView extends LitElement {
  static override properties = {
    weights: { attribute: false }, rows: { type: Number }, cols: { type: Number },
    rowLabels: { attribute: false }, colLabels: { attribute: false }, color: { type: String },
    caption: { type: String }, focusedRow: { state: true },
  };
  declare weights: Float32Array;
  declare rows: number;
  declare cols: number;
  declare rowLabels: AxisLabel[];
  declare colLabels: AxisLabel[];
  declare color: string;
  declare caption: string;
  declare focusedRow: number | null;

  constructor() {
    super();
    this.weights = new Float32Array(0);
    this.rows = 0;
    this.cols = 0;
    this.rowLabels = [];
    this.colLabels = [];
    this.color = '#1a73e8';
    this.caption = '';
    this.focusedRow = null;
  }

  static override styles = css`
    :host { display: block; }
    svg { width: 100%; max-width: 32rem; height: auto; font: 12px system-ui, sans-serif; }
    text.token { cursor: pointer; }
    text.token:focus { outline: none; font-weight: 700; fill: #e8175d; }
    figcaption { font: 600 0.9rem system-ui, sans-serif; }
  `;

  override render() {
    const height = Math.max(this.rows, this.cols) * ROW + 24;
    const lines = [];
    for (let i = 0; i < this.rows; i++) {
      if (this.focusedRow !== null && this.focusedRow !== i) continue;
      for (let j = 0; j < this.cols; j++) {
        const w = this.weights[i * this.cols + j];
        if (!(w > 0.01)) continue;
        lines.push(svg`<line x1=${TEXT_W} y1=${20 + i * ROW} x2=${WIDTH - TEXT_W} y2=${20 + j * ROW}
          stroke=${this.color} stroke-width=${1 + 3 * w} stroke-opacity=${Math.min(1, w * 1.1)} data-row=${i} data-col=${j}></line>`);
      }
    }
    const label = (l: AxisLabel | undefined) => l?.label ?? '';
    return html`<figure>
      <figcaption>${this.caption}</figcaption>
      <svg viewBox="0 0 ${WIDTH} ${height}" role="img"
        aria-label=${`${this.caption}: lines from each query token to the keys it attends to`}>
        <text x=${TEXT_W - 8} y="8" text-anchor="end" fill="#555" font-size="10">query</text>
        <text x=${WIDTH - TEXT_W + 8} y="8" fill="#555" font-size="10">key</text>
        ${lines}
        ${Array.from({ length: this.rows }, (_, i) => svg`<text class="token" tabindex="0" x=${TEXT_W - 8} y=${24 + i * ROW}
          text-anchor="end" fill=${this.rowLabels[i]?.pad ? '#888' : '#111'}
          @mouseenter=${() => { this.focusedRow = i; }} @mouseleave=${() => { this.focusedRow = null; }}
          @focus=${() => { this.focusedRow = i; }} @blur=${() => { this.focusedRow = null; }}>${label(this.rowLabels[i])}</text>`)}
        ${Array.from({ length: this.cols }, (_, j) => svg`<text x=${WIDTH - TEXT_W + 8} y=${24 + j * ROW}
          fill=${this.colLabels[j]?.pad ? '#888' : '#111'}>${label(this.colLabels[j])}</text>`)}
      </svg>
    </figure>`;
  }
}
customElements.define('ap-line-view', LineView);
