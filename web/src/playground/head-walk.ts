// <ap-head-walk>: the Step by step view. One head of one layer, one sentence, as the
// sequence attention computes: Q, K, V of the head (S, d_k) → scores Q·Kᵀ (Sq, Sk) → ÷ √d_k
// → mask (−∞) → softmax over the keys → context = weights · V (Sq, d_k). Each step states
// its shapes, draws its matrix, and prints one query row twice: as the engine recorded it
// and as recomputed here from the step above (model/walk-model.ts), with a check mark where
// they agree. The followed row is this element's own choice; data in, nothing out.
import { html, nothing } from 'lit';
import { MINUS_INFINITY, formatValue } from '../model/words.js';
import { scoreScale, weightScale, type ColorScale } from '../ui/colors.js';
import { axisTokens, paddedLabels } from '../model/trace-model.js';
import {
  agrees,
  headWalk,
  maskedRow,
  residualRow,
  type HeadWalk,
  type Matrix,
  type WalkStep,
} from '../model/walk-model.js';
import { stackName } from '../model/stage-values.js';
import { LessonView } from './lesson-view.js';
import '../ui/matrix.js';

/** Context rows print their first features only (d_k can be 64 or more). */
const CONTEXT_FEATURES = 8;

const STEP_TEXT: Record<WalkStep['name'], { title: string; how: (w: HeadWalk) => string }> = {
  scores: { title: '1. Scores: Q · Kᵀ', how: (w) => `q_i · k_j, a sum over the d_k = ${w.dK} features` },
  scaled: {
    title: '2. Scale: ÷ √d_k',
    how: (w) => (w.divisor === 1 ? 'scaling is off: the scores as they are' : `score ÷ ${formatValue(w.divisor)}`),
  },
  masked: {
    title: `3. Mask: ${MINUS_INFINITY} where blocked`,
    how: (w) =>
      `the scaled score, or ${MINUS_INFINITY} where the key is padding${
        w.causal ? ' or in the future' : ' (no causal mask here)'
      }${w.additiveRow ? ', plus the float mask' : ''}`,
  },
  weights: {
    title: '4. Softmax over each row (over the keys)',
    how: () => 'exp(masked − row max) ÷ the row’s sum of exp',
  },
  context: { title: '5. Context: weights · V', how: () => 'Σ_j weight_ij · v_j, feature by feature' },
};

function shapeLine(step: WalkStep['name'], w: HeadWalk): string {
  const [sq, sk, dk] = [w.sq, w.sk, w.dK];
  switch (step) {
    case 'scores':
      return `(Sq, d_k) · (d_k, Sk) → (Sq, Sk) = (${sq}, ${dk}) · (${dk}, ${sk}) → (${sq}, ${sk})`;
    case 'context':
      return `(Sq, Sk) · (Sk, d_k) → (Sq, d_k) = (${sq}, ${sk}) · (${sk}, ${dk}) → (${sq}, ${dk})`;
    default:
      return `(Sq, Sk) = (${sq}, ${sk}), element by element${step === 'weights' ? ', each row on its own' : ''}`;
  }
}

export class HeadWalkView extends LessonView {
  static override properties = { ...LessonView.properties, head: { type: Number }, row: { state: true } };
  declare head: number;
  /** The followed query row (-1: a row where the mask bites, model/walk-model.ts maskedRow). */
  declare row: number;

  constructor() {
    super();
    this.head = 0;
    this.row = -1;
  }

