// Each new token's attention as the row being added to the heatmap of every head of one
// layer (ui/heatmap.ts; the newest row is the last one drawn), and the newest token's row
// of the same layer's heads overlaid in the line view (ui/line-view.ts). A layer picker
// chooses the layer.
import { html } from 'lit';
import { schemeTableau10 } from 'd3-scale-chromatic';
import '../ui/heatmap.js';
import '../ui/line-view.js';
import { weightScale } from '../ui/colors.js';
import { futureBlocked, headMatrix } from '../model/generation-view.js';
import type { GenerationModelFacts } from '../workers/generation-run.js';

export interface GrowthOptions {
  /** (L, H, S, S) */
  attention: Float32Array;
  facts: GenerationModelFacts;
  tokens: readonly string[];
  promptLength: number;
  layer: number;
  onLayer(layer: number): void;
}

const SCALE = weightScale();

export function attentionGrowth(o: GrowthOptions) {
  const seq = o.tokens.length;
  const { heads, layers } = o.facts;
  const labels = o.tokens.map((t, i) => ({ label: t, pad: false, generated: i >= o.promptLength }));
  const blocked = futureBlocked(seq);
  const overlay = Array.from({ length: heads }, (_, h) => ({
    head: h,
    color: schemeTableau10[h % schemeTableau10.length],
    weights: headMatrix(o.attention, heads, seq, o.layer, h),
  }));
  // The line view: the newest token's row alone (1, S) per head, each head in its colour (thousands of lines for
  // the whole matrix would cost the page a long task per step).
  const newest = overlay.map((h) => ({ ...h, weights: h.weights.subarray((seq - 1) * seq, seq * seq) }));
  return html`<section class="growth" aria-label="Attention of each new token" data-testid="attention-growth"
      data-rows=${seq} data-layer=${o.layer}>
    <h3>Attention, one row per new token</h3>
    <label>Layer <select @change=${(e: Event) => o.onLayer(Number((e.target as HTMLSelectElement).value))}>
      ${Array.from({ length: layers }, (_, l) => html`<option value=${l} ?selected=${l === o.layer}>${l}</option>`)}
    </select></label>
    <div class="heads">
      ${overlay.map(
        (head) => html`<figure class="head" data-head=${head.head}>
          <ap-heatmap .values=${head.weights} .rows=${seq} .cols=${seq} .rowLabels=${labels} .colLabels=${labels}
            .blocked=${blocked} .scale=${SCALE} .image=${true} caption=${`layer ${o.layer}, head ${head.head}`}
            .rowAxis=${'query (newest last)'} .colAxis=${'key'}></ap-heatmap>
        </figure>`,
      )}
    </div>
    <h3>The newest token’s attention, every head of layer ${o.layer}</h3>
    <ap-line-view .weights=${newest[0]?.weights ?? new Float32Array()} .rows=${1} .cols=${seq}
      .rowLabels=${labels.slice(-1)} .colLabels=${labels} .overlay=${newest}
      caption=${`layer ${o.layer}, every head, the newest token`}></ap-line-view>
  </section>`;
}
