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
import { checkpointPlan } from '../model/checkpoint-plans.js';
import { LitElement, css, html, nothing } from 'lit';
import '../playground/playground.js';
import '../train/train-view.js';
import '../pretrained/pretrained-loader.js';
import type { EngineClient } from '../workers/client.js';
import { checkpointUrl, loadCheckpoint } from '../model/checkpoint.js';
import { DEFAULT_STATE, SETTINGS, parseSetting, type Setting, type State } from '../settings/settings.js';
import { DEFAULT_TRAIN_STATE, TRAIN_SETTINGS, type TrainState } from '../settings/train-settings.js';

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
/** The element's own attributes (everything else must be a setting's). */
const OWN = [
  'controls',
  'compare-text',
  'checkpoint',
  'train',
  'autostart',
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
const ATTRIBUTES = [...new Set([...EXPLORE_ATTRIBUTES, ...TRAIN_ATTRIBUTES, 'checkpoint', 'train', 'autostart'])];

let engineFactory: (() => EngineClient) | null = null;
let sharedEngine: EngineClient | null = null;
let engineProblem: string | null = null;

/**
 * Chooses how the elements of this page reach an engine (set once by the entry module);
 * `problem`: why this browser cannot run it (then each element shows that instead).
 */
export function useEngine(factory: () => EngineClient, problem: string | null = null): void {
  engineFactory = factory;
  engineProblem = problem;
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
  /** The checkpoint last asked for (each is read once; a change of attribute reads the new one). */
  #checkedCheckpoint = '';
  #observer: IntersectionObserver | null = null;

  static override get observedAttributes(): string[] {
    return [...super.observedAttributes, ...ATTRIBUTES];
  }

  static override styles = css`
    :host { display: block; container-type: inline-size; }
    .waiting { min-height: 12rem; display: grid; place-items: center; color: #666; font: 0.9rem system-ui, sans-serif;
      border: 1px dashed #bbb; border-radius: 6px; }
    .error { color: #b00020; font: 0.85rem system-ui, sans-serif; }
    .unavailable { padding: 1rem; border: 1px solid currentColor; border-radius: 6px; }
  `;

  constructor() {
    super();
    this.controls = 'text,views';
    this.compareText = '';
    this.visible = false;
    this.state = { ...DEFAULT_STATE };
    this.trainState = null;
    this.problems = [];
    this.checkpointError = '';
  }

  override attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    super.attributeChangedCallback(name, old, value);
    if (ATTRIBUTES.includes(name)) this.#readAttributes();
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#readAttributes();
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
    const known = new Set([...OWN, ...(train ? TRAIN_ATTRIBUTES : EXPLORE_ATTRIBUTES)]);
    for (const { name } of this.attributes)
      if (!known.has(name) && !name.startsWith('data-') && !name.startsWith('aria-'))
        problems.push(`${name}: not a setting ${train ? 'of the Train view' : 'of the playground'}`);
    for (const setting of table) {
      const raw =
        this.getAttribute(kebab(setting.name)) ??
        (setting.name === 'text' && !train ? this.textContent?.trim() || null : null);
      if (raw === null) continue;
      const parsed = parseSetting(setting, setting.type === 'bool' && raw === '' ? '1' : raw);
      if ('error' in parsed) problems.push(`${kebab(setting.name)}: ${parsed.error}`);
      else state[setting.name] = parsed.value;
    }
    if (train) this.trainState = state as TrainState;
    else {
      this.state = state as State;
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
    return html`${problems.length ? problems : nothing}<ap-playground .state=${this.state} .engine=${sharedEngine}
      controls=${this.controls} compare-text=${this.compareText}></ap-playground>`;
  }
}
