// <ap-positions>: the Positions view. How the model knows where a word is, for the kind of
// positions the trace recorded (model/positions-model.ts decides and computes):
//   RoPE: one head's query, pair of dimensions by pair of dimensions, drawn as a 2-D vector
//     turning with position, each pair at its own speed; then the score of a query and a
//     key position, and of both moved by the same amount: equal (computed here from the
//     recorded q and k, beside the engine's own score).
//   ALiBi: each head's slope and its bias over the keys of one query.
//   Sinusoidal / learned: the position vectors added to the token vectors.
// Data in (properties); the token, key and shift are its own choice.
import { html, nothing, svg } from 'lit';
import { DEFAULT_SPEC } from 'attention-playground';
import { formatValue } from '../model/words.js';
import { scoreScale } from '../ui/colors.js';
import { axisTokens, paddedLabels } from '../model/trace-model.js';
import {
  addedPositions,
  alibiView,
  positionKind,
  relativeScores,
  ropeBase,
  ropeView,
  type AlibiHead,
  type RopePair,
} from '../model/positions-model.js';
import { headColor } from './views.js';
import { LessonView } from './lesson-view.js';
import '../ui/matrix.js';

/** Pairs drawn at most (d_k = 64 has 32): spread from the fastest to the slowest. */
const SHOWN_PAIRS = 8;
const PAIR_SIZE = 112;

function shownPairs(pairs: RopePair[]): RopePair[] {
  if (pairs.length <= SHOWN_PAIRS) return pairs;
  const picked = new Set(
    Array.from({ length: SHOWN_PAIRS }, (_, k) => Math.round((k * (pairs.length - 1)) / (SHOWN_PAIRS - 1))),
  );
  return pairs.filter((p) => picked.has(p.index));
}

export class PositionsView extends LessonView {
  static override properties = {
    ...LessonView.properties,
    head: { type: Number },
    token: { state: true },
    key: { state: true },
    shift: { state: true },
  };
  declare head: number;
  declare token: number;
  declare key: number;
  declare shift: number;

  constructor() {
    super();
    this.head = 0;
    this.token = 3;
    this.key = 1;
    this.shift = 5;
  }

