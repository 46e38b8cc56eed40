// Each new token's attention as the row being added to the heatmap of every head of one
// layer (ui/heatmap.ts; the newest row is the last one drawn), and the newest token's row
// of the same layer's heads overlaid in the line view (ui/line-view.ts). A layer picker
// chooses the layer; the colour legend (ui/legend.ts) is the playground's for softmax weights. A heatmap takes ~10 ms to draw here: HeadFrames brings one head up to
// date per animation frame, so a step never costs the page a long task however many heads.
import { html, nothing } from 'lit';
import { schemeTableau10 } from 'd3-scale-chromatic';
import '../ui/heatmap.js';
import '../ui/line-view.js';
import '../ui/legend.js';
import type { AxisLabel } from '../ui/heatmap.js';
import { weightScale } from '../ui/colors.js';
import { futureBlocked, type AttentionRows } from '../model/generation-view.js';
import type { GenerationModelFacts } from '../workers/generation-run.js';

/** One head's heatmap as drawn: its (seq, seq) weights of one branch's attention. */
interface HeadFrame {
  source: AttentionRows;
  seq: number;
  values: Float32Array;
  labels: AxisLabel[];
  blocked: Uint8Array;
}

/** What a layer's heads draw, brought up to date one head at a time. */
export class HeadFrames {
  #frames: (HeadFrame | undefined)[] = [];
  #layer = -1;

  get frames(): readonly (HeadFrame | undefined)[] {
    return this.#frames;
  }

  #current(f: HeadFrame | undefined, attention: AttentionRows): boolean {
    return f?.source === attention && f.seq === attention.seq;
  }

  /** Whether a head of `layer` draws other weights than `attention`'s now. */
  behind(attention: AttentionRows, layer: number): boolean {
    if (layer !== this.#layer) return true;
    for (let h = 0; h < attention.heads; h++) if (!this.#current(this.#frames[h], attention)) return true;
    return false;
  }

  /** Brings the head furthest behind up to date with `attention`, whose tokens are `tokens`. */
  advance(attention: AttentionRows, layer: number, tokens: readonly string[]): void {
    if (layer !== this.#layer) {
      this.#frames = [];
      this.#layer = layer;
    }
    let stalest = -1;
    for (let h = 0; h < attention.heads; h++) {
      const f = this.#frames[h];
      if (this.#current(f, attention)) continue;
      if (stalest < 0 || (f?.seq ?? -1) < (this.#frames[stalest]?.seq ?? -1)) stalest = h;
    }
    if (stalest < 0) return;
    const seq = attention.seq;
    const same = this.#frames.find((f) => f?.seq === seq);
    this.#frames[stalest] = {
      source: attention,
      seq,
      values: attention.head(layer, stalest),
      labels:
        same && same.source === attention ? same.labels : tokens.slice(0, seq).map((t) => ({ label: t, pad: false })),
      blocked: same ? same.blocked : futureBlocked(seq),
    };
  }
}

export interface GrowthOptions {
  attention: AttentionRows;
  facts: GenerationModelFacts;
  tokens: readonly string[];
  frames: readonly (HeadFrame | undefined)[];
  layer: number;
  onLayer(layer: number): void;
}

const SCALE = weightScale();
const colorOf = (head: number) => schemeTableau10[head % schemeTableau10.length];

export function attentionGrowth(o: GrowthOptions) {
  const seq = o.attention.seq;
  const { heads, layers } = o.facts;
  const labels = o.tokens.map((t) => ({ label: t, pad: false }));
  // The line view: the newest token's row alone (1, S) per head, each head in its colour (the whole matrix's
  // thousands of lines would cost the page a long task per step).
  const newest = Array.from({ length: heads }, (_, h) => ({
    head: h,
    color: colorOf(h),
    weights: o.attention.row(o.layer, h, seq - 1),
  }));
  return html`<section class="growth" aria-label="Attention of each new token" data-testid="attention-growth"
      data-rows=${seq} data-layer=${o.layer}>
    <h3>Attention, one row per new token</h3>
    ${
      o.attention.recorded
        ? nothing
        : html`<p class="why" data-testid="rows-not-recorded">The opened tokens\u2019 rows are not drawn: a text this
          long is past what the page records of every layer and head. Each new token\u2019s row is.</p>`
    }
    <div class="growth-controls">
      <label>Layer <select data-testid="growth-layer" @change=${(e: Event) => o.onLayer(Number((e.target as HTMLSelectElement).value))}>
        ${Array.from({ length: layers }, (_, l) => html`<option value=${l} ?selected=${l === o.layer}>${l}</option>`)}
      </select></label>
      <ap-legend .scale=${SCALE} plain-blocked label="Colour (softmax weights):"></ap-legend>
    </div>
    <div class="heads">
      ${Array.from({ length: heads }, (_, h) => {
        const f = o.frames[h];
        return html`<figure class="head" data-head=${h} data-rows=${f?.seq ?? 0}>
          ${
            f
              ? html`<ap-heatmap .values=${f.values} .rows=${f.seq} .cols=${f.seq} .rowLabels=${f.labels}
                  .colLabels=${f.labels} .blocked=${f.blocked} .scale=${SCALE} .image=${true}
                  caption=${`layer ${o.layer}, head ${h}`} .rowAxis=${'query (newest last)'} .colAxis=${'key'}></ap-heatmap>`
              : html`<p class="why">layer ${o.layer}, head ${h}: drawing…</p>`
          }
        </figure>`;
      })}
    </div>
    ${
      seq > 0
        ? html`<h3>The newest token\u2019s attention, every head of layer ${o.layer}</h3>
          <ap-line-view .weights=${newest[0]?.weights ?? new Float32Array()} .rows=${1} .cols=${seq}
            .rowLabels=${labels.slice(-1)} .colLabels=${labels} .overlay=${newest}
            caption=${`layer ${o.layer}, every head, the newest token`}></ap-line-view>`
        : nothing
    }
  </section>`;
}
