// <attention-playground>: the playground's own components in one tag for tutorials.
//   <attention-playground text="the cat sat on the mat" mode="decoder" heads="2"
//                         view="masks" controls="text,views"></attention-playground>
// Every setting of the settings table is an attribute (kebab-case: d-model, ...);
// 'controls' picks which controls show ('all', 'none', or a list of settings plus
// 'views' and 'export'), 'compare-text' preloads a text to compare against in the
// 'changes' view. Without a text attribute the element's own text content is used.
// All elements of a page share one engine, and each starts only when scrolled into
// view. A 'trace' event (detail.trace) follows every run.
import { LitElement, css, html, nothing } from 'lit';
import '../components/playground.js';
import type { EngineClient } from '../engine/client.js';
import { DEFAULT_STATE, SETTINGS, parseSetting, type Setting, type State } from '../state/settings.js';

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
const ATTRIBUTES = (SETTINGS as readonly Setting[]).map((s) => kebab(s.name));

let engineFactory: (() => EngineClient) | null = null;
let sharedEngine: EngineClient | null = null;

/** Chooses how the elements of this page reach an engine (set once by the entry module). */
export function useEngine(factory: () => EngineClient): void {
  engineFactory = factory;
}

export class AttentionPlaygroundElement extends LitElement {
  static override properties = { controls: { type: String }, compareText: { type: String, attribute: 'compare-text' },
    visible: { state: true }, state: { state: true }, problems: { state: true } };
  declare controls: string;
  declare compareText: string;
  declare visible: boolean;
  declare state: State;
  declare problems: string[];
  #observer: IntersectionObserver | null = null;

  static override get observedAttributes(): string[] {
    return [...super.observedAttributes, ...ATTRIBUTES];
  }

  static override styles = css`
    :host { display: block; container-type: inline-size; }
    .waiting { min-height: 12rem; display: grid; place-items: center; color: #666; font: 0.9rem system-ui, sans-serif;
      border: 1px dashed #bbb; border-radius: 6px; }
    .error { color: #b00020; font: 0.85rem system-ui, sans-serif; }
  `;

  constructor() {
    super();
    this.controls = 'text,views';
    this.compareText = '';
    this.visible = false;
    this.state = { ...DEFAULT_STATE };
    this.problems = [];
  }

  override attributeChangedCallback(name: string, old: string | null, value: string | null): void {
    super.attributeChangedCallback(name, old, value);
    if (ATTRIBUTES.includes(name)) this.#readAttributes();
  }

  override connectedCallback(): void {
    super.connectedCallback();
    this.#readAttributes();
    // Start the engine only once the element is (nearly) on screen.
    if (typeof IntersectionObserver === 'undefined') { this.visible = true; return; }
    this.#observer = new IntersectionObserver((entries) => {
      if (entries.some((e) => e.isIntersecting)) {
        this.visible = true;
        this.#observer?.disconnect();
      }
    }, { rootMargin: '200px' });
    this.#observer.observe(this);
  }

  override disconnectedCallback(): void {
    this.#observer?.disconnect();
    super.disconnectedCallback();
  }

  /** Attributes -> state through the settings table; bad values are reported, defaults kept. */
  #readAttributes(): void {
    const state = { ...DEFAULT_STATE } as Record<string, unknown>;
    const problems: string[] = [];
    for (const setting of SETTINGS as readonly Setting[]) {
      const raw = this.getAttribute(kebab(setting.name)) ?? (setting.name === 'text' ? this.textContent?.trim() || null : null);
      if (raw === null) continue;
      const parsed = parseSetting(setting, setting.type === 'bool' && raw === '' ? '1' : raw);
      if ('error' in parsed) problems.push(`${kebab(setting.name)}: ${parsed.error}`);
      else state[setting.name] = parsed.value;
    }
    this.state = state as State;
    this.problems = problems;
  }

  override render() {
    const problems = this.problems.map((p) => html`<p class="error" role="alert">${p}</p>`);
    if (!this.visible) return html`${problems}<div class="waiting" part="placeholder">attention playground</div>`;
    sharedEngine ??= engineFactory?.() ?? null;
    return html`${problems.length ? problems : nothing}<ap-playground .state=${this.state} .engine=${sharedEngine}
      controls=${this.controls} compare-text=${this.compareText}></ap-playground>`;
  }
}
