// <ap-heads>: the "What heads do" view (issue 29). For the model picked (a shipped trained
// checkpoint, the Train view's model or the pretrained checkpoint loaded on this page) it runs
// one tool at a time in the engine worker, with progress and a cancel: the head detectors (a
// sortable grid; a head clicked opens in the Explore views), ablation switches with the
// prediction's change and the ranked "depends on" list, the logit lens, direct logit
// attribution, and activation patching of a clean and a corrupted prompt. Its state lives in
// the URL hash ('#heads&...', model/heads-state.ts); every figure exports as PNG, SVG and CSV.
import { LitElement, html, nothing, type PropertyValues } from 'lit';
import type { EngineClient } from '../workers/client.js';
import type {
  HeadsModelRef,
  HeadsOutcome,
  HeadsProgress,
  HeadsRequest,
  HeadsResult,
  TokenChoice,
} from '../model/heads-results.js';
import {
  ABLATIONS,
  DEFAULT_HEADS_STATE,
  DETECT_SORTS,
  HEAD_TOOLS,
  HEAD_TOOL_LABELS,
  PATCH_OVER,
  exploreHeadHash,
  hasHead,
  headsStateFromHash,
  headsStateToHash,
  toggleHead,
  type HeadRefState,
  type HeadTool,
  type HeadsState,
} from '../model/heads-state.js';
import {
  DETECTORS,
  DETECTOR_LABELS,
  ablationChange,
  detectorRows,
  logitName,
  patchAgreement,
} from '../model/heads-figures.js';
import { formatValue } from '../model/words.js';
import { HashWriter } from '../ui/hash-writer.js';
import { barsSvg } from '../ui/bars.js';
import { textGridSvg } from '../ui/text-grid.js';
import '../ui/heatmap.js';
import '../ui/legend.js';
import { weightScale } from '../ui/colors.js';
import { headsModel, headsModelChoices, type HeadsModel, type HeadsModelChoice } from './heads-models.js';
import {
  FIGURE_NAMES,
  attributionChart,
  detectorHeatmap,
  exportFigure,
  lensGrid,
  patchHeatmap,
  rankChart,
  type FigureFormat,
} from './heads-export.js';
import { HEADS_STYLES } from './heads-styles.js';

type Result<T extends HeadsResult['tool']> = Extract<HeadsResult, { tool: T }>;

/** Results kept, newest last (switching tools and back shows them at once). */
const KEEP = 24;

export class HeadsView extends LitElement {
  static override styles = HEADS_STYLES;
  static override properties = {
    syncHash: { type: Boolean, attribute: 'sync-hash' },
    state: { state: true },
    choices: { state: true },
    busy: { state: true },
    error: { state: true },
  };

  declare syncHash: boolean;
  declare state: HeadsState;
  declare choices: HeadsModelChoice[];
  /** The tool under way and its progress, or null. */
  declare busy: HeadsProgress | null;
  /** The last run's problem, and the box it belongs to. */
  declare error: { message: string; field?: string } | null;
  /** The engine (the page's worker client); set by the page. */
  engine: (() => EngineClient) | null = null;

  #model: HeadsModel | null = null;
  #modelError = '';
  #results = new Map<string, HeadsResult>();
  /** Requests under way in the worker, by key. */
  #pending = new Map<string, Promise<HeadsOutcome>>();
  /** The request whose progress the status line shows. */
  #showing = '';
  #problems: string[] = [];
  #sequence = 0;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #writer = new HashWriter(this, 300);

