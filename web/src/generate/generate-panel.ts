// <ap-generate-panel>: generation you can step through, for a causal model the engine's
// worker holds (a loaded pretrained checkpoint or a trained toy decoder). One
// self-contained element whose whole state is one serialisable object
// (model/generation-state.ts: prompt, chat, the sampler's settings, the branch's token
// ids), read from and written to its attributes or, with `sync-hash`, the URL hash's
// 'gen.*' keys, so a copied link or an embed reopens the same prompt, settings and branch.
//
// Public interface (kept stable: the element and iframe embed it):
//   properties  state: GenerationState   defaults: GenerationState (what a link leaves out)
//               source: GenerationSource | null   engine: GenerationApi | null
//               unavailable: string ('' or why this model cannot generate)   chatAvailable: boolean
//               open: boolean (closed, it is a button that opens it, and nothing runs)
//   attributes  prompt, chat, temperature, top-k, top-p, min-p, repetition-penalty, seed,
//               max-new-tokens, path (ids joined by '.'), open, sync-hash
//   methods     step(), generate(), stop(), branch(position, token), goTo(path)
//   events      'generation-state' (detail: { state }) after each change of the state
//
// The engine work runs in the worker (workers/generation-run.ts): opening a branch runs
// its tokens once (their attention, every layer and head); each step posts the new
// token, the distribution it was drawn from, its attention row and the cache's bytes.
// Slider moves redraw the distribution at once from the step's candidates
// (model/next-token.ts); the next step reopens the branch with the new settings.
import { LitElement, html, nothing, type PropertyValues } from 'lit';
import {
  DEFAULT_GENERATION_STATE,
  GENERATION_FIELDS,
  GENERATION_SETTINGS,
  attributeName,
  generationStateFromAttributes,
  generationHashPart,
  generationStateFromHash,
  linkTree,
  samplerSettings,
  withGenerationState,
  type GenerationSetting,
  type GenerationState,
  type SamplerSettings,
} from '../model/generation-state.js';
import { redistribute, type Candidate, type Filters } from '../model/next-token.js';
import { AttentionRows, branchTree, doneText, speedText, withPath } from '../model/generation-view.js';
import type { GenerationApi, GenerationOpened, GenerationSource, StepView } from '../workers/generation-run.js';
import { trainedPromptHint } from '../settings/trained-prompt.js';
import { HashWriter } from '../ui/hash-writer.js';
import { GENERATE_STYLES } from './generate-styles.js';
import { nextTokenChart } from './next-token-chart.js';
import { branchTreeView } from './branch-tree-view.js';
import { cacheView } from './cache-view.js';
import { HeadFrames, attentionGrowth } from './attention-growth.js';

export type { GenerationState } from '../model/generation-state.js';
export type { GenerationApi, GenerationSource } from '../workers/generation-run.js';

/** A step kept for its prefix: the distribution it drew from, and the settings it drew with. */
interface KeptStep {
  position: number;
  candidates: Candidate[];
  drawn: Filters;
  entropy: number;
}

/** What is open in the worker: the branch's tokens and their attention. */
interface Branch {
  key: string;
  opened: GenerationOpened;
  tokens: string[];
  ids: number[];
  /** Every layer's and head's weights of the branch's tokens, one row more per step. */
  attention: AttentionRows;
  done: boolean;
  /** Max new tokens as the branch was opened (a run goes on with it). */
  maxNewTokens: number;
}

const OBSERVED = [...GENERATION_FIELDS.map(attributeName)];

function filtersOf(state: SamplerSettings): Filters {
  return { temperature: state.temperature, topK: state.topK, topP: state.topP, minP: state.minP };
}

export class GeneratePanel extends LitElement {
  static override properties = {
    state: { attribute: false },
    defaults: { attribute: false },
    source: { attribute: false },
    engine: { attribute: false },
    unavailable: { type: String },
    open: { type: Boolean, reflect: true },
    chatAvailable: { type: Boolean, attribute: 'chat-available' },
    syncHash: { type: Boolean, attribute: 'sync-hash' },
    layer: { state: true },
    running: { state: true },
    error: { state: true },
    selected: { state: true },
  };
  static override styles = GENERATE_STYLES;

