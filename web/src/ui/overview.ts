// <ap-overview>: every layer x head of one block as small canvas thumbnails of
// the softmax weights (with grouped-query attention, each head's K/V head under its label); choosing one sends 'pick' with its layer and head. However many
// heads (GPT-2 and BERT: 12 x 12, Qwen3-0.6B: 28 x 16), each thumbnail keeps at least THUMB_MIN px: the grid
// scrolls in its own box, with the head labels (top) and layer labels (left) sticky.
// A thumbnail's pixels are thumbnailImage(), a function of its Thumbnail, so that an
// export draws the same picture from the same data (thumbnailCanvas).
import { LitElement, css, html, unsafeCSS } from 'lit';
import { BLOCKED_FILL, opaqueRgb, rowTop, weightScale } from './colors.js';
import { defineOnce } from './define.js';

export interface Thumbnail {
  layer: number;
  head: number;
  values: Float32Array;
  rows: number;
  cols: number;
  blocked: Uint8Array;
}

/**
 * The smallest thumbnail side, in CSS px: a short text's pattern (diagonal, first column, previous token) still reads,
 * and 16 heads (Qwen3-0.6B's, Llama 3.2 1B's 32 K/V-grouped heads scroll) fit beside their layer labels at 1400 px.
 */
export const THUMB_MIN = 48;

/**
 * weight (0..1) -> 0xRRGGBB, in 256 steps: a thumbnail is drawn as one ImageData, not a fillRect per cell. Viridis
 * gives '#rrggbb' for every step; one that did not parse would keep the step before, as a canvas fillStyle does.
 */
function colorTable(): Uint32Array {
  const scale = weightScale();
  const table = new Uint32Array(256);
  for (let k = 0; k < 256; k++) table[k] = opaqueRgb(scale.color(k / 255)) ?? (k > 0 ? table[k - 1] : 0);
  return table;
}

let table: Uint32Array | null = null;

/** A thumbnail's pixels, one per weight: coloured on 0..1 or, with `perRow`, each row from 0 to its own largest weight. */
export function thumbnailImage(t: Thumbnail, perRow: boolean): ImageData {
  table ??= colorTable();
  const blockedRgb = opaqueRgb(BLOCKED_FILL)!;
  const image = new ImageData(t.cols, t.rows);
  const px = image.data;
  // Where each row's colours top out: 1, or with perRow the row's largest weight (as the heatmaps' rowScales).
  const tops = Array.from({ length: t.rows }, (_, i) => (perRow ? rowTop(t.values, i, t.cols) : 1));
  for (let k = 0; k < t.rows * t.cols; k++) {
    const v = t.values[k] / tops[Math.floor(k / t.cols)];
    const rgb = t.blocked[k]
      ? blockedRgb
      : table[Math.round(Math.min(1, Math.max(0, Number.isFinite(v) ? v : 0)) * 255)];
    px[4 * k] = rgb >>> 16;
    px[4 * k + 1] = (rgb >>> 8) & 255;
    px[4 * k + 2] = rgb & 255;
    px[4 * k + 3] = 255;
  }
  return image;
}

/** Draws a thumbnail into `canvas` (one pixel per weight); nothing for an empty one. */
function drawThumbnail(canvas: HTMLCanvasElement, t: Thumbnail, perRow: boolean) {
  if (t.rows === 0 || t.cols === 0) return;
  canvas.width = t.cols;
  canvas.height = t.rows;
  canvas.getContext('2d')!.putImageData(thumbnailImage(t, perRow), 0, 0);
}

/** A thumbnail as a canvas off the page, drawn as <ap-overview> draws it, for exports. */
export function thumbnailCanvas(t: Thumbnail, perRow: boolean): HTMLCanvasElement {
  const canvas = document.createElement('canvas');
  drawThumbnail(canvas, t, perRow);
  return canvas;
}

export class Overview extends LitElement {
  static override properties = {
    thumbnails: { attribute: false },
    layers: { type: Number },
    heads: { type: Number },
    perRow: { type: Boolean, attribute: 'per-row' },
    kvHeadOf: { attribute: false },
    layerKinds: { attribute: false },
  };
  declare thumbnails: Thumbnail[];
  /** Each row coloured from 0 to its own largest weight (the Colour scale setting), not on the fixed 0..1. */
  declare perRow: boolean;
  declare layers: number;
  declare heads: number;
  /** With grouped-query attention: the K/V head each query head reads (named under its label), else null. */
  declare kvHeadOf: number[] | null;
  /** In a model whose layers differ (Gemma 3's local and global ones): each layer's kind, named under its label. */
  declare layerKinds: string[] | null;

