// <ap-tensor-view>: the Values view. The values of one recorded tensor of a layer — Q, K,
// V per head, the context (weights x V), the merged heads, the output projection, the
// residual stream, LayerNorm and the FFN — as heatmaps with tokens down the side and
// features across, one per head where the tensor has heads, and each token's mean,
// spread and length under it. A strip of buttons lists the layer's tensors in the order
// they were computed (from flow-model.ts); a tensor the settings left out (the residual
// with residual connections off) is named there as absent. Data in, 'setting-input' out.
import { LitElement, css, html, nothing } from 'lit';
import type { Trace } from 'attention-playground';
import { formatValue } from '../model/words.js';
import { tokenLabel } from '../model/token-label.js';
import { scoreScale } from '../ui/colors.js';
import { flowRows, resolveTensor, stepTitle } from '../model/flow-model.js';
import {
  axisLabels,
  firstColumns,
  rowStats,
  stackName,
  stageHelp,
  stagePanels,
  stepSettings,
  tensorCaption,
  viewOfStage,
  type Stack,
} from '../model/stage-values.js';
import { fitColumns, gridWidth } from '../ui/heatmap.js';
import '../ui/legend.js';

/** The most cells one heatmap draws; wider tensors show their first features (the Trace JSON has them all). */
export const MAX_CELLS = 8192;

export class TensorView extends LitElement {
  static override properties = {
    trace: { attribute: false },
    stack: { type: String },
    layer: { type: Number },
    sequence: { type: Number },
    tensor: { type: String },
  };
  declare trace: Trace | null;
  declare stack: Stack;
  declare layer: number;
  declare sequence: number;
  /** The tensor's name inside its stack ('self_attn.q_heads', 'norm1') or 'input'. */
  declare tensor: string;

  constructor() {
    super();
    this.trace = null;
    this.stack = 'encoder';
    this.layer = 0;
    this.sequence = 0;
    this.tensor = 'self_attn.q_heads';
  }

  static override styles = css`
    :host { display: block; font: 0.9rem system-ui, sans-serif; }
    .picker { display: flex; flex-wrap: wrap; gap: 0.25rem; align-items: center; margin: 0 0 0.5rem; padding: 0; list-style: none; }
    .picker button { font: inherit; font-size: 0.8rem; padding: 0.2rem 0.45rem; border: 1px solid var(--ap-border-strong); border-radius: 4px;
      background: var(--ap-surface); color: var(--ap-text); cursor: pointer; }
    .picker button[aria-pressed='true'] { background: var(--ap-accent); border-color: var(--ap-accent); color: var(--ap-on-accent); font-weight: 600; }
    .picker button:focus-visible { outline: 3px solid var(--ap-focus); outline-offset: 1px; }
    .picker .absent { font-size: 0.78rem; color: var(--ap-warn); border: 1px dashed var(--ap-warn-border); border-radius: 4px; padding: 0.15rem 0.4rem; }
    .picker .parallel { display: inline-flex; gap: 0.15rem; padding: 0.1rem; border: 1px solid var(--ap-border); border-radius: 5px; }
    .help { color: var(--ap-text-muted); margin: 0 0 0.4rem; }
    .absent-note { color: var(--ap-warn); }
    /* Its columns: as many as fit the drawings at GRID_CELL px cells (set from the panels, below). */
    .heads { display: grid; gap: 1rem; }
    .panel { min-width: 0; }
    table.stats { border-collapse: collapse; font: 0.78rem ui-monospace, monospace; margin-top: 0.4rem; }
    table.stats th, table.stats td { border: 1px solid var(--ap-border); padding: 0.1rem 0.4rem; text-align: right; }
    table.stats caption { text-align: left; font: 0.8rem system-ui, sans-serif; color: var(--ap-text-muted); }
    ap-legend { margin-bottom: 0.5rem; }
  `;

