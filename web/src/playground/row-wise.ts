// <ap-row-wise>: the Row by row view. The input the projections read (S, E), and Q, K, V
// (S, E) beside it, then, for every word the sentence repeats, how far apart its two input
// rows are and how far apart its two rows of Q, K, V and of attention's output are
// (model/rows-model.ts). Equal input rows giving equal Q, K, V rows, with different
// neighbours, is the evidence that one linear layer is applied to each row on its own;
// attention's output may differ, since it reads the other rows. Data in, nothing out.
import { html, nothing } from 'lit';
import { formatValue } from '../model/words.js';
import { scoreScale } from '../ui/colors.js';
import { ROW_OUTPUTS, rowWise, type RowOutput, type RowPair, type RowWise } from '../model/rows-model.js';
import { stackName, tensorShape } from '../model/stage-values.js';
import { paddedLabels } from '../model/trace-model.js';
import { LessonView } from './lesson-view.js';
import '../ui/matrix.js';

const TITLES: Record<RowOutput, string> = {
  q_proj: 'Q = x · W_qᵀ + b_q',
  k_proj: 'K = x · W_kᵀ + b_k',
  v_proj: 'V = x · W_vᵀ + b_v',
  output: 'attention output',
};
const PROJECTIONS: RowOutput[] = ['q_proj', 'k_proj', 'v_proj'];
/** Below this, two rows count as equal (they are computed by the same float32 arithmetic). */
const EQUAL = 1e-6;

function verdict(r: RowWise, pair: RowPair, untrained: boolean) {
  const quote = `“${pair.token}” (positions ${pair.a} and ${pair.b})`;
  // Advise only what this model allows: a trained or pretrained model's positions are part of it.
  if (pair.inputDifference > EQUAL)
    return html`<p class="note warn" data-verdict="input-differs">The input rows of ${quote} differ (max |Δ| ${formatValue(pair.inputDifference)}):
      the position information added to each token makes every row different, so Q, K and V differ too. ${
        untrained
          ? 'Untick “Positional encoding” and a repeated word has equal input rows.'
          : 'This model was built with its positions and cannot drop them; pick the untrained model and untick ' +
            '“Positional encoding” to see a repeated word with equal input rows.'
      }</p>`;
  const projectionsEqual = PROJECTIONS.every((name) => (pair.outputDifference[name] ?? 0) <= EQUAL);
  const attention = pair.outputDifference.output;
  return html`<p class="note" data-verdict=${projectionsEqual ? 'row-wise' : 'not-row-wise'}>${
    projectionsEqual
      ? html`<span class="ok">Equal input rows give equal rows of Q, K and V</span> for ${quote}, although their neighbours differ:
      each projection reads its own row and nothing else, with the same W for every row.`
      : html`<span class="bad">Equal input rows gave different projections</span> for ${quote}.`
  }
    ${
      attention === undefined
        ? nothing
        : attention > EQUAL
          ? html`Attention’s output rows differ (max |Δ| ${formatValue(attention)}): attention reads the other rows${r.length > pair.b ? ', and the two positions see different keys' : ''}.`
          : html`Attention’s output rows are equal too: both queries are equal and see the same keys.`
    }</p>`;
}

/** max |row a − row b| over the sentence's rows of two different words: above EQUAL, the rows tell the words apart. */
function distinctRows(m: RowWise['x'], tokens: string[]): number {
  let smallest = Infinity;
  for (let a = 0; a < tokens.length; a++)
    for (let b = a + 1; b < tokens.length; b++) {
      if (tokens[a] === tokens[b]) continue;
      let d = 0;
      for (let f = 0; f < m.cols; f++) d = Math.max(d, Math.abs(m.values[a * m.cols + f] - m.values[b * m.cols + f]));
      smallest = Math.min(smallest, d);
    }
  return smallest;
}

export class RowWiseView extends LessonView {
  static override properties = { ...LessonView.properties, untrained: { type: Boolean } };
  /** The untrained playground model (its positional encoding can be switched off), not a trained or pretrained one. */
  declare untrained: boolean;

  constructor() {
    super();
    this.untrained = false;
  }