  constructor() {
    super();
    this.thumbnails = [];
    this.layers = 0;
    this.heads = 0;
    this.perRow = false;
    this.kvHeadOf = null;
    this.layerKinds = null;
  }

  static override styles = css`
    :host { display: block; font: 0.8rem system-ui, sans-serif; min-width: 0; }
    .scroll {
      overflow: auto; max-height: max(24rem, min(48rem, 85vh)); overscroll-behavior: contain; border: 1px solid var(--ap-border); border-radius: var(--ap-radius-sm);
      container-type: inline-size;
    }
    table { border-collapse: separate; border-spacing: 3px; }
    td { padding: 0; }
    button { padding: 0; border: 2px solid transparent; background: none; cursor: pointer; line-height: 0; display: block; }
    button:hover, button:focus-visible { border-color: var(--ap-highlight); outline: none; }
    /* As wide as the box allows, between THUMB_MIN px and 6rem: past that the box scrolls. */
    canvas {
      display: block; image-rendering: pixelated; aspect-ratio: 1;
      width: clamp(${unsafeCSS(THUMB_MIN)}px, calc((100cqw - 4.5rem) / var(--heads, 4) - 7px), 6rem);
    }
    th { font-weight: 400; color: var(--ap-text-muted); background: var(--ap-bg); white-space: nowrap; }
    /* The labels stay in view while the grid scrolls. */
    thead th { position: sticky; top: 0; z-index: 1; padding: 0.15rem 0; }
    tbody th { position: sticky; left: 0; z-index: 1; padding: 0 0.4rem; text-align: right; }
    thead th.corner { left: 0; z-index: 2; }
    thead th .kv, tbody th .kind { display: block; font-size: 0.7rem; }
    /* The first head of each K/V group starts a new group: a rule at its left. */
    .group-start { box-shadow: -2px 0 0 var(--ap-border-strong); }
  `;

  protected override updated() {
    for (const canvas of this.renderRoot.querySelectorAll('canvas')) {
      const t = this.thumbnails[Number(canvas.dataset.index)];
      if (t) drawThumbnail(canvas, t, this.perRow);
    }
  }

  #pick(t: Thumbnail) {
    this.dispatchEvent(
      new CustomEvent('pick', { detail: { layer: t.layer, head: t.head }, bubbles: true, composed: true }),
    );
  }

  /** Whether head h is the first of a K/V group other than the first. */
  #groupStart(h: number): boolean {
    return !!this.kvHeadOf && h > 0 && this.kvHeadOf[h] !== this.kvHeadOf[h - 1];
  }

  override render() {
    const byLayer = Array.from({ length: this.layers }, () => [] as { t: Thumbnail; index: number }[]);
    this.thumbnails.forEach((t, index) => byLayer[t.layer]?.push({ t, index }));
    return html`<div class="scroll" data-testid="overview-scroll" style=${`--heads:${Math.max(1, this.heads)}`}>
      <table>
        <thead><tr><th class="corner" scope="col"></th>${Array.from(
          { length: this.heads },
          (_, h) => html`<th scope="col"
          class=${this.#groupStart(h) ? 'group-start' : ''}>head ${h}${
            this.kvHeadOf ? html`<span class="kv" data-kv=${this.kvHeadOf[h]}>K/V ${this.kvHeadOf[h]}</span>` : ''
          }</th>`,
        )}</tr></thead>
        <tbody>${byLayer.map(
          (cells, layer) => html`<tr><th scope="row">layer ${layer}${
            this.layerKinds?.[layer]
              ? html`<span class="kind" data-kind=${this.layerKinds[layer]}>${this.layerKinds[layer]}</span>`
              : ''
          }</th>
          ${cells.map(
            ({
              t,
              index,
            }) => html`<td class=${this.#groupStart(t.head) ? 'group-start' : ''}><button title=${`layer ${t.layer}, head ${t.head}`}
            aria-label=${`layer ${t.layer}, head ${t.head}: open`} @click=${() => this.#pick(t)}>
            <canvas data-index=${index} data-layer=${t.layer} data-head=${t.head}></canvas></button></td>`,
          )}</tr>`,
        )}
        </tbody>
      </table>
    </div>`;
  }
}
defineOnce('ap-overview', Overview);
