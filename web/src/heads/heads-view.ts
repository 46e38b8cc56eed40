// <ap-heads>: the "What heads do" view (issue 29). For the model picked (a shipped trained
// checkpoint, the Train view's model or the pretrained checkpoint loaded on this page) it runs
// one tool at a time in the engine worker, with progress and a cancel: the head detectors (a
// sortable grid; a head clicked opens in the Explore views), ablation switches with the
// prediction's change and the ranked "depends on" list, the logit lens, direct logit
// attribution, and activation patching of a clean and a corrupted prompt. Its state lives in
// the URL hash ('#heads&...', model/heads-state.ts); every figure exports as PNG, SVG and CSV.
import { LitElement, html, nothing, type PropertyValues } from 'lit';
import type { EngineClient } from '../workers/client.js';
import type { HeadsModelRef, HeadsOutcome, HeadsProgress, HeadsRequest, HeadsResult } from '../model/heads-results.js';
import {
  DEFAULT_HEADS_STATE,
  HEAD_TOOLS,
  HEAD_TOOL_LABELS,
  exploreHeadHash,
  headsStateFromHash,
  headsStateToHash,
  toggleHead,
  type HeadRefState,
  type HeadTool,
  type HeadsState,
} from '../model/heads-state.js';
import { HashWriter } from '../ui/hash-writer.js';
import { headsModel, headsModelChoices, type HeadsModel, type HeadsModelChoice } from './heads-models.js';
import { FIGURE_NAMES, exportFigure, type FigureFormat } from './heads-export.js';
import { ablatePanel, attributePanel, detectPanel, lensPanel, patchPanel, type PanelActions } from './heads-panels.js';
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
    void this.engine?.().headTools()?.cancelHeads();
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
    const engine = this.engine?.().headTools();
    for (const request of this.#requests(model.ref)) {
      const key = this.#key(request);
      if (this.#results.has(key)) continue;
      if (!engine) {
        this.error = { message: 'This page\u2019s engine has no head tools.' };
        return;
      }
      // A request already under way (asked by an older run: only the chosen head or the sort changed since) is
      // awaited, not asked again; a different one replaces it in the worker.
      let pending = this.#pending.get(key);
      if (!pending) {
        pending = engine
          .heads(request, (p) => {
            if (this.#pending.has(key) && this.#showing === key) this.busy = p;
          })
          .catch((error: unknown): HeadsOutcome => ({ ok: false, error: `the engine failed: ${String(error)}` }));
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
    void this.engine?.().headTools()?.cancelHeads();
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
    // An error naming no box the tool shows goes to the status line (the boxes show their own).
    const statusError = this.error && !this.#boxes().includes(this.error.field ?? '') ? this.error : null;
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
      <!-- The status line sits beside the tabs (below them where they wrap): an idle one takes no band of its own. -->
      <div class="tool-bar">
        <div role="tablist" aria-label="Tool">
          ${HEAD_TOOLS.map(
            (tool) =>
              html`<button role="tab" id="tab-${tool}" aria-selected=${tool === state.tool ? 'true' : 'false'}
                @click=${() => this.#set({ tool })}>${HEAD_TOOL_LABELS[tool]}</button>`,
          )}
        </div>
        <div class="status ${this.busy || statusError ? '' : 'idle'}" role="status" aria-live="polite">
          ${
            this.busy
              ? html`<span>${this.busy.what}\u2026</span>
                <progress data-testid="progress" max=${this.busy.total} value=${this.busy.done}></progress>
                <button data-testid="cancel" @click=${this.#cancel}>Cancel</button>`
              : statusError
                ? html`<span class="error" data-testid="error">${statusError.message}</span>`
                : nothing
          }
        </div>
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

  /** The typed boxes the current tool shows: an error with another field (or none) goes to the status line. */
  #boxes(): string[] {
    return this.state.tool === 'patch' ? ['clean', 'corrupted'] : ['text'];
  }

  #fieldError(field: string) {
    return this.error?.field === field
      ? html`<p class="error" role="alert" data-testid="error-${field}">${this.error.message}</p>`
      : nothing;
  }

  #textBox() {
    return html`<div class="setting text-box">
      <label for="text">Text (every tool reads the prediction after its last token; BERT: at its last [MASK])</label>
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
    const act: PanelActions = {
      set: (change) => this.#set(change),
      selectHead: (head) => this.#selectHead(head),
      exports: (result) => this.#exports(result),
    };
    switch (tool) {
      case 'detect':
        return detectPanel(this.#result('detect'), this.state, act);
      case 'ablate':
        return ablatePanel(this.#result('ablate'), this.#result('rank'), this.state, act);
      case 'lens':
        return lensPanel(this.#result('lens'), act);
      case 'attribute':
        return attributePanel(this.#result('attribute'), this.state, act);
      case 'patch':
        return patchPanel(this.#result('patch'), act);
    }
  }
}

customElements.define('ap-heads', HeadsView);

declare global {
  interface HTMLElementTagNameMap {
    'ap-heads': HeadsView;
  }
}