  #select(id: string, label: string, value: number, labels: string[], set: (v: number) => void) {
    return html`<label for=${id}>${label}</label><select id=${id} data-testid=${id}
      @change=${(e: Event) => set(Number((e.target as HTMLSelectElement).value))}>
      ${labels.map((t, i) => html`<option value=${i} ?selected=${i === value}>${i}: ${t}</option>`)}</select>`;
  }

  #pair(pair: RopePair, token: number) {
    const c = PAIR_SIZE / 2;
    const radius = Math.hypot(...pair.before) || 1;
    const r = (PAIR_SIZE / 2 - 8) / radius;
    const at = ([x, y]: [number, number]) => [c + x * r, c - y * r];
    const [ex, ey] = at(pair.engine);
    const [bx, by] = at(pair.before);
    const n = pair.path.length;
    return html`<figure data-pair=${pair.index} data-inv-freq=${String(pair.invFreq)}>
      <svg width=${PAIR_SIZE} height=${PAIR_SIZE} viewBox=${`0 0 ${PAIR_SIZE} ${PAIR_SIZE}`} role="img"
        aria-label=${`pair ${pair.index}: turns ${formatValue(pair.invFreq)} radians per position`}>
        <circle cx=${c} cy=${c} r=${radius * r} fill="none" stroke="var(--ap-border)" />
        ${pair.path.map(([x, y], p) => {
          const [px, py] = at([x, y]);
          return svg`<circle cx=${px} cy=${py} r="2.2" fill=${headColor(this.head)} opacity=${0.15 + (0.6 * p) / Math.max(1, n - 1)}><title>position ${p}</title></circle>`;
        })}
        <line x1=${c} y1=${c} x2=${bx} y2=${by} stroke="var(--ap-text-muted)" stroke-dasharray="3 2" />
        <line x1=${c} y1=${c} x2=${ex} y2=${ey} stroke=${headColor(this.head)} stroke-width="2.5" />
      </svg>
      <figcaption style="font-weight: 400">pair ${pair.index} (dims ${pair.dims[0]}, ${pair.dims[1]})<br />
        ${formatValue(pair.invFreq)} rad / position · at ${token}: ${formatValue((pair.invFreq * token * 180) / Math.PI)}°</figcaption>
    </figure>`;
  }

  #rope(labels: string[], keyLabels: string[]) {
    const trace = this.trace!;
    const theta = ropeBase(trace, this.block, this.layer, DEFAULT_SPEC.ropeTheta);
    const token = Math.min(this.token, labels.length - 1);
    const key = Math.min(this.key, keyLabels.length - 1);
    const view = ropeView(trace, this.block, this.layer, this.sequence, this.head, token, theta)!;
    const rel = relativeScores(trace, this.block, this.layer, this.sequence, this.head, token, key, this.shift, theta)!;
    const agrees = view.maxDifference < 1e-4 * (1 + Math.max(...view.pairs.map((p) => Math.hypot(...p.before))));
    const same = Math.abs(rel.score - rel.shifted) <= 1e-6 * (1 + Math.abs(rel.score));
    return html`<p class="formula" data-testid="rope-formula">RoPE adds nothing to the token vectors. Inside attention it
        turns each head’s q and k: dimensions i and i + ${view.rotaryDim / 2} form a pair, a 2-D vector, turned by
        position × ω<sub>i</sub>${
          view.fromRule
            ? html` with ω<sub>i</sub> = ${theta}<sup>−2i / ${view.rotaryDim}</sup>`
            : html`, this model’s own frequencies (another base or a scaling), each read off the trace`
        } — the first pair
        fast, the last slowly.${
          view.rotaryDim < view.headDim ? ` Here d_k = ${view.headDim} is odd: its last dimension does not turn.` : ''
        }</p>
      <div class="picker">${this.#select('positions-token', 'Query token', token, labels, (v) => (this.token = v))}</div>
      <p class="note">Head ${this.head}’s query of token ${token} (“${labels[token]}”): each circle is one pair, the dots
        the same pair turned to positions 0 … ${view.pairs[0]?.path.length - 1} (darker = later), the dashed line
        before RoPE, the coloured line at its own position ${token}, as the engine recorded it
        (q_rotated). Turned again here: <span class=${agrees ? 'ok' : 'bad'} data-testid="rope-check"
        data-max-difference=${String(view.maxDifference)}>max |Δ| ${formatValue(view.maxDifference)}</span>.</p>
      <div class="side" data-testid="rope-pairs">${shownPairs(view.pairs).map((p) => this.#pair(p, token))}</div>
      <h3>Only the distance counts</h3>
      <p class="formula">Turning both q and k changes each pair’s dot product by the angle between them, (m − n) ω<sub>i</sub>:
        move the query and the key by the same number of places and the score stays the same.</p>
      <div class="picker">${this.#select('positions-key', 'Key token', key, keyLabels, (v) => (this.key = v))}
        <label for="positions-shift">Move both by</label><input id="positions-shift" data-testid="positions-shift"
          type="number" min="0" max="1000" step="1" .value=${String(this.shift)} style="width: 5em"
          @change=${(e: Event) => {
            const v = Math.round(Number((e.target as HTMLInputElement).value));
            if (Number.isFinite(v) && v >= 0 && v <= 1000) this.shift = v;
          }} /></div>
      <div class="scroll"><table data-testid="relative-scores" data-score=${String(rel.score)}
        data-shifted=${String(rel.shifted)} data-engine=${String(rel.engine)} data-same=${String(same)}>
        <caption>Head ${this.head} (K/V head ${rel.kvHead}): q of “${labels[token]}”, k of “${keyLabels[key]}”</caption>
        <tbody>
          <tr><th scope="row">positions m = ${token}, n = ${key} (m − n = ${token - key})</th>
            <td data-kind="score">${formatValue(rel.score)}</td></tr>
          <tr><th scope="row">both moved by ${rel.shift}: m = ${token + rel.shift}, n = ${key + rel.shift}
            (m − n = ${token - key})</th><td data-kind="shifted">${formatValue(rel.shifted)}</td></tr>
          <tr><th scope="row">the engine’s score Q·Kᵀ at (${token}, ${key})</th>
            <td data-kind="engine">${formatValue(rel.engine)}</td></tr>
        </tbody></table></div>
      <p class="note"><span class=${same ? 'ok' : 'bad'}>${same ? 'The same score' : 'Different scores'}</span>: |Δ| =
        ${formatValue(Math.abs(rel.score - rel.shifted))}. With positions added to the input instead (sinusoidal,
        learned), q and k themselves change with position, and no such rule holds.</p>`;
  }

  #alibi(heads: AlibiHead[], labels: string[], keyLabels: string[]) {
    const token = Math.min(this.token, labels.length - 1);
    const width = Math.min(560, 28 * keyLabels.length);
    const barW = width / keyLabels.length;
    const low = Math.min(...heads.map((h) => Math.min(...h.row)), -1e-6);
    return html`<p class="formula" data-testid="alibi-formula">ALiBi adds nothing to the token vectors: each head adds
        −slope × |i − j| to its scaled scores, a penalty growing with the distance between query i and key j. The
        slopes halve down the heads (2<sup>−8(h+1)/H</sup> for H a power of two), so some heads look far and some
        only near.</p>
      <div class="picker">${this.#select('positions-token', 'Query token', token, labels, (v) => (this.token = v))}</div>
      <div class="scroll"><table data-testid="alibi-slopes">
        <caption>Each head’s slope (the paper’s, and read off the recorded bias) and its bias over the keys of
          token ${token} (“${labels[token]}”)</caption>
        <thead><tr><th>head</th><th>slope</th><th>recorded</th><th>bias of query ${token} over the keys</th></tr></thead>
        <tbody>${heads.map(
          (h) => html`<tr data-head=${h.head} data-slope=${String(h.slope)} data-recorded=${String(h.recordedSlope)}>
            <th scope="row" style=${`color:${headColor(h.head)}`}>${h.head}</th><td>${formatValue(h.slope)}</td>
            <td>${formatValue(h.recordedSlope)}</td>
            <td><svg width=${width} height="36" role="img" aria-label=${`head ${h.head} bias row`}>
              ${Array.from(h.row, (v, j) => {
                const height = (v / low) * 32;
                return svg`<rect x=${j * barW + 1} y=${2} width=${Math.max(1, barW - 2)} height=${Math.max(0.5, height)}
                  fill=${headColor(h.head)} opacity=${j === token ? 1 : 0.55}><title>key ${j}: ${formatValue(v)}</title></rect>`;
              })}</svg></td></tr>`,
        )}</tbody></table></div>
      <p class="note">Bars hang down by the penalty: none at the query itself, longer with distance, steepest for head 0.</p>`;
  }

  #added(tokens: string[]) {
    const added = addedPositions(this.trace!, this.block, this.sequence)!;
    const m = added.positions;
    const labels = paddedLabels(tokens, m.rows).map((l) => l.label);
    const cell = Math.max(3, Math.min(12, Math.floor(560 / m.cols)));
    return html`<p class="formula" data-testid="added-formula">These positions are vectors added to the token vectors
        before the first layer: input = embeddings + positions, one row per position (sinusoids of falling frequency,
        or a learned table). Attention then sees where a word is only through its changed q and k.</p>
      <figure><figcaption>positions (S, E) = (${m.rows}, ${m.cols})</figcaption>
        <ap-matrix .values=${m.values} .rows=${m.rows} .cols=${m.cols} .rowLabels=${labels} .scale=${scoreScale(m.values)}
          cell=${cell} label="position vectors"></ap-matrix></figure>
      ${
        added.maxDifference === null
          ? nothing
          : html`<p class="note" data-testid="added-check" data-max-difference=${String(added.maxDifference)}>input −
            embeddings − positions: max |Δ| ${formatValue(added.maxDifference)}
            ${added.maxDifference < 1e-5 ? '(simply added)' : '(the input is more than this sum: token types, a norm or a scale)'}</p>`
      }`;
  }

  override render() {
    if (!this.trace) return nothing;
    const kind = positionKind(this.trace, this.block, this.layer);
    const { queries, keys } = axisTokens(this.trace, this.block);
    const q = queries[this.sequence] ?? [];
    const k = keys[this.sequence] ?? [];
    const labels = paddedLabels(q, q.length).map((l) => l.label);
    const keyLabels = paddedLabels(k, k.length).map((l) => l.label);
    const body =
      kind === 'rope'
        ? this.#rope(labels, keyLabels)
        : kind === 'alibi'
          ? this.#alibi(
              alibiView(this.trace, this.block, this.layer, Math.min(this.token, labels.length - 1))!,
              labels,
              keyLabels,
            )
          : kind === 'added'
            ? this.#added(q)
            : html`<p class="note" data-testid="no-positions">This model has no positions here: attention sees a bag
                of words (in a decoder only the causal mask tells earlier from later). Tick “Positional encoding” and
                pick the kind under Positions.</p>`;
    return html`<div data-testid="positions-view" data-kind=${kind}>${body}</div>`;
  }
}

customElements.define('ap-positions', PositionsView);

declare global {
  interface HTMLElementTagNameMap {
    'ap-positions': PositionsView;
  }
}
