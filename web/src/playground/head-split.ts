// <ap-head-split>: the Head split view. One projection (Q, K or V: one E × E weight, one
// (S, E) result for all heads) drawn with its columns banded by head, then each head's
// recorded (S, d_k) tensor beside the block of columns it is, with the largest difference
// between the two (0: the split is a reshape, not H separate layers); then the same for
// the merge, the heads' contexts laid side by side again. One token's numbers are printed
// from both sides. Data in (properties); the projection and the token are its own choice.
import { html, nothing } from 'lit';
import { formatValue } from '../model/words.js';
import { scoreScale, type ColorScale } from '../ui/colors.js';
import {
  PROJECTIONS,
  headSplit,
  kvCacheComparison,
  kvGroups,
  type HeadSplit,
  type Projection,
  type SplitSide,
} from '../model/split-model.js';
import { axisTokens, paddedLabels } from '../model/trace-model.js';
import { headColor } from './views.js';
import type { Matrix } from '../model/walk-model.js';
import { LessonView } from './lesson-view.js';
import '../ui/matrix.js';

/** Values printed per head block in the token table (d_k can be 64). */
const SHOWN = 3;

const cellFor = (cols: number) => Math.max(3, Math.min(12, Math.floor(560 / cols)));

export class HeadSplitView extends LessonView {
  static override properties = { ...LessonView.properties, projection: { state: true }, row: { state: true } };
  declare projection: Projection;
  declare row: number;

  constructor() {
    super();
    this.projection = 'q';
    this.row = 0;
  }

