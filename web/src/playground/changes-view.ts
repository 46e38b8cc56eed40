// The "What changed" view: which rows of the selected layer moved between the current
// trace and a reference (the pinned baseline, or else the previous result). It says what
// it compares (both texts, the layer) and, when the two cannot be compared, why. Texts
// are Lit text bindings, never HTML. Pin and unpin send a bubbling 'baseline' event
// ({ pin: boolean }) that the playground answers.
import { html, nothing } from 'lit';
import { formatValue } from '../model/words.js';
import { compare, shortText, type Comparison, type Reference, type Snapshot } from '../model/comparison.js';
import { findStage, headSlice, type Block } from '../model/trace-model.js';
import { weightScale } from '../ui/colors.js';
import '../ui/matrix.js';

export interface ChangesContext {
  current: Snapshot;
  reference: Reference | null;
  block: Block;
  layer: number;
  sequence: number;
  /** The head whose weights the view draws before and after. */
  head: number;
}

function send(event: Event, pin: boolean) {
  event.target?.dispatchEvent(new CustomEvent('baseline', { detail: { pin }, bubbles: true, composed: true }));
}

function baselineBar(ctx: ChangesContext) {
  const pinned = ctx.reference?.pinned ?? false;
  const layers = ctx.current.trace.config.layers;
  const layer = `layer ${ctx.layer}${layers > 1 ? ` (of layers 0–${layers - 1})` : ''}`;
  const what = !ctx.reference
    ? html`Nothing to compare with yet: edit the text, or pin this result as the baseline.`
    : html`Comparing the current text “<q data-testid="current-text">${shortText(ctx.current.text)}</q>” with
      ${pinned ? 'the pinned baseline' : 'the previous result'}
      “<q data-testid="baseline-text">${shortText(ctx.reference.snapshot.text)}</q>”, <span data-testid="compared-layer">${layer}</span>.`;
  return html`<div class="baseline-bar" data-testid="baseline-bar" data-reference=${ctx.reference ? (pinned ? 'pinned' : 'previous') : 'none'}
      data-layer=${ctx.layer}>
    <p class="comparing" data-testid="comparing">${what}</p>
    <button type="button" data-action="pin" @click=${(e: Event) => send(e, true)}
      title="Keep comparing with this result while you edit">${pinned ? 'Pin this result instead' : 'Pin as baseline'}</button>
    ${
      pinned
        ? html`<button type="button" data-action="unpin" @click=${(e: Event) => send(e, false)}
      title="Compare with the previous result again">Unpin (compare with the previous result)</button>`
        : nothing
    }
  </div>`;
}

const MOVED = 1e-6;
/** The longest bar of the table (the largest change), in rem. */
const BAR_REM = 5;
/** A weight that moves by more than this (of a row summing to 1) has visibly moved. */
const WEIGHT_MOVED = 0.01;

type Compared = Extract<Comparison, { kind: 'compared' }>;

/** The table's columns after the token: the header's cells, and each cell's label where the table stacks. */
const COLUMNS = [
  'linear layer: Q projection',
  'linear layer: V projection',
  'attention weights (max |Δ|)',
  'attention output',
  'FFN input',
  'FFN output (an MLP)',
] as const;

/**
 * In a box narrower than the table (a phone), each token's row stacks: the token, then one line a column, named by
 * its header's text, so the FFN columns (the section's point) are on screen, not scrolled out at the right. The
 * bar's numbers sit in the cell's right padding, so a full-width bar keeps its number on its line. (.changes-box
 * before each rule: the playground's own table rules come later in the cascade.)
 */
const NARROW_TABLE = html`<style>
  .changes-box { container-type: inline-size; }
  @container (max-width: 36rem) {
    .changes-box :is(table, tbody, tr, th, td) { display: block; width: auto; }
    .changes-box table.changes { min-width: 0; }
    .changes-box table.changes thead { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); }
    .changes-box table.changes tr { padding: 0.3rem 0; border-bottom: 1px solid var(--ap-border); }
    .changes-box table.changes th[scope='row'] { border: 0; font-weight: 700; }
    .changes-box table.changes td { width: auto; border: 0; padding: 0.1rem 4.5rem 0.1rem var(--ap-space-2); white-space: nowrap; }
    .changes-box table.changes td::before { content: attr(data-label); display: block; white-space: normal; font-size: var(--ap-text-xs);
      color: var(--ap-text-muted); }
  }
</style>`;

/**
 * Seed 001's point in numbers: attention's mixing weights are computed from the words, so they move when a word is
 * edited (one head drawn before, after and the difference); the FFN, an MLP on each row, has fixed weights and moves
 * a row only from that row's own input.
 */
