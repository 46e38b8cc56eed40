// <attention-playground>: the playground's own components in one tag for tutorials.
//   <attention-playground text="the cat sat on the mat" mode="decoder" heads="2"
//                         view="masks" controls="text,views"></attention-playground>
// Every setting of the settings table is an attribute (kebab-case: d-model, ...);
// 'controls' picks which controls show ('all', 'none', or a list of settings plus
// 'views' and 'export'), 'compare-text' preloads a text pinned as the 'changes'
// view's baseline. Without a text attribute the element's own text content is used.
// All elements of a page share one engine, and each starts only when scrolled into
// view. A 'trace' event (detail.trace) follows every run.
// Train mode: with a `checkpoint` attribute (a shipped checkpoint's id, e.g. "sort", or
// the URL of a checkpoint's .json) the element shows that trained model (curves, heads,
// timeline); with `train` it trains live, its settings given by the Train view's
// settings as attributes (task, steps, heads, residual, ...; kebab-case), `autostart`
// starting it once visible. `controls` then lists Train view settings plus 'buttons' and
// 'checkpoints' (default: 'buttons'). A checkpoint that cannot be read (a file:// page,
// where browsers block fetch; a folder missing beside the script) is explained in the
// element, above the Train view, which opens untrained on a shipped checkpoint's own task
// and settings (likewise a shipped model named by `model` in Explore mode).
// An engine that cannot run in this browser (the one-file element's needs wasm SIMD) is
// said in the element instead of the views.
// Generate mode: with `generate` the element shows the Generate panel (generate/, loaded on
// demand: useGeneration) on the model the playground below it holds (a shipped trained
// decoder by `model`, or a pretrained one loaded with the model picker), its state from the
// panel's attributes (prompt, temperature, top-k, top-p, min-p, repetition-penalty, seed,
// max-new-tokens, path, chat; model/generation-state.ts), and a link that reopens it all in
// the playground page. The playground itself shows only when `controls` is given.
import { checkpointPlan } from '../model/checkpoint-plans.js';
import { LitElement, css, html, nothing } from 'lit';
import { TOKENS } from '../ui/tokens.js';
import { guard } from 'lit/directives/guard.js';
import { keyed } from 'lit/directives/keyed.js';
import '../playground/playground.js';
import '../train/train-view.js';
import '../pretrained/pretrained-loader.js';
import type { EngineClient } from '../workers/client.js';
import { checkpointUrl, loadCheckpoint } from '../model/checkpoint.js';
import { DEFAULT_STATE, SETTINGS, parseSetting, type Setting, type State } from '../settings/settings.js';
import { DEFAULT_TRAIN_STATE, TRAIN_SETTINGS, type TrainState } from '../settings/train-settings.js';
import type { GenerationState } from '../model/generation-state.js';
import type { GenerationChoice } from '../model/generation-source.js';
import type { GeneratePart } from '../generate/embed-part.js';
import type { Playground } from '../playground/playground.js';
import type { TrainedModelRef } from '../workers/trained-trace.js';
import type { GenerationApi } from '../workers/generation-run.js';
import { generationSessions } from '../workers/generation-sessions.js';
import { PRETRAINED_PREFIX, isPretrainedId } from '../model/pretrained-models.js';

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
/** The element's own attributes (everything else must be a setting's). */
const OWN = [
  'controls',
  'compare-text',
  'checkpoint',
  'train',
  'autostart',
  'generate',
  'playground',
  'class',
  'style',
  'id',
  'slot',
  'hidden',
  'title',
  'lang',
];
const EXPLORE_ATTRIBUTES = (SETTINGS as readonly Setting[]).map((s) => kebab(s.name));
const TRAIN_ATTRIBUTES = TRAIN_SETTINGS.map((s) => kebab(s.name));
const ATTRIBUTES = [
  ...new Set([
    ...EXPLORE_ATTRIBUTES,
    ...TRAIN_ATTRIBUTES,
    'prompt', // the rest of the panel's attributes come with its part (GeneratePart.attributes)
    'checkpoint',
    'train',
    'autostart',
    'generate',
    'playground',
  ]),
];