  /** bands: the full (S, E) matrix, banded by head; it narrows its columns to fit a phone, so every head shows. */
  #matrix(
    m: Matrix,
    labels: string[],
    label: string,
    bands: HeadSplit['split']['blocks'] | null,
    cell: number,
    scale: ColorScale,
  ) {
    return html`<ap-matrix ?fit=${bands !== null} .values=${m.values} .rows=${m.rows} .cols=${m.cols} .rowLabels=${labels} .scale=${scale}
      .bands=${bands ? bands.map((b) => ({ from: b.from, to: b.to, color: headColor(b.head), label: `head ${b.head}` })) : []}
      .highlight=${[this.row]} cell=${cell} label=${label}></ap-matrix>`;
  }

  /** One side: the full matrix with head bands, each head's own tensor, and one token's numbers from both. */
  #side(side: SplitSide, split: HeadSplit, labels: string[], names: { full: string; perHead: string }, testid: string) {
    // One cell width and one colour scale for the whole matrix and its heads' blocks: the same numbers, the same picture.
    // The side's own width: under grouped-query attention K and V are narrower (H_kv · d_k) than the merge (E).
    const width = side.full.cols;
    const cell = cellFor(width);
    const scale = scoreScale(side.full.values);
    const row = Math.min(this.row, side.full.rows - 1);
    const fullRow = side.full.values.subarray(row * width, (row + 1) * width);
    return html`<div data-testid=${testid}>
      <figure><figcaption>${names.full} (S, ${width === split.merge.full.cols ? 'E' : 'H_kv · d_k'}) = (${side.full.rows}, ${width}): one matrix, ${width === split.merge.full.cols ? 'H' : 'H_kv'} = ${side.blocks.length} blocks of d_k = ${split.dK} columns</figcaption>
        ${this.#matrix(side.full, labels, `${names.full}, columns banded by head`, side.blocks, cell, scale)}</figure>
      <div class="side">${side.blocks.map(
        (b) => html`<figure data-head=${b.head} style=${`border-top: 4px solid ${headColor(b.head)}`}>
        <figcaption>${names.perHead}, head ${b.head} (S, d_k) = (${b.perHead.rows}, ${b.perHead.cols})</figcaption>
        ${this.#matrix(b.perHead, labels, `${names.perHead} of head ${b.head}`, null, cell, scale)}
        <p class="note">= ${names.full}[:, ${b.from}:${b.to}] · <span class=${b.maxDifference === 0 ? 'ok' : 'bad'}
          data-max-difference=${String(b.maxDifference)}>max |Δ| ${formatValue(b.maxDifference)}</span></p></figure>`,
      )}</div>
      <div class="scroll"><table data-token-table=${testid}>
        <caption>Token ${row} (“${labels[row]}”): the first ${SHOWN} numbers of each head’s block, read from both</caption>
        <tbody>${side.blocks.map((b) => {
          // One head a pair of rows, the two readings one above the other: the table grows down with the heads, never
          // wider than a phone (a row of every head's numbers was 710 px at 4 heads).
          const perHeadRow = b.perHead.values.subarray(row * b.perHead.cols, row * b.perHead.cols + SHOWN);
          const numbers = (kind: string, values: ArrayLike<number>) =>
            Array.from(
              { length: SHOWN },
              (_, d) =>
                html`<td data-kind=${kind} data-head=${b.head} data-value=${String(values[d])}>${formatValue(values[d])}</td>`,
            );
          return html`<tr><th scope="rowgroup" rowspan="2" style=${`color:${headColor(b.head)}`}>head ${b.head}<br>columns
            ${b.from}–${b.from + SHOWN - 1}</th><th scope="row">${names.full}</th>${numbers('full', fullRow.subarray(b.from, b.from + SHOWN))}</tr>
            <tr><th scope="row">${names.perHead}</th>${numbers('head', perHeadRow)}</tr>`;
        })}
        </tbody></table></div></div>`;
  }

  /** Grouped-query attention: which query heads share which K/V head, and what that saves in a KV cache. */
  #groups() {
    const groups = kvGroups(this.trace!, this.block, this.layer);
    if (!groups) return nothing;
    const { heads, kvHeads } = groups;
    const cache = kvCacheComparison(this.trace!.config.layers, groups);
    const chip = (color: string, text: string) =>
      html`<span style=${`display:inline-block;padding:0.05rem 0.4rem;margin:0.1rem;border-radius:3px;border:2px solid ${color}`}>${text}</span>`;
    return html`<figure data-testid="kv-groups" data-heads=${heads} data-kv-heads=${kvHeads}>
        <figcaption>${
          kvHeads === heads
            ? `Multi-head attention: each of the H = ${heads} query heads has its own K and V head`
            : `Grouped-query attention: H = ${heads} query heads share H_kv = ${kvHeads} K/V head${kvHeads > 1 ? 's' : ''}, ${heads / kvHeads} query heads per group`
        }</figcaption>
        <div class="side">${groups.groups.map(
          (
            members,
            g,
          ) => html`<div data-kv-head=${g} style="border: 1px solid var(--ap-border-strong); border-radius: 4px; padding: 0.2rem 0.4rem">
            <strong>K/V head ${g}</strong><br />${members.map((h) => chip(headColor(h), `q head ${h}`))}</div>`,
        )}</div></figure>
      <div class="scroll"><table data-testid="kv-cache">
        <caption>The KV cache a generating model keeps per token: K and V of each of the ${this.trace!.config.layers}
          layer${this.trace!.config.layers > 1 ? 's' : ''}, H_kv × d_k = H_kv × ${groups.headDim} float32 numbers each</caption>
        <thead><tr><th>attention</th><th>H_kv</th><th>bytes per token</th></tr></thead>
        <tbody>${cache.map(
          (r) => html`<tr data-kind=${r.name} data-bytes=${r.bytes} data-current=${String(r.current)}>
            <th scope="row">${r.name}${r.current ? ' (this model)' : ''}</th><td>${r.kvHeads}</td><td>${r.bytes}</td></tr>`,
        )}</tbody></table></div>`;
  }

  override render() {
    if (!this.trace) return nothing;
    const split = headSplit(this.trace, this.block, this.layer, this.sequence, this.projection);
    if (!split) return html`<p class="note">This trace did not record the projections and the per-head tensors.</p>`;
    const { queries, keys } = axisTokens(this.trace, this.block);
    const sideTokens = this.projection === 'q' ? queries : keys;
    const labels = paddedLabels(sideTokens[this.sequence] ?? [], split.split.full.rows).map((l) => l.label);
    const queryLabels = paddedLabels(queries[this.sequence] ?? [], split.merge.full.rows).map((l) => l.label);
    const P = this.projection.toUpperCase();
    const { e, heads, dK, batch } = split;
    const S = split.split.full.rows;
    const dModel = split.merge.full.cols;
    // Grouped-query attention: K and V have H_kv heads, H_kv · d_k columns.
    const [E, H] = e === dModel ? ['E', 'H'] : ['H_kv · d_k', 'H_kv'];
    return html`
      ${this.#groups()}
      <p class="formula" data-testid="split-shapes">One linear layer makes ${P} for all heads: <code>W_${this.projection}</code> is
        ${e === dModel ? `E × E = ${e} × ${e}` : `(H_kv · d_k) × E = ${e} × ${dModel}`}, and its ${e} output rows (so ${P}’s ${e} columns) come in ${e === dModel ? 'H' : 'H_kv'} = ${heads} blocks of d_k = ${e} / ${heads} = ${dK}.
        The split is a reshape: <code>(B, S, ${E}) = (${batch}, ${S}, ${e}) → (B, S, ${H}, d_k) = (${batch}, ${S}, ${heads}, ${dK}) →
        (B, ${H}, S, d_k) = (${batch}, ${heads}, ${S}, ${dK})</code>.</p>
      <div class="picker" role="group" aria-label="Projection">${PROJECTIONS.map(
        (p) => html`<button type="button" data-projection=${p}
        aria-pressed=${p === this.projection ? 'true' : 'false'} @click=${() => {
          this.projection = p;
        }}>${p.toUpperCase()}</button>`,
      )}
        <label for="split-row">Token</label><select id="split-row" data-testid="split-row"
          @change=${(e: Event) => {
            this.row = Number((e.target as HTMLSelectElement).value);
          }}>
          ${labels.map((t, i) => html`<option value=${i} ?selected=${i === this.row}>${i}: ${t}</option>`)}</select></div>
      ${this.#side(split.split, split, labels, { full: `${this.projection}_proj`, perHead: `${this.projection}_heads` }, 'split')}
      <h3>The merge: the heads side by side again</h3>
      <p class="formula">Each head’s context (weights · V) is (S, d_k) = (${split.merge.full.rows}, ${dK}); laid side by side they are
        merged (S, E) = (${split.merge.full.rows}, ${dModel}): <code>(B, H, S, d_k) → (B, S, H, d_k) → (B, S, E)</code>. Only then does
        the output projection W_o (E × E) mix the heads.</p>
      ${this.#side(split.merge, split, queryLabels, { full: 'merged', perHead: 'context' }, 'merge')}`;
  }
}

customElements.define('ap-head-split', HeadSplitView);

declare global {
  interface HTMLElementTagNameMap {
    'ap-head-split': HeadSplitView;
  }
}