function mixingAndMlp(comparison: Compared, ctx: ChangesContext) {
  const { edited, weights, ffn, ffnInput, attention, after } = comparison;
  const movedRows = weights.filter((w) => w > WEIGHT_MOVED).length;
  const largest = Math.max(0, ...weights);
  const stage = (snapshot: Snapshot) => findStage(snapshot.trace, `${ctx.block}.weights`, ctx.layer);
  const [a, b] = [ctx.reference && stage(ctx.reference.snapshot), stage(ctx.current)];
  const head = a && b ? Math.min(ctx.head, b.shape[1] - 1) : 0;
  const n = after.length;
  // The real rows and keys only (a padded batch has more): the drawing is of this sentence.
  const crop = (values: ArrayLike<number>, cols: number) =>
    Float32Array.from({ length: n * n }, (_, k) => values[Math.floor(k / n) * cols + (k % n)]);
  let figure: unknown = nothing;
  if (a && b) {
    const [before, now] = [headSlice(a, ctx.sequence, head), headSlice(b, ctx.sequence, head)];
    const delta = Float32Array.from(now.values, (v, k) => Math.abs(v - before.values[k]));
    const deltaTop = Math.max(1e-6, ...crop(delta, now.cols));
    // The difference on a scale of its own (0 to its largest): on the weights' 0-1 scale a change of 0.2 would hardly show.
    const panel = (
      name: string,
      title: string,
      values: Float32Array,
    ) => html`<figure data-matrix=${name} style="margin: 0">
      <figcaption>${title}</figcaption><ap-matrix .values=${crop(values, now.cols)} .rows=${n} .cols=${n}
        .rowLabels=${after} .scale=${name === 'delta' ? weightScale(deltaTop) : weightScale()} .highlight=${edited} cell=${Math.max(8, Math.min(18, Math.floor(200 / n)))}
        label=${`${title}: ${n} by ${n}`}></ap-matrix></figure>`;
    figure = html`<div class="mixing" data-testid="mixing-weights" data-head=${head}
      style="display: flex; flex-wrap: wrap; gap: 0.6rem 1.2rem; align-items: flex-start; margin: 0.3rem 0">
      ${panel('before', `head ${head}’s weights before`, before.values)}
      ${panel('after', 'after the edit', now.values)}
      ${panel('delta', `|after − before| (0 to ${formatValue(deltaTop)})`, delta)}</div>`;
  }
  const edits = edited.filter((i) => i < n);
  const ownOutput = Math.max(0, ...edits.map((i) => attention[i]));
  const others = (rows: number[]) => Math.max(0, ...rows.filter((_, i) => !edits.includes(i)));
  const ffnEdited = ffn ? Math.max(0, ...edits.map((i) => ffn[i])) : 0;
  return html`<div class="mlp-vs-attention" data-testid="mlp-vs-attention">
    <p class="hint" data-testid="weights-moved" data-rows=${movedRows} data-largest=${String(largest)}>
      <strong>Attention’s weights are computed from the words.</strong> The edit changed the weights of
      ${movedRows} of ${n} rows by more than ${WEIGHT_MOVED} (the largest change: ${formatValue(largest)}): every word
      takes from the others in new proportions. The edited word’s own attention output moved
      <span data-testid="own-output" data-value=${String(ownOutput)}>‖Δ‖ ${formatValue(ownOutput)}</span>.</p>
    ${figure}
    ${
      ffn
        ? html`<p class="hint" data-testid="ffn-rows" data-edited=${String(ffnEdited)} data-others=${String(others(ffn))}>
        <strong>The FFN is an MLP: its weights W_1 and W_2 are fixed parameters</strong>, the same before and after the
        edit, and it works on each row on its own. It moved the edited row by ${formatValue(ffnEdited)} and every other
        row by at most ${formatValue(others(ffn))}: those rows moved only because ${
          ctx.layer === 0 ? 'attention, just before it,' : 'attention before it and the layers below'
        } had already moved what they read (the “FFN input” column${
          ffnInput ? `, at most ${formatValue(others(ffnInput))} there` : ''
        }).</p>`
        : nothing
    }</div>`;
}

