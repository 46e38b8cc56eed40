// <ap-overview>: every layer x head of one block as small canvas thumbnails of
// the softmax weights; choosing one sends 'pick' with its layer and head.
import { LitElement, css, html } from 'lit';
import { BLOCKED_FILL, weightScale } from '../view/colors.js';

export interface Thumbnail { layer: number; head: number; values: Float32Array; rows: number; cols: number; blocked: Uint8Array }

export class Overview extends LitElement {
  static override properties = { thumbnails: { attribute: false }, layers: { type: Number }, heads: { type: Number } };
  declare thumbnails: Thumbnail[];
  declare layers: number;
  declare heads: number;

  constructor() {
    super();
    this.thumbnails = [];
    this.layers = 0;
    this.heads = 0;
  }

  static override styles = css`
    :host { display: block; font: 0.8rem system-ui, sans-serif; }
    .grid { display: grid; gap: 0.4rem; align-items: center; }
    button { padding: 0; border: 2px solid transparent; background: none; cursor: pointer; line-height: 0; }
    button:hover, button:focus-visible { border-color: #e8175d; outline: none; }
    canvas { width: 100%; image-rendering: pixelated; aspect-ratio: 1; }
    .label { text-align: center; color: #444; }
  `;

  protected override updated() {
    const scale = weightScale();
    for (const canvas of this.renderRoot.querySelectorAll('canvas')) {
      const t = this.thumbnails[Number(canvas.dataset.index)];
      if (!t) continue;
      canvas.width = t.cols;
      canvas.height = t.rows;
      const ctx = canvas.getContext('2d')!;
      for (let i = 0; i < t.rows; i++)
        for (let j = 0; j < t.cols; j++) {
          ctx.fillStyle = t.blocked[i * t.cols + j] ? BLOCKED_FILL : scale.color(t.values[i * t.cols + j]);
          ctx.fillRect(j, i, 1, 1);
        }
    }
  }

  #pick(t: Thumbnail) {
    this.dispatchEvent(new CustomEvent('pick', { detail: { layer: t.layer, head: t.head }, bubbles: true, composed: true }));
  }

  override render() {
    return html`<div class="grid" style=${`grid-template-columns: 4rem repeat(${this.heads}, minmax(2.5rem, 6rem))`}>
      <span></span>${Array.from({ length: this.heads }, (_, h) => html`<span class="label">head ${h}</span>`)}
      ${Array.from({ length: this.layers }, (_, layer) => html`<span class="label">layer ${layer}</span>
        ${this.thumbnails.filter((t) => t.layer === layer).map((t) => html`<button
          aria-label=${`layer ${t.layer}, head ${t.head}: open`} @click=${() => this.#pick(t)}>
          <canvas data-index=${this.thumbnails.indexOf(t)}></canvas></button>`)}`)}
    </div>`;
  }
}
customElements.define('ap-overview', Overview);