let engineFactory: (() => EngineClient) | null = null;
let sharedEngine: EngineClient | null = null;
/** Each element's view of the shared engine's generation (workers/generation-sessions.ts), null: none. */
let generationSession: (() => GenerationApi) | null | undefined;
let engineProblem: string | null = null;

/**
 * Chooses how the elements of this page reach an engine (set once by the entry module);
 * `problem`: why this browser cannot run it (then each element shows that instead).
 */
export function useEngine(factory: () => EngineClient, problem: string | null = null): void {
  engineFactory = factory;
  engineProblem = problem;
}

/** How generate mode gets the Generate feature's part (set by the entry), and the playground page its link opens. */
interface GenerationPart {
  load(): Promise<GeneratePart>;
  playground: URL;
}
let generationPart: GenerationPart | null = null;
let generationLoad: Promise<GeneratePart> | null = null;
/** The part once loaded: the panel defined, its attributes and their parse, the model choice, the link. */
let part: GeneratePart | null = null;

/** Chooses how elements in generate mode get the Generate panel (set once by the entry module). */
export function useGeneration(part: GenerationPart): void {
  generationPart = part;
}

/**
 * Why a checkpoint could not be read, for the page: what, from where, why, and what to do;
 * `instead`: what shows in its place, if anything.
 */
export function checkpointProblem(idOrUrl: string, error: unknown, instead = ''): string {
  let url: URL | null = null;
  try {
    url = checkpointUrl(idOrUrl);
  } catch {
    // no checkpoints folder known: the error says so
  }
  const what = /^[a-z0-9-]+$/.test(idOrUrl) ? `the shipped checkpoint '${idOrUrl}'` : 'the checkpoint';
  const from = url ? ` from ${url.href}` : '';
  const fileBlocked =
    (url?.protocol === 'file:' || (typeof location !== 'undefined' && location.protocol === 'file:')) &&
    error instanceof TypeError; // fetch's network error
  const why = fileBlocked
    ? 'browsers block fetch from file:// pages. Serve the folder instead (for example `python3 -m http.server` ' +
      'or `npx vite preview` in it) and open the page from http://localhost, or train the model here with the ' +
      '`train` attribute'
    : `${(error as Error)?.message ?? String(error)}${
        /\b404\b/.test(String((error as Error)?.message)) ? ' (the checkpoints/ folder belongs next to the script)' : ''
      }`;
  return `Could not load ${what}${from}: ${why}.${instead ? ` ${instead}` : ''}`;
}

export class AttentionPlaygroundElement extends LitElement {
  static override properties = {
    controls: { type: String },
    compareText: { type: String, attribute: 'compare-text' },
    visible: { state: true },
    state: { state: true },
    trainState: { state: true },
    problems: { state: true },
    checkpointError: { state: true },
    generation: { state: true },
    choice: { state: true },
    generateError: { state: true },
    generateReady: { state: true },
  };
  declare controls: string;
  declare compareText: string;
  declare visible: boolean;
  declare state: State;
  /** Train mode's settings (with `train` or `checkpoint`), or null in Explore mode. */
  declare trainState: TrainState | null;
  declare problems: string[];
  /** Why the `checkpoint` attribute's checkpoint could not be read ('' when it could, or while reading). */
  declare checkpointError: string;
  /** Generate mode's state (the panel's attributes), or null outside generate mode and until its part is here. */
  declare generation: GenerationState | null;
  /** The model the panel generates with, read off the playground after each of its runs. */
  declare choice: GenerationChoice<TrainedModelRef> | null;
  /** Why the Generate panel could not be loaded ('' when it could). */
  declare generateError: string;
  declare generateReady: boolean;
  /** This element's generation requests (the same object each render: a new one would reset the panel). */
  #generationApi: GenerationApi | null = null;
  /** The playground that last ran (its model is the panel's). */
  #playground: Playground | null = null;
  /** The panel's state as it is now (it grows as it generates), for the playground link. */
  #shownGeneration: GenerationState | null = null;
  /** The checkpoint last asked for (each is read once; a change of attribute reads the new one). */
  #checkedCheckpoint = '';
  #observer: IntersectionObserver | null = null;
  #attributes: MutationObserver | null = null;

