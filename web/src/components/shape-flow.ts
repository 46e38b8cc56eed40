// <ap-shape-flow>: every tensor of one layer on its way from (B, S, E) through the
// head split, the scores and back, each with its axis names and sizes.
import { LitElement, css, html } from 'lit';
import type { FlowStep } from '../view/trace-model.js';

const EXPLAIN: Record<string, string> = {
  input: 'token vectors + positions',
  'self_attn.q_proj': 'Q = x W_qᵀ + b, row by row',
  'self_attn.q_split': 'E read as H blocks of d_k',
  'self_attn.q_heads': 'heads moved before positions',
  'self_attn.scores': 'Q Kᵀ per head',
  'self_attn.weights': 'softmax over keys',
  'self_attn.context': 'weights V per head',
  'self_attn.merged': 'heads merged back to E',
  'self_attn.output': 'output projection mixes heads',
  'cross_attn.q_proj': 'queries from the decoder',
  'cross_attn.k_proj': 'keys from the encoder output',
  'cross_attn.scores': 'Sq × Sk: target × source',
  'ffn.hidden': 'linear1, row by row',
  output: 'the layer’s output',
};

export class ShapeFlow extends LitElement {
  static override properties = { steps: { attribute: false }, heading: { type: String } };
  declare steps: FlowStep[];
  declare heading: string;

  constructor() {
    super();
    this.steps = [];
    this.heading = '';
  }

  static override styles = css`
    :host { display: block; font: 0.85rem system-ui, sans-serif; }
    ol { list-style: none; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 0.3rem 0.2rem; align-items: center; }
    li { display: flex; align-items: center; gap: 0.2rem; }
    li + li::before { content: '→'; color: #777; margin-right: 0.2rem; }
    .step { border: 1px solid #bbb; border-radius: 6px; padding: 0.25rem 0.45rem; background: #fafafa; }
    .step.changed { border-color: #1a73e8; background: #eef4fe; }
    .name { font-weight: 600; }
    code { font: 0.8rem ui-monospace, monospace; }
    .why { color: #555; font-size: 0.75rem; display: block; }
  `;

  override render() {
    let previous = '';
    return html`${this.heading ? html`<h3>${this.heading}</h3>` : ''}<ol aria-label="shape flow">
      ${this.steps.map((step) => {
        const shape = `(${step.axes.map((a, i) => `${a}=${step.shape[i]}`).join(', ')})`;
        const changed = previous !== '' && previous !== step.shape.join();
        previous = step.shape.join();
        return html`<li><span class="step ${changed ? 'changed' : ''}" data-stage=${step.name}>
          <span class="name">${step.name}</span> <code>${shape}</code>
          ${EXPLAIN[step.name] ? html`<span class="why">${EXPLAIN[step.name]}</span>` : ''}</span></li>`;
      })}
    </ol>`;
  }
}
customElements.define('ap-shape-flow', ShapeFlow);