  /** The prompt, the sampler's settings and the branch (model/generation-state.ts). */
  declare state: GenerationState;
  /** What each field is when the hash does not say (a link names only what differs): the page's prompt to start from. */
  declare defaults: GenerationState;
  /** The model the worker generates with; null: none chosen. */
  declare source: GenerationSource | null;
  /** Where generation runs (the page's worker: workers/page-client.ts pageGenerationApi). */
  declare engine: GenerationApi | null;
  /** Why the model shown cannot generate ('' when it can): an encoder (BERT), untrained weights, … */
  declare unavailable: string;
  /** Shown in full and generating (closed: a button that opens it; nothing runs). */
  declare open: boolean;
  /** The model's tokenizer has a chat template: the prompt may be chat turns. */
  declare chatAvailable: boolean;
  /** Mirror the state in the URL hash ('gen.*' keys) and read it from there. */
  declare syncHash: boolean;
  /** The layer whose heads are drawn. */
  declare layer: number;
  declare running: boolean;
  declare error: string;
  /** The position whose distribution the chart shows (null: the latest step's). */
  declare selected: number | null;

  /** The state as this element last set it (another one was set from outside). */
  #assigned: GenerationState | null = null;
  #branch: Branch | null = null;
  /** The steps seen since the prompt was set, by the ids before them: any branch with that prefix has that distribution next. */
  #steps = new Map<string, KeptStep>();
  /** Each token's text as seen (the branch's, the candidates'), for the tree's labels. */
  #texts = new Map<number, string>();
  #explored: number[][] = [];
  /** Branches of the tree the link leaves out (too many ids for a URL). */
  #dropped = 0;
  #cacheBytes: number[] = [];
  #stepMs: number[] = [];
  #runStarted = 0;
  #runTokens = 0;
  /** Tokens of the branch being stepped through again (0: no replay under way). */
  #replaying = 0;
  /** The speed shown is a replay's (a link's branch stepped through again, its open included), not a run's. */
  #replaySpeed = false;
  #runWallMs = 0;
  #heapBytes = 0;
  /** The model the state's branch (its token ids) belongs to: another model's ids mean other tokens. */
  #pathSource: string | null = null;
  /** The last open failed (its error is shown, alone: nothing of a branch is open). */
  #failed = false;
  #opening: Promise<Branch | null> | null = null;
  #openTimer: ReturnType<typeof setTimeout> | undefined;
  #frame = 0;
  /** The heatmaps drawn, one head brought up to date per frame. */
  #heads = new HeadFrames();
  #hash = new HashWriter(this, 300);

  static override get observedAttributes(): string[] {
    return [...super.observedAttributes, ...OBSERVED];
  }

  constructor() {
    super();
    this.#assign({ ...DEFAULT_GENERATION_STATE, path: [] });
    this.defaults = DEFAULT_GENERATION_STATE;
    this.source = null;
    this.engine = null;
    this.unavailable = '';
    this.open = false;
    this.chatAvailable = false;
    this.syncHash = false;
    this.layer = 0;
    this.running = false;
    this.error = '';
    this.selected = null;
  }

