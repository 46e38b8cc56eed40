// The "What changed" view: which rows of the selected layer moved between the current
// trace and a reference (the pinned baseline, or else the previous result). It says what
// it compares (both texts, the layer) and, when the two cannot be compared, why. Texts
// are Lit text bindings, never HTML. Pin and unpin send a bubbling 'baseline' event
// ({ pin: boolean }) that the playground answers.
import { html, nothing } from 'lit';
import { formatValue } from '../model/words.js';
import { compare, shortText, type Comparison, type Reference, type Snapshot } from '../model/comparison.js';
import type { Block } from '../model/trace-model.js';

export interface ChangesContext {
  current: Snapshot;
  reference: Reference | null;
  block: Block;
  layer: number;
  sequence: number;
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

function changesTable(comparison: Extract<Comparison, { kind: 'compared' }>, layer: number) {
  const { before, after, edited, linear, value, attention, settings } = comparison;
  const max = Math.max(...linear, ...value, ...attention, 1e-9);
  // A model whose W_q reads only positions (the Positional heads preset) leaves Q as it was, edited row included.
  const qIgnoresWords =
    layer === 0 &&
    settings.length === 0 &&
    edited.length > 0 &&
    edited.every((i) => linear[i] <= MOVED && value[i] > MOVED);
  const bar = (v: number) =>
    html`<span class="bar" style=${`width:${(100 * v) / max}%`}></span><span class="num">${formatValue(v)}</span>`;
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
    <table class="changes">
    <caption>Edited: ${edits}. How far each row moved (‖Δ‖), layer ${layer}:</caption>
    <thead><tr><th scope="col">token</th><th scope="col">linear layer: Q projection</th><th scope="col">linear layer: V projection</th>
      <th scope="col">attention output</th></tr></thead>
    <tbody>${after.map(
      (token, i) => html`<tr class=${edited.includes(i) ? 'edited' : ''}
      data-linear-changed=${linear[i] > MOVED ? '1' : '0'} data-value-changed=${value[i] > MOVED ? '1' : '0'}
      data-attention-changed=${attention[i] > MOVED ? '1' : '0'}>
      <th scope="row">${token}</th><td>${bar(linear[i])}</td><td>${bar(value[i])}</td><td>${bar(attention[i])}</td></tr>`,
    )}</tbody>
  </table>`;
}

/** Seed 001: after editing one token, which rows of a linear layer and of attention moved. */
export function changesView(ctx: ChangesContext) {
  const hint = html`<p class="hint">Replace one word by another (keep the number of words) and this view shows
    which output rows changed: a linear layer (Q, V) changes only the edited row, attention changes the rows that can see it.
    Pin a baseline to keep comparing with it while you type.</p>`;
  const comparison: Comparison = ctx.reference ? compare(ctx.reference.snapshot, ctx.current, ctx) : { kind: 'none' };
  let body;
  if (comparison.kind === 'none') body = hint;
  else if (comparison.kind === 'incomparable') {
    body = html`<p class="incomparable" role="status" data-testid="incomparable">Cannot compare with
      ${ctx.reference?.pinned ? 'the pinned baseline' : 'the previous result'}: ${comparison.reasons.join('; ')}.
      ${ctx.reference?.pinned ? 'Change it back, or pin this result instead.' : 'Keep the shapes and edit a word.'}</p>`;
  } else if (comparison.edited.length === 0 && comparison.settings.length === 0) {
    const others = comparison.otherEdited.map((b) => b + 1);
    body =
      others.length > 0
        ? html`<p class="hint" data-testid="edit-elsewhere">Sentence ${ctx.sequence + 1}, the one shown, is the same in both:
        the edit is in sentence ${others.join(', ')}. Pick ${others.length > 1 ? 'one' : 'it'} under Sentence to see its rows.</p>`
        : html`<p class="hint" data-testid="same-tokens">The same tokens and settings as the
        ${ctx.reference?.pinned ? 'baseline' : 'previous result'}: nothing moved. Replace a word to see which rows change.</p>`;
  } else body = changesTable(comparison, ctx.layer);
  return html`<div class="changes-view">${baselineBar(ctx)}${body}</div>`;
}