  constructor() {
    super();
    this.syncHash = false;
    this.state = { ...DEFAULT_HEADS_STATE };
    this.choices = [];
    this.busy = null;
    this.error = null;
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.syncHash) {
      this.#readHash();
      window.addEventListener('hashchange', this.#onHashChange);
    }
    void headsModelChoices().then((choices) => {
      this.choices = choices;
      if (!this.state.model && choices.length)
        this.#set({ model: choices.find((c) => c.id === 'induction')?.id ?? choices[0].id });
    });
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.removeEventListener('hashchange', this.#onHashChange);
    clearTimeout(this.#timer);
    this.engine?.().cancelHeads();
  }

  #onHashChange = () => {
    this.#writer.cancel();
    if (location.hash !== headsStateToHash(this.state)) this.#readHash();
  };

  #readHash() {
    const { state, problems } = headsStateFromHash(location.hash);
    this.#problems = problems;
    this.state = state;
  }

  /** A change of state: the hash follows (once typing pauses while typing), and the tool runs again. */
  #set(change: Partial<HeadsState>, typing = false) {
    this.state = { ...this.state, ...change };
    if (this.syncHash) this.#writer.write(() => headsStateToHash(this.state), typing);
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    if (changed.has('state')) this.#schedule(changed.get('state') as HeadsState | undefined);
  }

  #schedule(before: HeadsState | undefined) {
    const typed =
      before &&
      (before.text !== this.state.text ||
        before.clean !== this.state.clean ||
        before.corrupted !== this.state.corrupted);
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#run(), typed ? 350 : 0);
  }

  /** The model of the state, resolved once per id; its example fills an empty text. */
  async #resolve(): Promise<HeadsModel | null> {
    const id = this.state.model;
    if (!id) return null;
    let model = this.#model?.id === id ? this.#model : null;
    if (!model) {
      try {
        model = await headsModel(id);
      } catch (error) {
        this.#model = null;
        this.#modelError = error instanceof Error ? error.message : String(error);
        this.requestUpdate();
        return null;
      }
      if (this.state.model !== id) return null;
      this.#model = model;
      this.#modelError = '';
    }
    // Empty boxes (a model picked, a link without them) start from the model's own texts.
    const { text, clean, corrupted } = this.state;
    if (!text || !clean || !corrupted)
      this.#set({ text: text || model.example, clean: clean || model.clean, corrupted: corrupted || model.corrupted });
    return model;
  }

  #requests(ref: HeadsModelRef): HeadsRequest[] {
    const { state } = this;
    const base = { model: ref, text: state.text };
    switch (state.tool) {
      case 'detect':
        return [{ tool: 'detect', ...base }];
      case 'ablate':
        return [
          {
            tool: 'ablate',
            ...base,
            heads: state.ablate,
            mlps: state.mlps,
            ablation: state.ablation,
            token: state.token,
            against: state.against,
          },
          { tool: 'rank', ...base, ablation: state.ablation, token: state.token, against: state.against },
        ];
      case 'lens':
        return [{ tool: 'lens', ...base }];
      case 'attribute':
        return [{ tool: 'attribute', ...base, token: state.token, against: state.against }];
      case 'patch':
        return [{ tool: 'patch', model: ref, clean: state.clean, corrupted: state.corrupted }];
    }
  }

  /** A request's cache key: everything but the model's bytes (the model id stands for them). */
  #key(request: HeadsRequest): string {
    return JSON.stringify({ ...request, model: this.state.model });
  }

  async #run() {
    const sequence = ++this.#sequence;
    this.busy = null; // an older run's progress, if any: it no longer counts
    const model = await this.#resolve();
    if (sequence !== this.#sequence) return;
    if (!model || !this.state.text || !this.state.clean || !this.state.corrupted) {
      this.requestUpdate();
      return;
    }
    this.error = null;
    const engine = this.engine?.();
    for (const request of this.#requests(model.ref)) {
      const key = this.#key(request);
      if (this.#results.has(key)) continue;
      if (!engine) {
        this.error = { message: 'This page has no engine.' };
        return;
      }
      // A request already under way (asked by an older run: only the chosen head or the sort changed since) is
      // awaited, not asked again; a different one replaces it in the worker.
      let pending = this.#pending.get(key);
      if (!pending) {
        pending = engine.heads(request, (p) => {
          if (this.#pending.has(key) && this.#showing === key) this.busy = p;
        });
        this.#pending.set(key, pending);
        // Attached first, so it runs before any run awaiting the outcome: a late progress is dropped from then on.
        void pending.then((outcome) => {
          this.#pending.delete(key);
          if (outcome.ok) this.#keep(key, outcome.result);
        });
      }
      this.#showing = key;
      this.busy = { done: 0, total: 1, what: HEAD_TOOL_LABELS[this.state.tool] };
      const outcome = await pending;
      if (sequence !== this.#sequence) return; // a newer run took over (and shows its own progress)
      this.busy = null;
      if (!outcome.ok) {
        this.error =
          outcome.code === 'aborted' ? { message: 'Cancelled.' } : { message: outcome.error, field: outcome.field };
        return;
      }
    }
    this.requestUpdate();
  }

  #keep(key: string, result: HeadsResult) {
    this.#results.set(key, result);
    if (this.#results.size > KEEP) this.#results.delete(this.#results.keys().next().value as string);
  }

  #result<T extends HeadsResult['tool']>(tool: T): Result<T> | null {
    if (!this.#model) return null;
    const request = this.#requests(this.#model.ref).find((r) => r.tool === tool);
    return request ? ((this.#results.get(this.#key(request)) as Result<T> | undefined) ?? null) : null;
  }

  #cancel = () => {
    this.engine?.().cancelHeads();
  };

  #export(result: HeadsResult, format: FigureFormat) {
    void exportFigure(result, format, {
      model: this.state.model,
      modelLabel: this.#model?.label ?? this.state.model,
      text: result.tool === 'patch' ? this.state.clean : this.state.text,
      head: this.state.head,
    });
  }

  #exports(result: HeadsResult) {
    const name = FIGURE_NAMES[result.tool];
    return html`<div class="exports" data-testid="exports-${result.tool}">
      ${(['png', 'svg', 'csv'] as const).map(
        (format) =>
          html`<button data-format=${format} aria-label=${`Download the ${name} as ${format.toUpperCase()}`}
            @click=${() => this.#export(result, format)}>${format.toUpperCase()}</button>`,
      )}
    </div>`;
  }

  #selectHead(head: HeadRefState) {
    this.#set({ head });
  }

  override render() {
    const { state } = this;
    return html`
      ${this.#problems.length ? html`<p class="problems" role="status">${this.#problems.join(' ')}</p>` : nothing}
      <div class="bar">
        <div class="setting">
          <label for="model">Model</label>
          <select id="model" @change=${(e: Event) => this.#pickModel((e.target as HTMLSelectElement).value)}>
            ${
              state.model && !this.choices.some((c) => c.id === state.model)
                ? html`<option value=${state.model} selected>${state.model}</option>`
                : nothing
            }
            ${!state.model ? html`<option value="" selected>Pick a model</option>` : nothing}
            ${this.choices.map((c) => html`<option value=${c.id} ?selected=${c.id === state.model}>${c.label}</option>`)}
          </select>
        </div>
        ${state.tool === 'patch' ? this.#patchBoxes() : this.#textBox()}
      </div>
      ${this.#modelError ? html`<p class="error" role="alert" data-testid="model-error">${this.#modelError}</p>` : nothing}
      <div role="tablist" aria-label="Tool">
        ${HEAD_TOOLS.map(
          (tool) =>
            html`<button role="tab" id="tab-${tool}" aria-selected=${tool === state.tool ? 'true' : 'false'}
              @click=${() => this.#set({ tool })}>${HEAD_TOOL_LABELS[tool]}</button>`,
        )}
      </div>
      <div class="status" role="status" aria-live="polite">
        ${
          this.busy
            ? html`<span>${this.busy.what}\u2026</span>
              <progress data-testid="progress" max=${this.busy.total} value=${this.busy.done}></progress>
              <button data-testid="cancel" @click=${this.#cancel}>Cancel</button>`
            : this.error && !this.error.field
              ? html`<span class="error" data-testid="error">${this.error.message}</span>`
              : nothing
        }
      </div>
      ${this.#chosenHead()}
      <div role="tabpanel" aria-labelledby="tab-${state.tool}">${this.#panel(state.tool)}</div>
    `;
  }

  #pickModel(model: string) {
    if (model === this.state.model) return;
    // The new model's own texts (resolved in #run): another model's tokens need not be this one's.
    this.#set({
      model,
      text: '',
      clean: '',
      corrupted: '',
      token: null,
      against: null,
      head: null,
      ablate: [],
      mlps: [],
    });
  }

  #fieldError(field: string) {
    return this.error?.field === field
      ? html`<p class="error" role="alert" data-testid="error-${field}">${this.error.message}</p>`
      : nothing;
  }

  #textBox() {
    return html`<div class="setting text-box">
      <label for="text">Text (every tool reads the prediction at its last token)</label>
      <textarea id="text" rows="1" .value=${this.state.text} aria-invalid=${this.error?.field === 'text' ? 'true' : 'false'}
        @input=${(e: Event) => this.#set({ text: (e.target as HTMLTextAreaElement).value }, true)}></textarea>
      ${this.#fieldError('text')}
    </div>`;
  }

  #patchBoxes() {
    return html`<div class="setting text-box">
        <label for="clean">Clean prompt</label>
        <textarea id="clean" rows="1" .value=${this.state.clean}
          @input=${(e: Event) => this.#set({ clean: (e.target as HTMLTextAreaElement).value }, true)}></textarea>
        ${this.#fieldError('clean')}
      </div>
      <div class="setting text-box">
        <label for="corrupted">Corrupted prompt (the same number of tokens)</label>
        <textarea id="corrupted" rows="1" .value=${this.state.corrupted}
          aria-invalid=${this.error?.field === 'corrupted' ? 'true' : 'false'}
          @input=${(e: Event) => this.#set({ corrupted: (e.target as HTMLTextAreaElement).value }, true)}></textarea>
        ${this.#fieldError('corrupted')}
      </div>`;
  }

  #chosenHead() {
    const { head, model, text } = this.state;
    if (!head) return nothing;
    return html`<p class="note" data-testid="chosen-head">
      Head <strong>L${head.layer}H${head.head}</strong> chosen:
      <a href=${exploreHeadHash(model, text, head)} data-testid="open-head">open it in the Explore views</a> (its attention on
      this text), or
      <a href=${headsStateToHash({ ...this.state, tool: 'ablate', ablate: toggleHead([], head) })}>switch it off</a>.
    </p>`;
  }

  #panel(tool: HeadTool) {
    switch (tool) {
      case 'detect':
        return this.#detectPanel();
      case 'ablate':
        return this.#ablatePanel();
      case 'lens':
        return this.#lensPanel();
      case 'attribute':
        return this.#attributePanel();
      case 'patch':
        return this.#patchPanel();
    }
  }

  #detectPanel() {
    const result = this.#result('detect');
    if (!result) return nothing;
    const { sort, head } = this.state;
    const rows = detectorRows(result, sort);
    const onCell = (e: CustomEvent<{ row: number; col: number }>) =>
      this.#selectHead({ layer: e.detail.row, head: e.detail.col });
    return html`<section class="figure" data-testid="figure-detect">
      <h3>Detector scores</h3>
      <p class="note">
        Each head\u2019s share of attention on the pattern of its kind, over ${result.detector.batch} sequences of
        ${result.detector.length} random tokens repeated once (seed ${result.detector.seed}); 1 is a perfect head, and the
        first half of each sequence has no copies to find, so an induction head scores about one half at best. The label is
        the head\u2019s best pattern on your text.
      </p>
      <ap-legend .scale=${weightScale(1)} label="score" no-blocked></ap-legend>
      <div class="maps">
        ${DETECTORS.map((kind) => {
          const spec = detectorHeatmap(result, kind);
          return html`<ap-heatmap data-detector=${kind} .values=${spec.values} .rows=${spec.rows} .cols=${spec.cols}
            .rowLabels=${spec.rowLabels} .colLabels=${spec.colLabels} .scale=${spec.scale} caption=${spec.caption}
            row-axis="layer" col-axis="head" col-unit="heads" show-numbers @cell-select=${onCell}></ap-heatmap>`;
        })}
      </div>
      <table class="detectors" data-testid="detector-table">
        <thead>
          <tr>
            ${DETECT_SORTS.map(
              (key) =>
                html`<th scope="col">
                  <button aria-pressed=${sort === key ? 'true' : 'false'} data-sort=${key} @click=${() => this.#set({ sort: key })}>
                    ${key === 'layer' ? 'head' : DETECTOR_LABELS[key]}${sort === key ? (key === 'layer' ? ' \u2191' : ' \u2193') : ''}
                  </button>
                </th>`,
            )}
            <th scope="col">pattern on the text</th>
          </tr>
        </thead>
        <tbody>
          ${rows.map(
            (r) =>
              html`<tr data-head="${r.layer}.${r.head}" aria-selected=${head && hasHead([head], r) ? 'true' : 'false'}
                @click=${() => this.#selectHead({ layer: r.layer, head: r.head })}>
                <th scope="row">
                  <button class="head" aria-label=${`Choose head ${r.layer}.${r.head}`}>L${r.layer}H${r.head}</button>
                </th>
                ${DETECTORS.map((k) => html`<td data-kind=${k}>${r.scores[k].toFixed(3)}</td>`)}
                <td class="label">${r.label} (${r.labelScore.toFixed(2)})</td>
              </tr>`,
          )}
        </tbody>
      </table>
      ${this.#exports(result)}
    </section>`;
  }

  #tokenPickers(target: TokenChoice, against: TokenChoice | null, candidates: TokenChoice[]) {
    const options = [...candidates];
    for (const t of [target, against]) if (t && !options.some((c) => c.id === t.id)) options.push(t);
    const pick = (value: string) => (value === '' ? null : Number(value));
    return html`<div class="bar">
      <div class="setting">
        <label for="token">Token explained</label>
        <select id="token" @change=${(e: Event) => this.#set({ token: pick((e.target as HTMLSelectElement).value) })}>
          ${options.map(
            (c) =>
              html`<option value=${c.id} ?selected=${c.id === target.id}>\u2018${c.token}\u2019 (p ${c.probability.toFixed(3)})</option>`,
          )}
        </select>
      </div>
      <div class="setting">
        <label for="against">minus the logit of</label>
        <select id="against" @change=${(e: Event) => this.#set({ against: pick((e.target as HTMLSelectElement).value) })}>
          <option value="" ?selected=${against === null}>nothing (the token\u2019s own logit)</option>
          ${options
            .filter((c) => c.id !== target.id)
            .map((c) => html`<option value=${c.id} ?selected=${c.id === against?.id}>\u2018${c.token}\u2019</option>`)}
        </select>
      </div>
    </div>`;
  }

  #ablatePanel() {
    const result = this.#result('ablate');
    const ranked = this.#result('rank');
    const { state } = this;
    const layers = result?.layers ?? ranked?.layers ?? 0,
      heads = result?.heads ?? ranked?.heads ?? 0;
    const switches = html`<div class="switches" style="grid-template-columns: auto repeat(${heads + 1}, auto)"
      data-testid="switches">
      ${Array.from({ length: layers }, (_, layer) => [
        html`<span>L${layer}</span>`,
        ...Array.from(
          { length: heads },
          (_, head) =>
            html`<label><input type="checkbox" data-head="${layer}.${head}" .checked=${hasHead(state.ablate, { layer, head })}
              @change=${() => this.#set({ ablate: toggleHead(state.ablate, { layer, head }) })} />H${head}</label>`,
        ),
        html`<label><input type="checkbox" data-mlp=${layer} .checked=${state.mlps.includes(layer)}
          @change=${() =>
            this.#set({
              mlps: state.mlps.includes(layer)
                ? state.mlps.filter((l) => l !== layer)
                : [...state.mlps, layer].sort((a, b) => a - b),
            })} />MLP</label>`,
      ])}
    </div>`;
    const change = result ? ablationChange(result) : null;
    return html`<section class="figure" data-testid="figure-ablate">
        <h3>Switch parts off</h3>
        ${result ? this.#tokenPickers(result.target, result.against, result.before.top) : nothing}
        <div class="bar">
          <div class="setting">
            <label for="ablation">Switched off by</label>
            <select id="ablation" @change=${(e: Event) => this.#set({ ablation: (e.target as HTMLSelectElement).value as HeadsState['ablation'] })}>
              ${ABLATIONS.map(
                (a) =>
                  html`<option value=${a} ?selected=${a === state.ablation}>${a === 'zero' ? 'zero (its output set to 0)' : 'mean (its mean output over a reference batch)'}</option>`,
              )}
            </select>
          </div>
          <button @click=${() => this.#set({ ablate: [], mlps: [] })} ?disabled=${!state.ablate.length && !state.mlps.length}>
            Switch all back on
          </button>
        </div>
        ${switches}
        ${
          result && change
            ? html`<p class="change" data-testid="ablation-change" data-before=${change.probability[0]} data-after=${change.probability[1]}>
              p(\u2018${result.target.token}\u2019) <strong>${change.probability[0].toFixed(3)}</strong> \u2192
              <strong>${change.probability[1].toFixed(3)}</strong>; ${logitName(result.target, result.against)}
              <strong>${formatValue(change.logit[0])}</strong> \u2192 <strong>${formatValue(change.logit[1])}</strong>
              (${change.logitChange >= 0 ? '+' : ''}${formatValue(change.logitChange)}). The top prediction
              ${
                change.topChanged
                  ? html`changes from \u2018${result.before.top[0].token}\u2019 to <strong data-testid="new-top">\u2018${result.after.top[0].token}\u2019</strong>.`
                  : html`stays \u2018${result.after.top[0].token}\u2019.`
              }
            </p>`
            : nothing
        }
      </section>
      ${
        ranked
          ? html`<section class="figure" data-testid="figure-rank">
            <h3>What the prediction depends on</h3>
            <p class="note">
              Each part switched off alone (${state.ablation} ablation), by how much the
              ${logitName(ranked.target, ranked.against)} (${formatValue(ranked.logit)} in the full run) changes; the most needed first.
            </p>
            ${barsSvg(rankChart(ranked))}
            <ol class="ranking" data-testid="ranking">
              ${ranked.ranking.slice(0, 8).map(
                (e) => html`<li data-part=${e.part === 'head' ? `${e.layer}.${e.head}` : `mlp${e.layer}`}>
                  ${e.part === 'head' ? `L${e.layer}H${e.head}` : `L${e.layer} MLP`}: ${formatValue(e.change)}
                </li>`,
              )}
            </ol>
            ${this.#exports(ranked)}
          </section>`
          : nothing
      }`;
  }

  #lensPanel() {
    const result = this.#result('lens');
    if (!result) return nothing;
    const spec = lensGrid(result);
    const seq = result.tokens.length;
    const last = (layer: number) => result.predictionProbs[layer * seq + seq - 1];
    return html`<section class="figure" data-testid="figure-lens">
      <h3>Logit lens</h3>
      <p class="note">
        Each layer\u2019s residual stream read through the final norm and the unembedding, as if it were the last layer: the
        top next token in each cell, its probability as colour (hover a cell for the runners-up). Early layers were never
        trained to be read this way: a view, not the model\u2019s belief.
      </p>
      <ap-legend .scale=${spec.scale} label="probability of the top token" no-blocked></ap-legend>
      ${textGridSvg(spec)}
      <p class="note" data-testid="lens-final">
        The final prediction \u2018${result.prediction[seq - 1]}\u2019, layer by layer:
        ${Array.from({ length: result.layers }, (_, l) => `L${l} ${last(l).toFixed(3)}`).join(', ')}.
      </p>
      ${this.#exports(result)}
    </section>`;
  }

  #attributePanel() {
    const result = this.#result('attribute');
    if (!result) return nothing;
    return html`<section class="figure" data-testid="figure-attribute">
      <h3>Direct logit attribution</h3>
      ${this.#tokenPickers(result.target, result.against, result.candidates)}
      <p class="note">
        What each head and MLP writes straight into the ${logitName(result.target, result.against)} at the last position, through
        the final norm with its scale frozen at this run\u2019s value; the bars sum to ${formatValue(result.logit)}. A head whose
        output later layers read (an induction circuit\u2019s previous-token head) gets little direct credit.
      </p>
      ${barsSvg(attributionChart(result, this.state.head))}
      ${this.#exports(result)}
    </section>`;
  }

  #patchPanel() {
    const result = this.#result('patch');
    if (!result) return nothing;
    return html`<section class="figure" data-testid="figure-patch">
      <h3>Activation patching</h3>
      <p class="note">
        Each cell: the corrupted prompt run with one activation taken from the clean run, and the share of
        logit(\u2018${result.good.token}\u2019) \u2212 logit(\u2018${result.bad.token}\u2019) that comes back (0: none, 1: all of the
        clean run\u2019s ${formatValue(result.difference.clean)} against the corrupted run\u2019s
        ${formatValue(result.difference.corrupted)}). Attribution patching estimates every cell at once from one forward and one
        backward pass (a first-order guess).
      </p>
      ${PATCH_OVER.map((over) => {
        const map = result.maps[over];
        const agreement = patchAgreement(map.exact, map.estimate);
        return html`<div data-over=${over}>
          <ap-legend .scale=${patchHeatmap(result, over, 'exact').scale} label="share of the difference recovered" no-blocked></ap-legend>
          <div class="maps">
            ${(['exact', 'estimate'] as const).map((method) => {
              const spec = patchHeatmap(result, over, method);
              return html`<ap-heatmap data-method=${method} .values=${spec.values} .rows=${spec.rows} .cols=${spec.cols}
                .rowLabels=${spec.rowLabels} .colLabels=${spec.colLabels} .scale=${spec.scale} caption=${spec.caption}
                row-axis="layer" col-axis=${spec.colAxis} col-unit=${spec.colUnit} ?show-numbers=${spec.showNumbers}></ap-heatmap>`;
            })}
          </div>
          <p class="note" data-testid="agreement-${over}" data-correlation=${agreement.correlation}>
            Agreement: correlation ${Number.isNaN(agreement.correlation) ? 'undefined (a constant map)' : agreement.correlation.toFixed(3)};
            the same sign in ${(agreement.sameSign * 100).toFixed(0)}% of the cells; ${agreement.topShared} of the exact map\u2019s
            ${agreement.top} largest cells also among the estimate\u2019s; the largest gap ${formatValue(agreement.largestGap)}.
            Exact ${(map.milliseconds.exact / 1000).toFixed(2)} s, attribution ${(map.milliseconds.estimate / 1000).toFixed(2)} s.
          </p>
        </div>`;
      })}
      ${this.#exports(result)}
    </section>`;
  }
}

customElements.define('ap-heads', HeadsView);

declare global {
  interface HTMLElementTagNameMap {
    'ap-heads': HeadsView;
  }
}