  static override get observedAttributes(): string[] {
    return [...super.observedAttributes, ...ATTRIBUTES];
  }

  // The design tokens on the host: the Generate panel (generate mode) reads them, and has none of its own.
  static override styles = [
    TOKENS,
    css`
    :host { display: block; container-type: inline-size; }
    .waiting { min-height: 12rem; display: grid; place-items: center; color: #666; font: 0.9rem system-ui, sans-serif;
      border: 1px dashed #bbb; border-radius: 6px; }
    .error { color: #b00020; font: 0.85rem system-ui, sans-serif; }
    .unavailable { padding: 1rem; border: 1px solid currentColor; border-radius: 6px; }
    .open { display: inline-block; margin-top: 0.4rem; font: 0.85rem system-ui, sans-serif; }
  `,
  ];

  constructor() {
    super();
    this.controls = 'text,views';
    this.compareText = '';
    this.visible = false;
    this.state = { ...DEFAULT_STATE };
    this.trainState = null;
    this.problems = [];
    this.checkpointError = '';
    this.generation = null;
    this.choice = null;
    this.generateError = '';
    this.generateReady = false;
  }

  override attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    super.attributeChangedCallback(name, old, value);
    if (ATTRIBUTES.includes(name)) this.#readAttributes();
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#readAttributes();
    // The panel's attributes are known only once its part is here (not to observedAttributes): watched so.
    this.#attributes ??= new MutationObserver(() => {
      if (this.#generateMode()) this.#readAttributes();
    });
    this.#attributes.observe(this, { attributes: true });
    // Start the engine only once the element is (nearly) on screen.
    if (typeof IntersectionObserver === 'undefined') {
      this.visible = true;
      return;
    }
    this.#observer = new IntersectionObserver(
      (entries) => {
        if (entries.some((e) => e.isIntersecting)) {
          this.visible = true;
          this.#observer?.disconnect();
        }
      },
      { rootMargin: '200px' },
    );
    this.#observer.observe(this);
  }

  override disconnectedCallback(): void {
    this.#observer?.disconnect();
    this.#attributes?.disconnect();
    super.disconnectedCallback();
  }

  /** Train mode: a checkpoint to show, or live training. */
  #trainMode(): boolean {
    return this.hasAttribute('checkpoint') || this.hasAttribute('train');
  }

  /**
   * Attributes -> state through the settings table (Explore's, or the Train view's in
   * train mode); bad values and unknown attributes are reported, defaults kept.
   */
  #readAttributes(): void {
    const train = this.#trainMode();
    const table = (train ? TRAIN_SETTINGS : SETTINGS) as readonly Setting[];
    const state = { ...(train ? DEFAULT_TRAIN_STATE : DEFAULT_STATE) } as Record<string, unknown>;
    const problems: string[] = [];
    const generate = this.#generateMode();
    const known = new Set([
      ...OWN,
      ...(train ? TRAIN_ATTRIBUTES : EXPLORE_ATTRIBUTES),
      ...(generate ? (part?.attributes ?? []) : []),
    ]);
    for (const { name } of this.attributes)
      // In generate mode, until the panel's part is here, its attribute names are not known: said then.
      if (!known.has(name) && !name.startsWith('data-') && !name.startsWith('aria-') && !(generate && !part))
        problems.push(`${name}: not a setting ${train ? 'of the Train view' : 'of the playground'}`);
    let generation: GenerationState | null = null;
    if (generate && part) {
      const parsed = part.fromAttributes((name) => this.getAttribute(name));
      problems.push(...parsed.problems);
      generation = parsed.state;
    }
    for (const setting of table) {
      if (generate && setting.name === 'seed') continue; // the sampler's seed there (a trained model has its weights)
      const raw =
        this.getAttribute(kebab(setting.name)) ??
        (setting.name === 'text' && !train
          ? this.textContent?.trim() || (generate ? this.getAttribute('prompt') : null) || null
          : null);
      if (raw === null) continue;
      const parsed = parseSetting(setting, setting.type === 'bool' && raw === '' ? '1' : raw);
      if ('error' in parsed) problems.push(`${kebab(setting.name)}: ${parsed.error}`);
      else state[setting.name] = parsed.value;
    }
    // A new object is a new panel (keyed): only when the attributes say something new.
    if (
      this.generation === null ||
      generation === null ||
      JSON.stringify(generation) !== JSON.stringify(this.generation)
    ) {
      this.generation = generation;
      this.#shownGeneration = null;
    }
    if (train) this.trainState = state as TrainState;
    else {
      // Generate mode reads its attributes again once the panel's part is here: the same state stays the same object.
      if (!generate || JSON.stringify(state) !== JSON.stringify(this.state)) this.state = state as State;
      this.trainState = null;
    }
    this.problems = problems;
  }

  /** The checkpoint this element shows: the `checkpoint` attribute's in train mode, a shipped model's id in Explore. */
  #checkpoint(): string {
    if (!this.visible || engineProblem) return '';
    if (this.trainState) return this.getAttribute('checkpoint') ?? '';
    return /^[a-z0-9-]+$/.test(this.state.model) ? this.state.model : '';
  }

  override willUpdate(): void {
    const checkpoint = this.#checkpoint();
    if (checkpoint === this.#checkedCheckpoint) return;
    this.#checkedCheckpoint = checkpoint;
    this.checkpointError = '';
    if (!checkpoint) return;
    // A shipped checkpoint's Train view opens on its task and settings and says so itself (train-view.ts).
    const instead =
      this.trainState && !checkpointPlan(checkpoint) ? 'The Train view below shows its untrained model instead.' : '';
    // The views read it too (each file is fetched once per page); this is to say here why it failed.
    loadCheckpoint(checkpoint).catch((error: unknown) => {
      if (this.#checkedCheckpoint === checkpoint) this.checkpointError = checkpointProblem(checkpoint, error, instead);
    });
  }

  override render() {
    const problems = this.problems.map((p) => html`<p class="error" role="alert">${p}</p>`);
    if (!this.visible) return html`${problems}<div class="waiting" part="placeholder">attention playground</div>`;
    if (engineProblem)
      return html`${problems}<p class="error unavailable" role="alert" data-problem="engine">${engineProblem}</p>`;
    if (this.checkpointError)
      problems.push(html`<p class="error" role="alert" data-problem="checkpoint">${this.checkpointError}</p>`);
    if (this.trainState) {
      const controls = this.getAttribute('controls') ?? 'buttons';
      return html`${problems.length ? problems : nothing}<ap-train .state=${this.trainState} controls=${controls}
        checkpoint=${this.getAttribute('checkpoint') ?? ''} ?autostart=${this.hasAttribute('autostart')}></ap-train>`;
    }
    sharedEngine ??= engineFactory?.() ?? null;
    if (this.#generateMode()) return html`${problems.length ? problems : nothing}${this.#generateView()}`;
    return html`${problems.length ? problems : nothing}<ap-playground .state=${this.state} .engine=${sharedEngine}
      controls=${this.controls} compare-text=${this.compareText}></ap-playground>`;
  }

  /**
   * The playground (hidden unless `controls` is given: it loads the model and says what is wrong with the text),
   * the Generate panel on its model once the panel's code is here, and the link to the playground page. Both
   * get their state only when the attributes give a new one (guard), not at each render: they change their own.
   */
  #generateView() {
    if (!this.generateReady && !this.generateError) void this.#loadGeneration();
    const { choice, generation } = this;
    const panel = this.generateError
      ? html`<p class="error" role="alert" data-problem="generate">${this.generateError}</p>`
      : this.generateReady && generation
        ? keyed(
            generation,
            html`<ap-generate-panel open .state=${guard([generation], () => generation)} .engine=${this.#generation()}
            .source=${choice?.source ?? null} .unavailable=${choice?.unavailable ?? ''}
            .chatAvailable=${choice?.chat ?? false} @generation-state=${this.#onGenerationState}></ap-generate-panel>`,
          )
        : html`<div class="waiting" part="placeholder">loading the Generate panel</div>`;
    const link =
      choice?.source && 'trained' in choice.source && generationPart && part && generation
        ? html`<a class="open" data-testid="open-in-playground" target="_blank" rel="noopener"
            href=${part.link(
              new URL(this.getAttribute('playground') ?? generationPart.playground.href, location.href),
              this.state,
              this.#shownGeneration ?? generation,
            )}>Open in the playground</a>`
        : nothing;
    return html`<div ?hidden=${!this.hasAttribute('controls')}><ap-playground .state=${guard([this.state], () => this.state)} .engine=${sharedEngine}
      controls=${this.getAttribute('controls') ?? 'none'} @trace=${this.#onTrace}></ap-playground></div>${panel}${link}`;
  }

  #generation(): GenerationApi | null {
    if (generationSession === undefined) {
      const shared = sharedEngine?.generation() ?? null;
      generationSession = shared && generationSessions(shared);
    }
    return (this.#generationApi ??= generationSession?.() ?? null);
  }

  async #loadGeneration(): Promise<void> {
    if (!generationPart) {
      this.generateError = 'This page offers no Generate panel.';
      return;
    }
    try {
      part = await (generationLoad ??= generationPart.load());
      this.#readAttributes(); // the panel's attributes can be read now
      if (this.#playground) this.#choose(this.#playground);
      this.generateReady = true;
    } catch (error) {
      generationLoad = null; // tried again by the next element
      this.generateError = `The Generate panel could not be loaded: ${(error as Error)?.message ?? String(error)}`;
    }
  }

  /** Generate mode: `generate` outside train mode. */
  #generateMode(): boolean {
    return this.hasAttribute('generate') && !this.#trainMode();
  }

  /** After each run of the playground: the model it shows is the panel's. */
  #onTrace = (event: Event) => {
    this.#playground = event.currentTarget as Playground;
    if (part) this.#choose(this.#playground);
  };

  /**
   * A model the playground does not run (a pretrained one not loaded in this tab) fires no 'trace': the panel is told
   * after each render instead, so it says why, as the page's does.
   */
  protected override updated(): void {
    if (!part || !this.#generateMode()) return;
    const playground = this.renderRoot.querySelector<Playground>('ap-playground');
    if (!playground) return;
    this.#playground = playground;
    this.#choose(playground);
  }

  /** The playground's model as the panel's (a new one only when it changed: a new object resets the panel). */
  #choose(playground: Playground): void {
    const { model } = playground.state;
    const choice = part!.choice(
      playground.pretrained,
      model !== '' ? (playground.model?.ref ?? null) : null,
      // a pretrained model the playground's setting names but this tab has not loaded: the panel says so
      isPretrainedId(model) ? model.slice(PRETRAINED_PREFIX.length) : null,
      // without a Model picker shown (controls without 'model'), the element's model attribute picks the model
      /(^|,)\s*(all|model)\s*(,|$)/.test(this.getAttribute('controls') ?? '') ? 'picker' : 'attribute',
    );
    if (!this.choice || part!.choiceKey(choice) !== part!.choiceKey(this.choice)) this.choice = choice;
  }

  #onGenerationState = (event: Event) => {
    this.#shownGeneration = (event as CustomEvent<{ state: GenerationState }>).detail.state;
    this.requestUpdate();
  };
}