  #matrix(m: Matrix, scale: ColorScale, rowLabels: string[], label: string, blocked?: Uint8Array, highlight = -1) {
    return html`<ap-matrix .values=${m.values} .rows=${m.rows} .cols=${m.cols} .rowLabels=${rowLabels} .scale=${scale}
      .blocked=${blocked} .highlight=${[highlight]} cell=${Math.max(6, Math.min(16, Math.floor(360 / m.cols)))} label=${label}></ap-matrix>`;
  }

  #rowTable(step: WalkStep, w: HeadWalk, columns: string[]) {
    const n = Math.min(step.engineRow.length, step.name === 'context' ? CONTEXT_FEATURES : Infinity);
    // Blocked keys are greyed from the mask on; the context's columns are features, not keys.
    const blocked = (j: number) =>
      (step.name === 'masked' || step.name === 'weights') && w.blocked[w.row * w.sk + j] === 1;
    const cells = (row: ArrayLike<number>, kind: string) =>
      Array.from(
        { length: n },
        (_, j) => html`<td class=${blocked(j) ? 'blocked' : ''}
      data-kind=${kind} data-col=${j} data-value=${String(row[j])}>${formatValue(row[j])}</td>`,
      );
    const ok = agrees(step);
    let sum = 0;
    if (step.name === 'weights') for (const x of step.engineRow) sum += x;
    // The caption stands above the scroll box, not inside it: a wide row must not cut the sentence off on a phone.
    const captionId = `row-caption-${step.name}`;
    return html`<p class="table-caption" id=${captionId}>Row ${w.row} (“${this.#queryTokens()[w.row] ?? '<pad>'}”): ${STEP_TEXT[step.name].how(w)}${
      step.engineRow.length > n ? ` (first ${n} of ${step.engineRow.length} features)` : ''
    }</p>
      <div class="scroll"><table data-row-of=${step.name} aria-labelledby=${captionId}>
      <thead><tr><th scope="col"></th>${columns.slice(0, n).map((c) => html`<th scope="col">${c}</th>`)}<th scope="col">check</th></tr></thead>
      <tbody>
        <tr><th scope="row">engine</th>${cells(step.engineRow, 'engine')}<td rowspan="2" data-agrees=${ok ? '1' : '0'}
          data-max-difference=${String(step.maxDifference)} class=${ok ? 'ok' : 'bad'}>${ok ? '✓' : '✗'} max |Δ| ${formatValue(step.maxDifference)}</td></tr>
        <tr><th scope="row">recomputed</th>${cells(step.recomputedRow, 'recomputed')}</tr>
      </tbody></table></div>
      ${
        step.name === 'weights'
          ? html`<p class="note" data-testid="row-sum" data-value=${String(sum)}>The row sums to ${formatValue(sum)}${
              w.blocked.subarray(w.row * w.sk, (w.row + 1) * w.sk).some((b) => b === 1)
                ? '; every blocked key gets exactly 0'
                : ''
            }.</p>`
          : nothing
      }`;
  }

  /** Where the mask bites in the followed row: how many keys it blocks, and why, or that it blocks none here. */
  #maskNote(w: HeadWalk) {
    const keys = axisTokens(this.trace!, this.block).keys[this.sequence]?.length ?? w.sk;
    let future = 0,
      earlier = 0,
      padding = 0,
      anywhere = 0;
    for (let j = 0; j < w.sk; j++) {
      if (!w.blocked[w.row * w.sk + j]) continue;
      if (j >= keys) padding++;
      else if (j > w.row) future++;
      else earlier++; // a sliding window's (a pretrained model's), or a mask of the caller's
    }
    for (const b of w.blocked) anywhere += b;
    const words = (n: number, what: string) => `${n} ${what} word${n === 1 ? '' : 's'}`;
    const parts = [
      future ? `${words(future, 'later')}${w.causal ? ' (the causal mask)' : ''}` : '',
      earlier ? words(earlier, 'earlier') : '',
      padding ? `${padding} padding key${padding === 1 ? '' : 's'}` : '',
    ].filter(Boolean);
    const blockedHere = future + earlier + padding;
    return html`<p class="note" data-testid="mask-bites" data-blocked=${blockedHere}>${
      parts.length
        ? `In row ${w.row} the mask blocks ${parts.join(' and ')}: ${blockedHere} of ${w.sk} keys get ${MINUS_INFINITY} here.`
        : anywhere
          ? `Row ${w.row} blocks no key; other rows do: follow one of them to see the mask bite.`
          : `The mask blocks nothing in this sentence: ${
              w.causal ? 'it has one word' : 'this block has no causal mask'
            } and no padding. ${w.causal ? '' : 'A decoder’s self-attention, or a shorter sentence of the batch, shows it bite.'}`
    }</p>`;
  }

  /**
   * After the heads: W_o mixes them, and the residual adds the block's input x back (not Q): row `w.row` of the
   * residual as the engine recorded it and recomputed as x + output.
   */
  #residual(w: HeadWalk, token: string) {
    const r = residualRow(this.trace!, this.block, this.layer, this.sequence, w.row);
    if (!r)
      return html`<li data-step="residual"><h3>6. Then: W_o mixes the heads, and the residual</h3>
        <p class="note">No residual add after this block here (residual connections are off, or not recorded): the
        output goes on alone.</p></li>`;
    const n = Math.min(r.engineRow.length, CONTEXT_FEATURES);
    const ok = agrees(r);
    const cells = (row: ArrayLike<number>, kind: string) =>
      Array.from(
        { length: n },
        (_, f) => html`<td data-kind=${kind} data-col=${f} data-value=${String(row[f])}>${formatValue(row[f])}</td>`,
      );
    return html`<li data-step="residual"><h3>6. Then: W_o mixes the heads, and the residual adds x — not Q</h3>
      <p class="note" data-testid="residual-what">Every head’s context is laid side by side (S, E) and multiplied by
        W_o; then the residual connection adds back <strong>x</strong>, what this block read
        (<code>${stackName(r.x.name)}</code>), untouched: <code>${stackName(r.residual.name)} = x + output</code>. Not Q:
        Q is x after W_q, only used to score the keys. Adding Q instead would be off by max |Δ|
        <span data-testid="q-difference" data-value=${String(r.qDifference)}>${formatValue(r.qDifference)}</span> in this row.</p>
      <p class="table-caption" id="row-caption-residual">Row ${w.row} (“${token}”): x + output, feature by feature
        (first ${n} of ${r.engineRow.length} features)</p>
      <div class="scroll"><table data-row-of="residual" aria-labelledby="row-caption-residual">
        <thead><tr><th scope="col"></th>${Array.from({ length: n }, (_, f) => html`<th scope="col">f${f}</th>`)}<th scope="col">check</th></tr></thead>
        <tbody>
          <tr><th scope="row">engine</th>${cells(r.engineRow, 'engine')}<td rowspan="2" data-agrees=${ok ? '1' : '0'}
            data-max-difference=${String(r.maxDifference)} class=${ok ? 'ok' : 'bad'}>${ok ? '✓' : '✗'} max |Δ| ${formatValue(r.maxDifference)}</td></tr>
          <tr><th scope="row">x + output</th>${cells(r.recomputedRow, 'recomputed')}</tr>
        </tbody></table></div></li>`;
  }

  #queryTokens(): string[] {
    return this.trace ? (axisTokens(this.trace, this.block).queries[this.sequence] ?? []) : [];
  }

  override render() {
    if (!this.trace) return nothing;
    const queries = this.#queryTokens();
    const keys = axisTokens(this.trace, this.block).keys[this.sequence] ?? [];
    let w = headWalk(this.trace, this.block, this.layer, this.sequence, this.head, Math.max(0, this.row));
    if (!w) return html`<p class="note">This trace has no per-head stages to follow.</p>`;
    if (this.row < 0) {
      const row = maskedRow(w.blocked, w.sq, w.sk, queries.length, keys.length);
      if (row !== w.row) w = headWalk(this.trace, this.block, this.layer, this.sequence, this.head, row)!;
    }
    const qLabels = paddedLabels(queries, w.sq).map((l) => l.label);
    const kLabels = paddedLabels(keys, w.sk).map((l) => l.label);
    const scoreColors = scoreScale(w.steps[0].matrix.values);
    const step = (s: WalkStep) => {
      const scale =
        s.name === 'weights' ? weightScale() : s.name === 'context' ? scoreScale(s.matrix.values) : scoreColors;
      const columns = s.name === 'context' ? Array.from({ length: w.dK }, (_, d) => `f${d}`) : kLabels;
      const blocked = s.name === 'masked' || s.name === 'weights' ? w.blocked : undefined;
      return html`<li data-step=${s.name}><h3>${STEP_TEXT[s.name].title}</h3>
        <p class="note" data-testid="shape">${shapeLine(s.name, w)}</p>
        ${this.#matrix(s.matrix, scale, qLabels, `${s.name} of head ${this.head}: ${s.matrix.rows} by ${s.matrix.cols}`, blocked, w.row)}
        ${s.name === 'masked' ? this.#maskNote(w) : nothing}
        ${this.#rowTable(s, w, columns)}</li>`;
    };
    return html`
      <p class="formula" data-testid="dk" data-dk=${w.dK} data-divisor=${String(w.divisor)}>Head ${this.head} of ${w.heads}:
        <code>d_k = d_model / H = ${w.dModel} / ${w.heads} = ${w.dK}</code>, so ${
          w.divisor === 1 ? 'the scores would be divided by' : 'the scores are divided by'
        } <code>√d_k = ${formatValue(Math.sqrt(w.dK))}</code>${w.divisor === 1 ? ' (scaling is off here)' : ''}:
        the size of one head’s key vectors, not the sentence length (${queries.length} tokens, padded to ${w.sq}).</p>
      <div class="picker"><label for="walk-row">Follow the query</label>
        <select id="walk-row" data-testid="walk-row" @change=${(e: Event) => {
          this.row = Number((e.target as HTMLSelectElement).value);
        }}>
          ${qLabels.map((t, i) => html`<option value=${i} ?selected=${i === w.row}>${i}: ${t}</option>`)}
        </select></div>
      <ol class="steps">
        <li data-step="qkv"><h3>0. This head’s Q, K and V: its d_k columns of each projection</h3>
          <p class="note" data-testid="shape">Q (Sq, d_k) = (${w.sq}, ${w.dK}); K and V (Sk, d_k) = (${w.sk}, ${w.dK})</p>
          <div class="side">
            ${(
              [
                ['Q', w.q, qLabels],
                ['K', w.k, kLabels],
                ['V', w.v, kLabels],
              ] as const
            ).map(
              ([name, m, labels]) => html`<figure>
              <figcaption>${name}</figcaption>
              ${this.#matrix(m, scoreScale(m.values), labels, `${name} of head ${this.head}`, undefined, name === 'Q' ? w.row : -1)}</figure>`,
            )}
          </div></li>
        ${w.steps.map(step)}
        ${this.#residual(w, queries[w.row] ?? '<pad>')}
      </ol>`;
  }
}

customElements.define('ap-head-walk', HeadWalkView);

declare global {
  interface HTMLElementTagNameMap {
    'ap-head-walk': HeadWalkView;
  }
}
