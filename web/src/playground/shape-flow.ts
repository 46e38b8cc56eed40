// <ap-shape-flow>: every tensor of one layer on its way from (B, S, E) through the head
// split, the scores and back, each with its axis names and sizes, drawn top to bottom:
// Q, K and V side by side (three projections of one input), the weight shapes where a
// weight applies (W_q split into H blocks of d_k), and where the residual adds and the
// norm applies. Each step is a button that opens its values (the view of that tensor):
// it sends 'setting-input' events for the settings that show it (stepSettings).
import { LitElement, css, html, nothing } from 'lit';
import type { Trace } from 'attention-playground';
import { betweenWeights, type FlowRow, type FlowStep } from '../model/flow-model.js';
import { describeShape } from '../model/trace-model.js';
import { stageHelp, stepSettings } from '../model/stage-values.js';
import { headColor } from './views.js';

export class ShapeFlow extends LitElement {
  static override properties = {
    rows: { attribute: false },
    heading: { type: String },
    mode: { type: String },
    blocks: { attribute: false },
    activation: { type: String },
  };
  /** The FFN's activation, named in the gap between W_1 and W_2 ('' when unknown). */
  declare activation: string;
  declare rows: FlowRow[];
  declare heading: string;
  /** The trace's mode: in cross mode a step also picks its attention block. */
  declare mode: Trace['mode'];
  /** W_q's split into H row blocks of d_k, drawn beside the head split (null: not recorded). */
  declare blocks: { heads: number; dK: number } | null;

  constructor() {
    super();
    this.rows = [];
    this.heading = '';
    this.mode = 'encoder';
    this.blocks = null;
    this.activation = '';
  }

  static override styles = css`
    :host { display: block; font: 0.85rem system-ui, sans-serif; margin-bottom: 1rem; }
    ol { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; align-items: flex-start; gap: 0; }
    li.row { display: flex; flex-wrap: wrap; align-items: center; gap: 0.3rem 0.6rem; }
    li.row + li.row::before { content: '↓'; color: var(--ap-text-muted); display: block; width: 100%; padding-left: 1.2rem; line-height: 1.1; }
    .steps { display: flex; flex-wrap: wrap; gap: 0.3rem; }
    .parallel .steps { border-left: 3px solid var(--ap-border-strong); padding-left: 0.4rem; }
    button.step { font: inherit; text-align: left; border: 1px solid var(--ap-border-strong); border-radius: 6px; padding: 0.25rem 0.45rem;
      background: var(--ap-surface); cursor: pointer; color: inherit; }
    button.step:hover { border-color: var(--ap-accent); }
    button.step:focus-visible { outline: 3px solid var(--ap-focus); outline-offset: 1px; }
    .residual button.step { background: var(--ap-ok-soft); border-color: var(--ap-ok-border); }
    .norm button.step { background: var(--ap-norm-soft); border-color: var(--ap-norm-border); }
    .name { font-weight: 600; }
    code { font: 0.8rem ui-monospace, monospace; }
    .why { color: var(--ap-text-muted); font-size: 0.75rem; display: block; }
    .note { color: var(--ap-text); font-size: 0.78rem; max-width: 34rem; }
    .no-residual .note { color: var(--ap-warn); border: 1px dashed var(--ap-warn-border); border-radius: 6px; padding: 0.2rem 0.45rem; }
    .wq { display: inline-flex; flex-direction: column; border: 1px solid var(--ap-border-strong); width: 4.5rem; font-size: 0.65rem; }
    .wq span { color: #fff; text-align: center; line-height: 1.3; }
    .between { font-size: 0.8rem; border: 1px solid var(--ap-border); border-left: 3px solid var(--ap-norm-border); border-radius: 6px;
      padding: 0.3rem 0.6rem; margin: 0 0 0.6rem; max-width: 40rem; }
    .between p, .between ul { margin: 0.1rem 0; }
    .between ul { padding-left: 1.1rem; }
  `;

  #open(step: FlowStep) {
    for (const detail of stepSettings(step.full, this.mode, step.name))
      this.dispatchEvent(new CustomEvent('setting-input', { detail, bubbles: true, composed: true }));
  }

  #step(step: FlowStep) {
    return html`<button type="button" class="step" data-stage=${step.name} title=${`Open the values of ${step.name}`}
      @click=${() => this.#open(step)}>
      <span class="name">${step.name}</span> <code>${describeShape(step.axes, step.shape)}</code>
      <span class="why">${stageHelp(step.full)}</span></button>`;
  }

  /** W_q as E rows cut into H blocks of d_k, one colour per head (the heads' colours of the line view). */
  #weightBlocks(row: FlowRow) {
    if (!this.blocks || !row.steps.some((s) => s.name.endsWith('q_split'))) return nothing;
    const { heads, dK } = this.blocks;
    return html`<span class="wq" role="img" aria-label=${`W_q: ${heads} blocks of ${dK} rows, one per head`} data-testid="wq-blocks">
      ${Array.from({ length: heads }, (_, h) => html`<span style=${`background:${headColor(h)}`}>head ${h}: ${dK}</span>`)}</span>`;
  }

  /** Seed 002: what stands between one weight matrix and the next (never two linear layers in a row). */
  #between() {
    const gaps = betweenWeights(this.rows, this.activation);
    if (gaps.length === 0) return nothing;
    return html`<div class="between" data-testid="between"><p>Between one weight matrix and the next there is
      always something that is not linear (two linear layers in a row would be just one):</p><ul>
      ${gaps.map(
        (g) => html`<li data-from=${g.from} data-to=${g.to} data-ops=${g.ops.map((o) => o.name).join(',')}>
        <strong>${g.from} → ${g.to}</strong>: ${g.ops.length ? g.ops.map((o) => o.what).join('; then ') : 'nothing'}</li>`,
      )}</ul></div>`;
  }

  override render() {
    return html`${this.heading ? html`<h3>${this.heading}</h3>` : nothing}${this.#between()}<ol aria-label="shape flow">
      ${this.rows.map(
        (row) => html`<li class="row ${row.kind}" data-kind=${row.kind}>
        ${row.steps.length ? html`<span class="steps">${row.steps.map((s) => this.#step(s))}</span>` : nothing}
        ${this.#weightBlocks(row)}
        ${row.note ? html`<span class="note">${row.note}</span>` : nothing}</li>`,
      )}
    </ol>`;
  }
}
customElements.define('ap-shape-flow', ShapeFlow);