function changesTable(comparison: Compared, ctx: ChangesContext) {
  const layer = ctx.layer;
  const { before, after, edited, linear, value, attention, settings, ffn, ffnInput, weights } = comparison;
  const max = Math.max(...linear, ...value, ...attention, ...(ffn ?? []), ...(ffnInput ?? []), 1e-9);
  // A model whose W_q reads only positions (the Positional heads preset) leaves Q as it was, edited row included.
  const qIgnoresWords =
    layer === 0 &&
    settings.length === 0 &&
    edited.length > 0 &&
    edited.every((i) => linear[i] <= MOVED && value[i] > MOVED);
  // One length for every column's bars (they share one max, so they compare across columns), and the number kept
  // on the bar's line: a bar as wide as its cell pushed the number under it.
  const bar = (v: number) =>
    html`<span style="white-space: nowrap"><span class="bar" style=${`width:${(BAR_REM * v) / max}rem`}></span><span
      class="num">${formatValue(v)}</span></span>`;
  const edits = edited.length
    ? edited.map((i) => `“${before[i]}” → “${after[i]}” at position ${i}`).join(', ')
    : 'no token';
  return html`${
    settings.length
      ? html`<p class="hint" data-testid="settings-differ">The settings differ from the baseline’s
      (${settings.join(', ')}): the weights changed too, so rows move that no edit reaches.</p>`
      : nothing
  }
    ${
      layer > 0
        ? html`<p class="hint">From layer 1 on, a layer’s input already mixes the tokens (the layers below attended),
      so even its linear Q and V projections move rows other than the edited one.</p>`
        : nothing
    }
    ${
      qIgnoresWords
        ? html`<p class="hint" data-testid="q-ignores-words">Q did not move, not even in the edited row: this
      model’s W_q reads only the positions, not the words (the Positional heads preset is built so), so its heads look at
      the same places whatever you type. V, another linear layer, moves the edited row and only it.</p>`
        : nothing
    }
    <p class="table-caption" id="changes-caption">Edited: ${edits}. How far each row moved (‖Δ‖), layer ${layer}:</p>
    ${NARROW_TABLE}<div class="changes-box" style="max-width: 100%; overflow-x: auto"><table class="changes" aria-labelledby="changes-caption">
    <thead><tr><th scope="col">token</th>${(ffn ? COLUMNS : COLUMNS.slice(0, 4)).map((c) => html`<th scope="col">${c}</th>`)}</tr></thead>
    <tbody>${after.map(
      (token, i) => html`<tr class=${edited.includes(i) ? 'edited' : ''}
      data-linear-changed=${linear[i] > MOVED ? '1' : '0'} data-value-changed=${value[i] > MOVED ? '1' : '0'}
      data-attention-changed=${attention[i] > MOVED ? '1' : '0'} data-weights-changed=${(weights[i] ?? 0) > WEIGHT_MOVED ? '1' : '0'}
      data-ffn=${ffn ? String(ffn[i]) : nothing}>
      <th scope="row">${token}</th><td data-label=${COLUMNS[0]}>${bar(linear[i])}</td><td data-label=${COLUMNS[1]}>${bar(value[i])}</td>
      <td data-label=${COLUMNS[2]}><span class="num" data-kind="weights">${formatValue(weights[i] ?? 0)}</span></td><td data-label=${COLUMNS[3]}>${bar(attention[i])}</td>
      ${ffn ? html`<td data-label=${COLUMNS[4]}>${ffnInput ? bar(ffnInput[i]) : nothing}</td><td data-label=${COLUMNS[5]}>${bar(ffn[i])}</td>` : nothing}</tr>`,
    )}</tbody>
  </table></div>
  ${mixingAndMlp(comparison, ctx)}`;
}

/** Seed 001: after editing one token, which rows of a linear layer and of attention moved. */
export function changesView(ctx: ChangesContext) {
  const hint = html`<p class="hint">Replace one word by another (keep the number of words) and this view shows
    which output rows changed: a linear layer (Q, V) and the FFN read only their own row, attention’s weights are
    computed from the words. Pin a baseline to keep comparing with it while you type.</p>`;
  const comparison: Comparison = ctx.reference ? compare(ctx.reference.snapshot, ctx.current, ctx) : { kind: 'none' };
  let body;
  if (comparison.kind === 'none') body = hint;
  else if (comparison.kind === 'incomparable') {
    body = html`<p class="incomparable" role="status" data-testid="incomparable">Cannot compare with
      ${ctx.reference?.pinned ? 'the pinned baseline' : 'the previous result'}: ${comparison.reasons.join('; ')}.
      ${ctx.reference?.pinned ? 'Change it back, or pin this result instead.' : 'Keep the shapes and edit a word.'}</p>`;
  } else if (comparison.edited.length === 0 && comparison.otherEdited.length === 0 && comparison.settings.length > 0) {
    // Only the settings changed (e.g. this view switched the weights on arrival): every row moves and no edit explains
    // it, so the view starts from here, with its how-to, rather than read as a result.
    body = html`${hint}<p class="hint" data-testid="settings-only">Nothing compared yet: since the
      ${ctx.reference?.pinned ? 'baseline' : 'previous result'} only settings changed (${comparison.settings.join(', ')}),
      not the words.</p>`;
  } else if (comparison.edited.length === 0 && comparison.settings.length === 0) {
    const others = comparison.otherEdited.map((b) => b + 1);
    body =
      others.length > 0
        ? html`<p class="hint" data-testid="edit-elsewhere">Sentence ${ctx.sequence + 1}, the one shown, is the same in both:
        the edit is in sentence ${others.join(', ')}. Pick ${others.length > 1 ? 'one' : 'it'} under Sentence to see its rows.</p>`
        : html`<p class="hint" data-testid="same-tokens">The same tokens and settings as the
        ${ctx.reference?.pinned ? 'baseline' : 'previous result'}: nothing moved. Replace a word to see which rows change.</p>`;
  } else body = changesTable(comparison, ctx);
  return html`<div class="changes-view">${baselineBar(ctx)}${body}</div>`;
}