  override attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    super.attributeChangedCallback(name, old, value);
    if (!OBSERVED.includes(name) || old === value) return;
    const { state, problems } = generationStateFromAttributes((n) => this.getAttribute(n), this.state);
    this.error = problems.join(' ');
    this.#explored = exploredOf(state); // the tree the attributes name (the one shown, when they do not)
    this.#setState(state, false);
  }

  override connectedCallback(): void {
    super.connectedCallback();
    if (this.syncHash) {
      this.#readHash();
      window.addEventListener('hashchange', this.#onHashChange);
    }
  }

  override disconnectedCallback(): void {
    super.disconnectedCallback();
    window.removeEventListener('hashchange', this.#onHashChange);
    clearTimeout(this.#openTimer);
    cancelAnimationFrame(this.#frame);
    void this.engine?.generationDispose();
    this.#branch = null;
  }

  protected override willUpdate(changed: PropertyValues<this>): void {
    const stateFromOutside = changed.has('state') && this.state !== this.#assigned;
    // A state set from outside (the `state` property): open its branch; the hash follows.
    if (stateFromOutside) {
      const before = (changed.get('state') as GenerationState | undefined) ?? DEFAULT_GENERATION_STATE;
      this.#assigned = this.state;
      this.#explored = exploredOf(this.state); // the tree it names
      this.#changed(before, this.state, false);
    }
    if (changed.has('open') && this.open) this.#scheduleOpen(0);
    if (changed.has('source') || changed.has('engine') || changed.has('unavailable')) {
      if (changed.has('source')) this.#modelChanged(stateFromOutside);
      this.#branch = null;
      this.#steps.clear();
      this.#texts.clear();
      this.#explore(exploredOf(this.state));
      this.#scheduleOpen(0);
    }
  }

  /**
   * Another model: its branch, distributions, cache and speed are the old model's, dropped (a run of the old model
   * stops). The branch's ids stay only on the first model (a link's) or when a state came with the new model.
   */
  #modelChanged(stateFromOutside: boolean): void {
    const source = this.source;
    const key = source
      ? 'trained' in source
        ? `trained:${source.trained.key}`
        : `pretrained:${source.pretrained.key}`
      : null;
    if (key === null || key === this.#pathSource) return;
    const before = this.#pathSource;
    this.#pathSource = key;
    if (before === null) return;
    if (this.running) void this.engine?.generationStop();
    if (!stateFromOutside) this.#explore([]);
    this.#steps.clear();
    this.#texts.clear();
    this.#cacheBytes = [];
    this.#stepMs = [];
    this.#runTokens = 0;
    this.#runWallMs = 0;
    this.selected = null;
    if (!stateFromOutside && this.state.path.length) this.#setState({ ...this.state, path: [] }, true);
  }

  /** One new token (opening the branch first if the prompt, branch or settings changed). */
  async step(): Promise<void> {
    await this.#run(1);
  }

  /** New tokens until the end (max new tokens, an end-of-sequence token, the context) or stop(). */
  async generate(): Promise<void> {
    await this.#run(Number.MAX_SAFE_INTEGER);
  }

  /** Stops a generate() between two steps. */
  stop(): void {
    if (this.running) void this.engine?.generationStop();
  }

  /** "What if this token?": the branch up to `position`, then `token` there. */
  async branch(position: number, token: number): Promise<void> {
    const promptLength = this.#branch?.opened.promptLength ?? 0;
    const path = [...this.state.path.slice(0, Math.max(0, position - promptLength)), token];
    await this.goTo(path);
  }

  /** Shows the branch `path` (token ids after the prompt), e.g. one of the tree's. */
  async goTo(path: number[]): Promise<void> {
    if (this.running) return;
    this.#setState({ ...this.state, path: [...path] }, true);
    this.selected = null;
    await this.#open();
  }

  /** One drawing per frame, however fast the steps come; each brings one more head's heatmap up to date. */
  #nextFrame(): void {
    if (this.#frame) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      const branch = this.#branch;
      if (branch) this.#heads.advance(branch.attention, this.layer, branch.tokens);
      this.requestUpdate();
    });
  }

  protected override updated(): void {
    const branch = this.#branch;
    if (branch && this.#heads.behind(branch.attention, this.layer)) this.#nextFrame();
  }

  #emit(): void {
    this.dispatchEvent(
      new CustomEvent('generation-state', { detail: { state: this.state }, bubbles: true, composed: true }),
    );
  }

  /** The state, set here (not from outside: willUpdate tells them apart), its tree the branches explored but its own. */
  #assign(state: GenerationState): void {
    const { tree, dropped } = linkTree(this.#explored, state.path);
    this.#dropped = dropped;
    this.#assigned = this.state = { ...state, tree };
  }

  /** The branches explored are `paths` now (the state's tree follows). */
  #explore(paths: number[][]): void {
    this.#explored = paths;
    this.#assign(this.state);
  }

  #writeHash(typing = false): void {
    if (this.syncHash) this.#hash.write(() => withGenerationState(location.hash, this.state, this.defaults), typing);
  }

  /** A new state: the hash follows (typing: once it pauses); `byPerson`: announced with an event. */
  #setState(state: GenerationState, byPerson: boolean, typing = false): void {
    const before = this.state;
    this.#assign(state);
    this.#changed(before, state, typing);
    if (byPerson) this.#emit(); // after #changed: a new prompt's state has its tree (none) by then
  }

  /** After a change of the state: the hash, and the branch to open (a new prompt starts the tree again). */
  #changed(before: GenerationState, state: GenerationState, typing: boolean): void {
    if (before.prompt !== state.prompt || before.chat !== state.chat) {
      this.#steps.clear();
      this.#explore(exploredOf(state));
      this.#scheduleOpen(typing ? 400 : 0);
    } else if (!samePath(before.path, state.path) && !this.running) this.#scheduleOpen(0);
    this.#writeHash(typing);
  }

  #readHash(): void {
    if (generationHashPart(location.hash) !== '') this.open = true; // a link with the panel's state opens it
    const { state, problems } = generationStateFromHash(location.hash, this.defaults);
    this.error = problems.join(' ');
    this.#explored = exploredOf(state);
    this.#assign(state);
    this.#scheduleOpen(0);
  }

  #onHashChange = () => {
    this.#hash.cancel();
    if (withGenerationState(location.hash, this.state, this.defaults) === (location.hash || '')) return;
    this.#readHash();
  };

  /** The key of what the worker must have open for the state now. */
  #key(): string {
    const s = this.state;
    return JSON.stringify([this.source, s.prompt, s.chat, s.path, samplerSettings(s)]);
  }

  #scheduleOpen(delay: number): void {
    clearTimeout(this.#openTimer);
    if (!this.open || !this.source || !this.engine || this.unavailable) return;
    this.#openTimer = setTimeout(() => void this.#open(), delay);
  }

  /** Opens the state's branch in the worker (if not open already): its tokens, their attention. */
  async #open(): Promise<Branch | null> {
    clearTimeout(this.#openTimer);
    const { engine, source } = this;
    if (!this.open || !engine || !source || this.unavailable) return null;
    const key = this.#key();
    if (this.#branch?.key === key) return this.#branch;
    if (this.#opening) await this.#opening;
    if (this.#branch?.key === key) return this.#branch;
    const state = this.state;
    // a branch whose distributions this panel has not seen (a link's) is stepped through again in the worker
    const replay = this.#needsReplay(state);
    const names = [...new Set(this.#explored.flat())].filter((id) => !this.#texts.has(id));
    this.#replaying = replay ? state.path.length : 0;
    if (replay) this.requestUpdate();
    this.#opening = (async () => {
      const started = performance.now();
      const opened = await engine.generationOpen({
        source,
        prompt: state.prompt,
        chat: state.chat && this.chatAvailable,
        settings: samplerSettings(state),
        path: state.path,
        replay,
        names,
      });
      if (this.source !== source) return null; // another model was picked meanwhile: its own open follows
      if (!opened.ok && opened.field === 'superseded') return null; // another open ended this one: its own follows
      if (!opened.ok) {
        this.error = opened.error;
        this.#branch = null;
        this.#failed = true;
        this.#cacheBytes = []; // an earlier branch's and run's
        this.#stepMs = [];
        this.#runTokens = 0;
        return null;
      }
      this.error = '';
      this.#failed = false;
      this.#heapBytes = opened.heapBytes;
      opened.ids.forEach((id, i) => this.#texts.set(id, opened.tokens[i]));
      names.forEach((id, i) => this.#texts.set(id, opened.names[i]));
      if (opened.replayed.length) this.#replayed(opened, filtersOf(state), performance.now() - started);
      this.#explore(withPath(this.#explored, state.path));
      this.#writeHash();
      this.layer = Math.min(this.layer, opened.model.layers - 1);
      return (this.#branch = {
        key,
        opened,
        tokens: [...opened.tokens],
        ids: [...opened.ids],
        attention: new AttentionRows(opened.attention, opened.model.layers, opened.model.heads, opened.ids.length),
        done: opened.done,
        maxNewTokens: state.maxNewTokens,
      });
    })();
    try {
      return await this.#opening;
    } finally {
      this.#opening = null;
      this.#replaying = 0;
      this.requestUpdate();
    }
  }

  /** Whether a position of `state`'s branch lacks the distribution it was drawn from (a link's branch: all of them). */
  #needsReplay(state: GenerationState): boolean {
    const opened = this.#branch?.opened;
    if (state.path.length === 0) return false;
    if (!opened) return true;
    const ids = [...opened.ids.slice(0, opened.promptLength), ...state.path];
    return state.path.some((_, i) => !this.#steps.has(prefixKey(ids, opened.promptLength + i)));
  }

  /** A branch stepped through again: its steps' distributions, the cache it grew and the speed of its steps. */
  #replayed(opened: GenerationOpened, drawn: Filters, wallMs: number): void {
    for (const step of opened.replayed) {
      for (const c of step.candidates) this.#texts.set(c.token, c.text);
      this.#steps.set(prefixKey(opened.ids, step.position), { ...step, drawn });
    }
    this.#cacheBytes = opened.cacheBytes;
    this.#stepMs = opened.replayed.map((step) => step.ms);
    this.#runTokens = opened.replayed.length;
    this.#replaySpeed = true;
    this.#runWallMs = wallMs;
  }

  async #run(count: number): Promise<void> {
    if (this.running || !this.engine) return;
    const branch = await this.#open();
    if (!branch || branch.done) return;
    this.running = true;
    this.selected = null;
    this.#runStarted = performance.now();
    this.#runTokens = 0;
    this.#stepMs = [];
    const drawn = filtersOf(this.state);
    try {
      const ended = await this.engine.generationRun(count, (step) => this.#onStep(branch, step, drawn));
      if (!ended.ok) this.error = ended.error;
      else {
        branch.done = ended.done;
        this.#heapBytes = ended.heapBytes;
      }
    } finally {
      this.running = false;
      this.#runWallMs = performance.now() - this.#runStarted;
      // the state's path grew with each step: what is open is that path now
      if (this.#branch === branch) branch.key = this.#key();
      this.#setState({ ...this.state }, true);
      this.requestUpdate();
    }
  }

  #onStep(branch: Branch, step: StepView, drawn: Filters): void {
    if (this.#branch !== branch) return;
    branch.attention.add(step.attention);
    branch.ids.push(step.token);
    branch.tokens.push(step.text);
    for (const c of step.candidates) this.#texts.set(c.token, c.text);
    this.#steps.set(prefixKey(branch.ids, step.position), {
      position: step.position,
      candidates: step.candidates,
      drawn,
      entropy: step.entropy,
    });
    this.#cacheBytes = step.cacheBytes;
    this.#stepMs.push(step.ms);
    this.#runTokens++;
    this.#replaySpeed = false;
    this.#runWallMs = performance.now() - this.#runStarted;
    this.#assign({ ...this.state, path: [...this.state.path, step.token] });
    this.#explore(withPath(this.#explored, this.state.path));
    this.#nextFrame();
  }

  #onPrompt = (event: Event) => {
    const prompt = (event.target as HTMLTextAreaElement).value;
    this.#setState({ ...this.state, prompt, path: [], tree: [] }, true, true);
  };

  #onChat = (event: Event) => {
    this.#setState({ ...this.state, chat: (event.target as HTMLInputElement).checked, path: [], tree: [] }, true);
  };

  #onSetting(setting: GenerationSetting, event: Event) {
    const input = event.target as HTMLInputElement;
    const value = Number(input.value);
    const ok =
      input.value !== '' &&
      Number.isFinite(value) &&
      (setting.minExclusive ? value > setting.min : value >= setting.min) &&
      value <= setting.max &&
      (setting.type === 'number' || Number.isInteger(value));
    if (!ok) {
      this.error = `${setting.label}: '${input.value}' is outside ${setting.min}..${setting.max}.`;
      return;
    }
    this.error = '';
    this.#setState({ ...this.state, [setting.name]: value }, true, event.type === 'input');
  }

  #settingControl(s: GenerationSetting) {
    const value = this.state[s.name];
    const id = `gen-${s.name}`;
    const min = s.minExclusive ? s.step : s.min;
    return html`<label class="setting" for=${id} title=${s.help}>
      <span>${s.label}</span>
      ${
        s.place === 'slider'
          ? html`<input id=${id} type="range" min=${min} max=${s.max} step=${s.step} .value=${String(value)}
              data-setting=${s.name} @input=${(e: Event) => this.#onSetting(s, e)} />`
          : html`<input id=${id} type="number" min=${min} max=${s.max} step=${s.step} .value=${String(value)}
              data-setting=${s.name} @change=${(e: Event) => this.#onSetting(s, e)} />`
      }
      <output>${s.name === 'topK' && value === 0 ? 'off' : String(value)}</output>
    </label>`;
  }

  /** The distribution of the branch's token at `position`, if a step drew it (on this branch or another with its prefix). */
  #stepAt(position: number): KeptStep | null {
    const branch = this.#branch;
    if (!branch || position < branch.opened.promptLength || position >= branch.ids.length) return null;
    return this.#steps.get(prefixKey(branch.ids, position)) ?? null;
  }

  /** The step the chart shows: the selected position's, else the branch's last token's. */
  #shownStep(): KeptStep | null {
    return this.#stepAt(this.selected ?? (this.#branch?.ids.length ?? 0) - 1);
  }

  override render() {
    if (this.unavailable)
      return html`<section class="panel unavailable" aria-label="Generate">
        <h2>Generate</h2><p class="why" data-testid="generate-unavailable">${this.unavailable}</p></section>`;
    if (!this.source)
      return html`<section class="panel" aria-label="Generate"><h2>Generate</h2>
        <p class="why">Pick a model that writes (a trained decoder, or a real model) to generate with it.</p></section>`;
    if (!this.open)
      return html`<section class="panel" aria-label="Generate"><h2>Generate</h2>
        <p class="why">Watch this model write, one token at a time: the distribution each token is drawn from, its
          attention in every head, the KV cache as it grows.
          <button data-action="open-generate" @click=${() => (this.open = true)}>Generate with this model</button></p>
      </section>`;
    const branch = this.#branch;
    const facts = branch?.opened.model;
    const step = this.#shownStep();
    const shown =
      step && facts
        ? redistribute(step.candidates, step.drawn, filtersOf(this.state), facts.vocabSize, step.entropy)
        : null;
    // a finished branch steps on once a setting changes (more new tokens allowed): the next run reopens it
    const canRun = !this.running && !!branch && (!branch.done || branch.key !== this.#key());
    const sliders = GENERATION_SETTINGS.filter((s) => s.place === 'slider');
    const drawer = GENERATION_SETTINGS.filter((s) => s.place === 'drawer');
    const engineMs = this.#stepMs.reduce((a, b) => a + b, 0);
    // the prompt (or branch) could not be opened: its error alone, nothing of an earlier branch or run
    const failed = !branch && this.#failed;
    return html`<section class="panel" aria-label="Generate">
      <h2>Generate</h2>
      <div class="prompt">
        <label for="gen-prompt">${this.state.chat && this.chatAvailable ? 'Chat turns (role: text)' : 'Prompt'}</label>
        <textarea id="gen-prompt" rows="2" .value=${this.state.prompt} @input=${this.#onPrompt}
          ?disabled=${this.running}></textarea>
        ${
          this.chatAvailable
            ? html`<label class="chat"><input type="checkbox" .checked=${this.state.chat} @change=${this.#onChat} />
                chat turns, rendered by the model’s chat template</label>`
            : nothing
        }
        ${
          this.source && 'trained' in this.source
            ? html`<p class="hint" data-testid="generate-hint">${trainedPromptHint(this.source.trained.settings)}</p>`
            : nothing
        }
        ${branch?.opened.rendered ? html`<p class="rendered" title="what the model reads">${branch.opened.rendered}</p>` : nothing}
      </div>
      <div class="actions">
        <button data-action="generate" ?disabled=${!canRun} @click=${() => this.generate()}>Generate</button>
        <button data-action="step" ?disabled=${!canRun} @click=${() => this.step()}>Step</button>
        <button data-action="stop" ?disabled=${!this.running} @click=${() => this.stop()}>Stop</button>
        <span class="speed" data-testid="speed" aria-live="off">${failed ? '' : `${this.#replaySpeed && this.#runTokens ? 'replayed: ' : ''}${speedText(this.#runTokens, this.#runWallMs, engineMs, this.#stepMs.length)}`}</span>
        <span class="status" data-testid="generate-status" data-running=${this.running ? '1' : '0'}
          data-done=${branch?.done ? '1' : '0'} data-heap-bytes=${this.#heapBytes}
          data-tokens=${branch ? branch.ids.length : 0}>${
            this.running ? 'generating…' : branch?.done ? this.#doneText(branch) : ''
          }</span>
      </div>
      ${this.error ? html`<p class="error" role="alert" data-testid="generate-error">${this.error}</p>` : nothing}
      <div class="sliders">${sliders.map((s) => this.#settingControl(s))}</div>
      <details class="drawer"><summary>More settings</summary>${drawer.map((s) => this.#settingControl(s))}</details>
      ${
        branch
          ? this.#text(branch)
          : failed
            ? nothing
            : html`<p class="why" data-testid="generate-opening">${
                this.#replaying
                  ? `Stepping through the branch’s ${this.#replaying} tokens again, for the distribution of each…`
                  : 'Opening…'
              }</p>`
      }
      ${
        failed
          ? nothing
          : html`<div class="columns">
        <div>
          ${
            shown && step
              ? nextTokenChart(shown, {
                  position: step.position,
                  chosenToken: branch!.ids[step.position],
                  entropy: step.entropy,
                  sameSettings: sameFilters(step.drawn, filtersOf(this.state)),
                  onPick: (token) => void this.branch(step.position, token),
                  disabled: this.running,
                })
              : html`<p class="why">Step once to see the distribution the next token is drawn from.</p>`
          }
          ${branchTreeView(branchTree(this.#explored), this.state.path, {
            textOf: (path) => this.#textOf(path),
            separator: branch?.opened.separator ?? '',
            onPick: (path) => void this.goTo(path),
            disabled: this.running,
            dropped: this.#dropped,
          })}
        </div>
        <div>
          ${facts && this.#cacheBytes.length ? cacheView(this.#cacheBytes, facts, branch!.ids.length) : nothing}
        </div>
      </div>`
      }
      ${
        branch && facts
          ? attentionGrowth({
              attention: branch.attention,
              facts,
              tokens: branch.tokens,
              frames: this.#heads.frames,
              layer: this.layer,
              onLayer: (layer) => (this.layer = layer),
            })
          : nothing
      }
    </section>`;
  }

  /** Why a finished branch takes no more tokens. */
  #doneText(branch: Branch): string {
    return doneText({
      newTokens: branch.ids.length - branch.opened.promptLength,
      maxNewTokens: branch.maxNewTokens,
      length: branch.ids.length,
      maxSeq: branch.opened.model.maxSeq,
      lastToken: branch.tokens[branch.tokens.length - 1] ?? '',
    });
  }

  /** The text of a path's last token, as seen. */
  #textOf(path: number[]): string {
    const id = path[path.length - 1];
    return this.#texts.get(id) ?? `#${id}`;
  }

  #text(branch: Branch) {
    const { promptLength } = branch.opened;
    const gap = branch.opened.separator;
    return html`<p class="text" data-testid="generated-text">${branch.tokens.map((t, i) =>
      i < promptLength
        ? html`<span class="token prompt-token">${t}</span>${gap}`
        : html`<button class="token new-token ${this.selected === i ? 'selected' : ''}" data-position=${i}
            title="the distribution this token was drawn from" ?disabled=${!this.#stepAt(i)}
            @click=${() => (this.selected = this.selected === i ? null : i)}>${t}</button>${gap}`,
    )}</p>`;
  }
}

/** The ids before `position`, as a key. */
function prefixKey(ids: readonly number[], position: number): string {
  return ids.slice(0, position).join('.');
}

/** The branches a state names: its tree and its path. */
function exploredOf(state: GenerationState): number[][] {
  const tree = state.tree.map((p) => [...p]);
  return state.path.length ? withPath(tree, state.path) : tree;
}

function samePath(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

function sameFilters(a: Filters, b: Filters): boolean {
  return a.temperature === b.temperature && a.topK === b.topK && a.topP === b.topP && a.minP === b.minP;
}

customElements.define('ap-generate-panel', GeneratePanel);

declare global {
  interface HTMLElementTagNameMap {
    'ap-generate-panel': GeneratePanel;
  }
}