  override render() {
    if (!this.trace) return nothing;
    const r = rowWise(this.trace, this.block, this.layer, this.sequence);
    if (!r)
      return html`<p class="note" data-verdict="none">${
        this.block === 'decoder.cross_attn'
          ? 'Cross-attention’s K and V read the encoder’s rows: choose a self-attention block.'
          : 'This trace did not record the projections’ input and output (a long text on a large model keeps only the attention stages).'
      }</p>`;
    const labels = paddedLabels(r.tokens, r.x.rows).map((l) => l.label);
    const first = r.pairs.find((p) => p.inputDifference <= EQUAL) ?? r.pairs[0];
    const highlight = first ? [first.a, first.b] : [];
    const cell = Math.max(3, Math.min(10, Math.floor(420 / r.e)));
    const matrix = (
      name: string,
      m: RowWise['x'],
      title: string,
    ) => html`<figure data-matrix=${name}><figcaption>${title}</figcaption>
      <ap-matrix .values=${m.values} .rows=${m.rows} .cols=${m.cols} .rowLabels=${labels} .scale=${scoreScale(m.values)}
        .highlight=${highlight} cell=${cell} label=${`${title}: ${m.rows} rows of ${m.cols}`}></ap-matrix></figure>`;
    const outputs = ROW_OUTPUTS.filter((name) => r.outputs[name]);
    return html`
      <p class="formula" data-testid="rows-formula">Each projection is one linear layer, <code>y = x · Wᵀ + b</code> with W: E × E =
        ${r.e} × ${r.e}. The same W multiplies every row (position) of <code>${tensorShape(r.input)}</code>, so
        (S, E) = (${r.x.rows}, ${r.e}) comes out (S, E) = (${r.x.rows}, ${r.e}): the rows are carried along, not mixed.</p>
      <div class="side">
        ${matrix('input', r.x, `x: ${stackName(r.input.name)} (S, E)`)}
        ${PROJECTIONS.filter((name) => r.outputs[name]).map((name) => matrix(name, r.outputs[name]!, `${TITLES[name]} (S, E)`))}
      </div>
      ${this.#distinctness(r)}
      ${
        r.pairs.length === 0
          ? html`<p class="note warn" data-verdict="no-pair">No word appears twice in this sentence. Repeat one (“the cat sat on the
          mat”) to compare two rows that hold the same word.</p>`
          : html`<p class="table-caption" id="row-pairs-caption">Each repeated word: the largest difference between its two
            rows, max |row a − row b|</p>
            <div class="scroll"><table data-testid="row-pairs" aria-labelledby="row-pairs-caption">
            <thead><tr><th scope="col">word</th><th scope="col">rows</th><th scope="col">input x</th>
              ${outputs.map((name) => html`<th scope="col">${name === 'output' ? 'attention output' : name.slice(0, 1).toUpperCase()}</th>`)}</tr></thead>
            <tbody>${r.pairs.map(
              (p) => html`<tr data-pair=${`${p.a}-${p.b}`}><th scope="row">${p.token}</th><td>${p.a}, ${p.b}</td>
              <td data-kind="input" data-value=${String(p.inputDifference)}>${formatValue(p.inputDifference)}</td>
              ${outputs.map((name) => html`<td data-kind=${name} data-value=${String(p.outputDifference[name])}>${formatValue(p.outputDifference[name]!)}</td>`)}</tr>`,
            )}
            </tbody></table></div>
          ${verdict(r, first, this.untrained)}`
      }`;
  }

  /**
   * Equal rows for a repeated word mean something only if different words get different rows: the smallest
   * difference between two different words' rows, of the input and of Q and K (0 when the weights ignore the words).
   */
  #distinctness(r: RowWise) {
    const words = new Set(r.tokens).size;
    if (words < 2) return nothing;
    const parts = (['input', 'q_proj', 'k_proj'] as const).map((name) => {
      const m = name === 'input' ? r.x : r.outputs[name];
      return m ? { name, value: distinctRows(m, r.tokens) } : null;
    });
    const label = { input: 'input x', q_proj: 'Q', k_proj: 'K' };
    const same = parts.filter((p) => p && p.value <= EQUAL).map((p) => label[p!.name]);
    return html`<p class="note ${same.length ? 'warn' : ''}" data-testid="distinct-rows">Different words, different rows:
      the closest two rows of different words differ by ${parts.map((p, i) =>
        p
          ? html`${i ? ', ' : ''}<span data-kind=${p.name} data-value=${String(p.value)}>${label[p.name]}
              ${formatValue(p.value)}</span>`
          : nothing,
      )}${
        same.length
          ? html` — but ${same.join(' and ')} give${same.length === 1 ? 's' : ''} every word the same row, so equal rows
            below prove nothing: these weights ignore the words there.`
          : '.'
      }</p>`;
  }
}

customElements.define('ap-row-wise', RowWiseView);

declare global {
  interface HTMLElementTagNameMap {
    'ap-row-wise': RowWiseView;
  }
}