  #choose(tensor: string) {
    this.dispatchEvent(
      new CustomEvent('setting-input', { detail: { name: 'tensor', raw: tensor }, bubbles: true, composed: true }),
    );
  }

  #picker(trace: Trace) {
    const rows = flowRows(trace, this.stack, this.layer);
    const button = (name: string, full: string) => html`<button type="button" data-tensor=${name}
      aria-pressed=${name === this.tensor ? 'true' : 'false'} title=${stageHelp(full)} @click=${() => this.#choose(name)}>${stepTitle(name === 'input' ? `${this.stack}.input` : full)}</button>`;
    return html`<ul class="picker" aria-label="Tensor">${rows.map((row) => {
      if (row.kind === 'no-residual') return html`<li class="absent" data-absent="residual">no residual add</li>`;
      const steps = row.steps.filter((s) => viewOfStage(s.full).view === 'values');
      if (steps.length === 0) return nothing;
      if (row.kind === 'parallel') return html`<li class="parallel">${steps.map((s) => button(s.name, s.full))}</li>`;
      return steps.map((s) => html`<li>${button(s.name, s.full)}</li>`);
    })}</ul>`;
  }

  override render() {
    const trace = this.trace;
    if (!trace) return nothing;
    const stage = resolveTensor(trace, this.stack, this.layer, this.tensor);
    if (!stage) {
      const residualOff =
        /^residual\d$/.test(this.tensor) &&
        flowRows(trace, this.stack, this.layer).some((r) => r.kind === 'no-residual');
      return html`${this.#picker(trace)}<p class="absent-note" data-testid="tensor-absent">${
        residualOff
          ? `No ${this.tensor} here: residual connections are off, so nothing is added to the sub-layer\u2019s output.`
          : `\u201c${this.tensor}\u201d is not recorded in layer ${this.layer} of the ${this.stack}: pick one of the tensors above.`
      }</p>`;
    }
    const full = stage.name;
    if (viewOfStage(full).view !== 'values') {
      // Scores, weights and masks have views of their own (with the blocked cells hatched).
      const open = () => {
        for (const detail of stepSettings(full, trace.mode))
          this.dispatchEvent(new CustomEvent('setting-input', { detail, bubbles: true, composed: true }));
      };
      return html`${this.#picker(trace)}<p class="help">${stackName(full)} is drawn by its own view:
        <button type="button" data-testid="open-elsewhere" @click=${open}>open it</button></p>`;
    }
    const panels = stagePanels(stage, this.sequence);
    // One colour scale for all heads of the tensor (this sentence), symmetric around 0.
    const scale = scoreScale(Float32Array.from(panels.flatMap((p) => Array.from(p.values))));
    // Each panel as drawn (its first MAX_CELLS cells) with its labels; the grid's columns fit the widest.
    const drawn = panels.map((whole) => {
      const panel = firstColumns(whole, MAX_CELLS);
      const rowLabels = axisLabels(trace, full, panel.rowAxis, panel.rows, this.sequence);
      const colLabels = axisLabels(trace, full, panel.colAxis, panel.cols, this.sequence);
      const shape = { ...panel, rowLabels, colLabels, showNumbers: panel.cols <= 10 };
      return { whole, panel, rowLabels, colLabels, shape };
    });
    return html`${this.#picker(trace)}
      <p class="help">${stageHelp(full)}</p>
      <ap-legend .scale=${scale} label="Value:" no-blocked></ap-legend>
      <div class="heads" data-count=${panels.length} style=${`grid-template-columns:${fitColumns(Math.max(...drawn.map((d) => gridWidth(d.shape))), drawn.length)}`}>${drawn.map(
        ({ whole, panel, rowLabels, colLabels }) => {
          const stats = rowStats(whole);
          return html`<div class="panel"><ap-heatmap data-tensor=${full} data-head=${panel.head ?? nothing}
          .values=${panel.values} .rows=${panel.rows} .cols=${panel.cols} .rowLabels=${rowLabels} .colLabels=${colLabels}
          .scale=${scale} row-axis=${panel.rowAxis} col-axis=${panel.colAxis} col-unit="features"
          ?show-numbers=${panel.cols <= 10}
          caption=${tensorCaption(stage, { sequence: this.sequence, head: panel.head ?? undefined, layer: stage.layer })}
          .describeCell=${(i: number, j: number) => [
            `${rowLabels[i]?.label ?? ''} (position ${i}), ${panel.colAxis} ${j}`,
            `value ${formatValue(panel.values[i * panel.cols + j])}`,
            `this token: mean ${formatValue(stats[i].mean)}, std ${formatValue(stats[i].std)}`,
          ]}></ap-heatmap>
          ${
            panel.cols < whole.cols
              ? html`<p class="help" data-testid="first-columns">Showing ${panel.colAxis} 0–${panel.cols - 1} of
            ${whole.cols} (the statistics below use all ${whole.cols}; Trace JSON has every value).</p>`
              : nothing
          }
          ${
            panels.length === 1 && panel.rowAxis
              ? html`<table class="stats" data-stats=${full}>
            <caption>Per token, over its ${whole.cols} features (${panel.colAxis})</caption>
            <thead><tr><th scope="col">token</th><th scope="col">mean</th><th scope="col">std</th><th scope="col">length ‖x‖</th></tr></thead>
            <tbody>${stats.map(
              (
                s,
                i,
              ) => html`<tr><th scope="row">${tokenLabel(rowLabels[i]?.label ?? '')}</th><td>${formatValue(s.mean)}</td>
              <td>${formatValue(s.std)}</td><td>${formatValue(s.norm)}</td></tr>`,
            )}</tbody></table>${
              trace.config.normType === 'rmsnorm' && /(^|\.)(post_)?norm\d$|final_norm$/.test(full)
                ? html`<p class="help" data-testid="rmsnorm-note">RMSNorm divides each token by its root mean square
                    (‖x‖ / √${whole.cols}) and scales it: unlike LayerNorm it does not subtract the mean, so the mean
                    column keeps its values, where a LayerNorm would give 0.</p>`
                : nothing
            }`
              : nothing
          }</div>`;
        },
      )}</div>`;
  }
}
customElements.define('ap-tensor-view', TensorView);
