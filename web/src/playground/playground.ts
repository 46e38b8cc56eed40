// <ap-playground>: the whole playground. Holds the state (declared in
// settings/settings.ts; on the page mirrored in the URL hash, in an embed set from
// attributes), sends the model settings and text to the engine worker, shows the
// chosen view of the latest trace, and sends a 'trace' event after each run. With a
// trained model picked (playground/explore-models.ts), it sends that model and the typed
// tokens instead, and the model's own settings replace the model controls. A pretrained
// GPT-2 or BERT checkpoint is loaded from the picker's "Load a pretrained model…" panel
// (in the engine's worker) and runs on the typed text with its own tokenizer; its
// next-token or [MASK] predictions show under the view. Its properties are declared in
// playground-properties.ts.
import { type PropertyValues, html, nothing } from 'lit';
import { guard } from 'lit/directives/guard.js';
import type { EngineClient, EngineRequest, RunOutcome } from '../workers/client.js';
import { isPretrainedId, pretrainedExample, pretrainedId, pretrainedModel } from '../model/pretrained-models.js';
import { predictionsView } from './predictions.js';
import { exploreModel, modelChoices } from './explore-models.js';
import {
  DEFAULT_STATE,
  SETTINGS,
  draftProblems,
  parseSetting,
  settingByName,
  splitLines,
  stateFromHash,
  stateToHash,
  untrainedRun,
  VIEW_SETTING_NAMES,
  type Setting,
  type State,
} from '../settings/settings.js';
import { PlaygroundProperties } from './playground-properties.js';
import type { Snapshot } from '../model/comparison.js';
import { viewBody, viewContext } from './view-body.js';
import { renderControl, settingInput } from '../ui/controls.js';
import { VIEW_PANEL_ID, viewTabId, viewTabs, viewToolbar } from './view-toolbar.js';
import { HashWriter } from '../ui/hash-writer.js';
import { outOfRangeNotes, staleNote } from './view-notes.js';
import { settingsDrawer } from '../ui/settings-drawer.js';
import { SlowRun, TypingPause } from './delayed-flags.js';
import { weightsHint } from './first-view.js';
import {
  fixedSettings,
  modelPicker,
  modelSummary,
  pretrainedSummary,
  pretrainedTextSetting,
  trainedTextSetting,
} from './model-picker.js';
import type { PretrainedInfo } from '../model/pretrained-info.js';
import { PretrainedPanel } from './pretrained-panel.js';
import { PLAYGROUND_STYLES } from './playground-styles.js';
import './model-controls.js';

let defaultEngine: (() => EngineClient) | null = null;

/** The engine for playgrounds that were not given one (the page sets its worker). */
export function setDefaultEngine(factory: () => EngineClient): void {
  defaultEngine = factory;
}

export class Playground extends PlaygroundProperties {
  /** Problems of a typed box show once typing pauses (typing 1000 does not flash what is wrong with 1 and 10). */
  #typing = new TypingPause(this, 600);
  /** A run that takes a while marks the view it will replace. */
  #slowRun = new SlowRun(this, 250);
  /** The URL hash, written once typing pauses (hash-writer.ts), at once after other changes. */
  #hash = new HashWriter(this, 300);
  /** The "Load a pretrained model…" panel (<ap-pretrained-loader>, defined by the page or element that shows this one). */
  #panel = new PretrainedPanel(
    this,
    () => this.#engine(),
    (info) => this.#onPretrainedLoaded(info),
  );
  /** The result before `trace`, from the same model (else null). */
  #previous: Snapshot | null = null;
  /** The text that produced `trace`, for the 'changes' view's caption. */
  #traceText = '';
  /** Which model made `trace` ('' untrained, else its TrainedModelRef key): 'what changed' compares one model's traces only. */
  #traceModel = '';
  /** The engine's latest complaint about the typed text (shown at the text box until a run succeeds). */
  #inputError = '';
  /** The untrained model's text, back when the untrained model is picked again. */
  #untrainedText: string | null = null;
  #linkProblems: string[] = [];
  #lastRun = '';
  #compareRequester = {};

  static override styles = PLAYGROUND_STYLES;

  override connectedCallback() {
    super.connectedCallback();
    if (this.syncHash) {
      this.#readHash();
      window.addEventListener('hashchange', this.#onHashChange);
    }
    if (this.#shows('model'))
      void modelChoices().then((choices) => {
        this.choices = choices;
      });
  }

  protected override willUpdate(changed: PropertyValues<this>) {
    if (changed.has('state')) this.#run();
  }

  #shows(name: string): boolean {
    const list = this.controls.split(',').map((c) => c.trim());
    return list.includes('all') || list.includes(name);
  }

  override disconnectedCallback() {
    window.removeEventListener('hashchange', this.#onHashChange);
    super.disconnectedCallback();
  }

  #onHashChange = () => {
    this.#hash.cancel(); // the hash now says what to show
    if (location.hash === stateToHash(this.state, this.defaults, this.drafts)) return;
    this.#readHash();
  };

  /**
   * The URL hash -> state; a model or text value that does not parse stays in its box with its problem (view values,
   * whose boxes may not be on screen, are listed as ignored instead).
   */
  #readHash() {
    const { state, problems, rejected } = stateFromHash(location.hash, this.defaults);
    const drafts = Object.fromEntries(
      Object.entries(rejected)
        .filter(([name]) => this.#shows(name) && ['model', 'text'].includes(settingByName(name)?.group ?? ''))
        .map(([name, { raw }]) => [name, raw]),
    );
    this.#linkProblems = problems.filter((p) => !Object.keys(drafts).some((name) => rejected[name].error === p));
    this.drafts = drafts;
    this.state = state;
  }

  /** A setting typed or picked by the person: parse, validate, store, rerun. */
  #onSetting = (event: Event) => {
    const { name, raw } = event instanceof CustomEvent ? event.detail : settingInput(event);
    const setting = settingByName(name);
    if (!setting) return;
    const parsed = parseSetting(setting, raw);
    this.#typing.typed(setting.type);
    const errors = { ...this.errors };
    delete errors[name];
    const { [name]: _, ...drafts } = this.drafts;
    if ('error' in parsed) {
      // Kept as typed: the URL says what the box says, and the view is marked not up to date until it is fixed.
      this.drafts = { ...drafts, [name]: raw };
      this.errors = { ...errors, [name]: parsed.error };
      this.#writeHash(event.type === 'input');
      return;
    }
    this.drafts = drafts;
    this.errors = errors;
    this.state = { ...this.state, [name]: parsed.value } as State; // a new object: reruns (or rechecks) even if the value is the same
    this.#writeHash(event.type === 'input');
  };

  /** A model picked: a trained one starts from its example input; the untrained one gets its text back. */
  #onModel = (event: Event) => {
    const id = (event.target as HTMLSelectElement).value;
    if (id === this.state.model) return;
    if (this.state.model === '') this.#untrainedText = this.state.text;
    const loaded = pretrainedModel();
    const text =
      id === ''
        ? (this.#untrainedText ?? DEFAULT_STATE.text)
        : loaded && pretrainedId(loaded) === id
          ? pretrainedExample(loaded)
          : DEFAULT_STATE.text; // the default: "the model's example"
    // A new text: a sentence picked in the old one need not exist in it.
    this.state = { ...this.state, model: id, text, sequence: 0 };
    this.#writeHash();
  };

  /** The URL hash follows the state: at once, or (typing: `input` events) once typing pauses. */
  #writeHash(typing = false) {
    if (this.syncHash) this.#hash.write(() => stateToHash(this.state, this.defaults, this.drafts), typing);
  }

  /** A layer x head thumbnail was chosen: open that head. */
  #onPick = (event: Event) => {
    const { layer, head } = (event as CustomEvent<{ layer: number; head: number }>).detail;
    this.state = { ...this.state, layer, head, view: 'head' };
    this.#writeHash();
  };

  /** Pin the trace shown as the 'changes' view's baseline, or unpin (compare with the previous result again). */
  #onBaseline = (event: Event) => {
    const { pin } = (event as CustomEvent<{ pin: boolean }>).detail;
    this.baseline = pin && this.trace ? { trace: this.trace, text: this.#traceText, model: this.#traceModel } : null;
  };

  #run() {
    const state = this.state;
    if (isPretrainedId(state.model)) {
      this.#runPretrained(state);
      return;
    }
    this.pretrained = null;
    if (state.model) {
      this.#runTrained(state);
      return;
    }
    this.model = null;
    this.modelError = '';
    const { input, problems } = untrainedRun(state);
    const drafts = draftProblems(this.drafts);
    this.errors = { ...this.#viewErrors(), ...problems, ...drafts };
    if (!input || Object.keys(drafts).some((name) => settingByName(name)?.group !== 'view')) return;
    const key = JSON.stringify(input);
    if (key === this.#lastRun) return; // a view setting changed: nothing to recompute
    const first = this.#lastRun === '';
    this.#lastRun = key;
    const compare = splitLines(this.compareText);
    if (first && compare.length > 0) {
      this.#engine().request(this.#compareRequester, { ...input, texts: compare }, (outcome) => {
        if (outcome.ok && !this.baseline) this.baseline = { trace: outcome.trace, text: this.compareText, model: '' };
      });
    }
    this.#request(input, '', state.text);
  }

  /** Errors of view settings (the others are checked again on every run). */
  #viewErrors(): Record<string, string> {
    return Object.fromEntries(Object.entries(this.errors).filter(([name]) => settingByName(name)?.group === 'view'));
  }

  #engine(): EngineClient {
    this.engine ??= defaultEngine?.() ?? null;
    if (!this.engine) throw new Error('ap-playground: no engine (call setDefaultEngine or set .engine)');
    return this.engine;
  }

  #request(input: EngineRequest, model: string, text: string) {
    this.#slowRun.started();
    this.#engine().request(this, input, (outcome) => this.#show(outcome, model, text));
  }

  /** A trained model: load it (once), start from its example input, run it on the typed tokens. */
  #runTrained(state: State) {
    const errors = this.#viewErrors();
    if (state.text.trim() === '') errors.text = 'Type tokens of the model\u2019s task to see its attention.';
    this.errors = errors;
    if (this.model?.id !== state.model) {
      this.model = null;
      this.modelError = '';
      this.status = `loading the model \u2018${state.model}\u2019\u2026`;
      const id = state.model;
      exploreModel(id).then(
        (model) => {
          if (this.state.model !== id) return; // another model was picked meanwhile
          this.model = model;
          if (this.state.text === DEFAULT_STATE.text) {
            // no input of its own yet: the model's example
            this.state = { ...this.state, text: model.example };
            this.#writeHash();
          } else this.#run();
        },
        (error: unknown) => {
          if (this.state.model !== id) return;
          this.modelError = error instanceof Error ? error.message : String(error);
          this.status = '';
        },
      );
      return;
    }
    if (errors.text) return;
    const key = JSON.stringify({ model: this.model.ref.key, text: state.text });
    if (key === this.#lastRun) return;
    this.#lastRun = key;
    this.#request({ trained: this.model.ref, text: state.text }, this.model.ref.key, state.text);
  }

  /** A pretrained checkpoint (loaded on this page): run it on the typed text with its tokenizer. */
  #runPretrained(state: State) {
    this.model = null;
    const info = pretrainedModel();
    const errors = this.#viewErrors();
    if (!info || pretrainedId(info) !== state.model) {
      this.pretrained = null;
      this.errors = errors;
      this.modelError =
        `The pretrained model \u2018${state.model.slice('pretrained:'.length)}\u2019 is not loaded in this tab: ` +
        'load it again with \u201cLoad a pretrained model\u2026\u201d in the Model picker.';
      this.status = '';
      return;
    }
    this.modelError = '';
    this.pretrained = info;
    if (state.text.trim() === '') errors.text = 'Type some text to see the model\u2019s attention.';
    this.errors = errors;
    if (errors.text) return;
    const key = JSON.stringify({ model: info.key, text: state.text });
    if (key === this.#lastRun) return;
    this.#lastRun = key;
    this.#request({ pretrained: { key: info.key }, text: state.text }, info.key, state.text);
  }

  /** The loading panel loaded a checkpoint (pretrained/pretrained-loading.ts): show it on its example. */
  async #onPretrainedLoaded(info: PretrainedInfo) {
    this.choices = await modelChoices();
    if (this.state.model === '') this.#untrainedText = this.state.text;
    this.#lastRun = '';
    this.state = { ...this.state, model: pretrainedId(info), text: pretrainedExample(info), layer: 0, head: 0 };
    this.#writeHash();
  }

  #show(outcome: RunOutcome, model: string, text: string) {
    this.#slowRun.stop();
    if (!outcome.ok) {
      if (outcome.field === 'text') this.errors = { ...this.errors, text: (this.#inputError = outcome.error) };
      else this.engineError = outcome.error;
      this.status = '';
      return;
    }
    this.engineError = '';
    if (this.#inputError && this.errors.text === this.#inputError) {
      // An older request's complaint, answered since by a newer request that ran.
      const { text: _, ...rest } = this.errors;
      this.errors = rest;
    }
    this.#inputError = '';
    this.#previous =
      this.trace && model === this.#traceModel ? { trace: this.trace, text: this.#traceText, model } : null;
    this.#traceModel = model;
    this.#traceText = text;
    this.trace = outcome.trace;
    this.predictions = outcome.predictions ?? [];
    this.attentionOnly = outcome.attentionOnly ?? false;
    this.status = `${outcome.build} engine · ${outcome.milliseconds.toFixed(2)} ms · wasm heap ${(outcome.heapBytes / 1024).toFixed(0)} KiB`;
    this.heapBytes = outcome.heapBytes;
    this.dispatchEvent(new CustomEvent('trace', { detail: { trace: outcome.trace }, bubbles: true, composed: true }));
  }

  /** Why the trace shown is not what the settings ask for (a problem, or another model still loading), or null. */
  #stale(): 'problem' | 'loading' | null {
    const wanted = isPretrainedId(this.state.model)
      ? (this.pretrained?.key ?? null)
      : this.state.model
        ? (this.model?.ref.key ?? null)
        : '';
    if (
      this.engineError ||
      this.modelError ||
      Object.keys(this.errors).some((name) => settingByName(name)?.group !== 'view')
    )
      return 'problem';
    return wanted !== this.#traceModel ? 'loading' : null;
  }

  /** The developer's status line (engine, milliseconds, heap): on the page, or where `controls` asks for 'status'. */
  #showsStatus(): boolean {
    return (
      this.syncHash ||
      this.controls
        .split(',')
        .map((c) => c.trim())
        .includes('status')
    );
  }

  override render() {
    const ctx = this.trace ? viewContext(this.trace, this.state) : null;
    const trained = this.state.model !== '';
    const values = { ...this.state, ...this.drafts } as Record<string, unknown>;
    const errors = this.#typing.on ? {} : this.errors; // shown once the person pauses typing
    const textSettings = (SETTINGS as readonly Setting[])
      .filter(
        (s) =>
          s.group === 'text' && this.#shows(s.name) && (s.name === 'text' || (!trained && this.state.mode === 'cross')),
      )
      .map((s) =>
        this.pretrained ? pretrainedTextSetting(s, this.pretrained) : trained ? trainedTextSetting(s, this.model) : s,
      );
    const modelControls = trained
      ? []
      : (SETTINGS as readonly Setting[]).filter((s) => s.group === 'model' && this.#shows(s.name)).map((s) => s.name);
    const picker = this.#shows('model');
    const problems = Object.entries(errors)
      .filter(([name]) => !this.#shows(name))
      .map(([, message]) => message);
    const stale = this.#stale();
    const status = this.#showsStatus()
      ? html`<p class="status" aria-live="polite" data-heap-bytes=${this.heapBytes}>${this.status}</p>`
      : nothing;
    const aside =
      modelControls.length || picker
        ? html`
      ${
        picker
          ? modelPicker(this.state.model, this.choices, this.#onModel, () => {
              this.#panel.open = true;
            })
          : nothing
      }
      ${modelControls.length ? html`<ap-controls .state=${this.state} .errors=${errors} .drafts=${this.drafts} .only=${modelControls}></ap-controls>` : nothing}
      ${
        picker && this.#panel.open
          ? html`<ap-pretrained-loader .host=${this.#panel} .baseUrl=${this.#panel.hubUrl}
        .loading=${this.#panel.loading} .progress=${this.#panel.loadProgress} .error=${this.#panel.loadError} .note=${this.#panel.loadNote}
        @pretrained-close=${() => {
          this.#panel.open = false;
        }}></ap-pretrained-loader>`
          : nothing
      }
      ${trained && this.model ? fixedSettings(this.model) : nothing}
      ${this.pretrained ? pretrainedSummary(this.pretrained) : nothing}
      ${status}`
        : null;
    return html`<div class="layout ${aside ? '' : 'no-aside'} ${textSettings.length ? '' : 'no-text'}"
      @setting-input=${this.#onSetting} @pick=${this.#onPick} @baseline=${this.#onBaseline}>
      ${
        textSettings.length
          ? html`<section class="texts" aria-label="Text">
        ${textSettings.map((s) => renderControl(s, values[s.name], errors[s.name], this.#onSetting))}
      </section>`
          : nothing
      }
      ${
        aside
          ? settingsDrawer(aside, {
              open: this.drawerOpen,
              summary:
                picker || modelControls.length > 3
                  ? modelSummary(
                      this.state,
                      this.pretrained?.name ?? (this.state.model ? (this.model?.label ?? this.state.model) : ''),
                    )
                  : '',
              problems: Object.keys(errors)
                .filter((name) => modelControls.includes(name))
                .map((name) => settingByName(name)!.label),
              onToggle: () => {
                this.drawerOpen = !this.drawerOpen;
              },
            })
          : nothing
      }
      <main>
        ${this.#linkProblems.length ? html`<p class="error" role="alert" data-testid="link-problems">Ignored in the link: ${this.#linkProblems.join('; ')}</p>` : nothing}
        ${problems.map((message) => html`<p class="error" role="alert">${message}</p>`)}
        ${this.modelError ? html`<p class="error engine-error" role="alert" data-testid="model-error">${this.modelError}</p>` : nothing}
        ${this.engineError ? html`<p class="error engine-error" role="alert">${this.engineError}</p>` : nothing}
        ${picker && this.syncHash ? weightsHint(this.#traceModel === '' && ctx ? { ...this.state, ...ctx.trace.config } : this.state, ctx?.block) : nothing}
        ${
          ctx
            ? html`${this.#shows('views') ? viewTabs(this.state.view, this.#onSetting) : nothing}
          <div class="view-panel" id=${VIEW_PANEL_ID} role=${this.#shows('views') ? 'tabpanel' : nothing}
            aria-labelledby=${this.#shows('views') ? viewTabId(this.state.view) : nothing}>
          ${viewToolbar({ ctx, errors, drafts: this.drafts, shows: (name) => this.#shows(name), onSetting: this.#onSetting })}
          ${outOfRangeNotes(ctx)}
          <div class="view ${stale || this.#slowRun.on ? 'stale' : ''}" data-view=${this.state.view} data-stale=${stale ? '1' : '0'}>
          ${stale || this.#slowRun.on ? staleNote(ctx.trace, stale ?? 'computing') : nothing}${
            // Typing re-renders with the old trace until the new one arrives: skip the heavy view then.
            guard(
              [
                this.trace,
                this.baseline,
                ctx.block,
                ctx.layer,
                ctx.head,
                ctx.sequence,
                ...VIEW_SETTING_NAMES.map((name) => this.state[name]),
              ],
              () =>
                viewBody(ctx, {
                  attentionOnly: this.attentionOnly && !!this.pretrained,
                  baseline: this.baseline,
                  previous: this.#previous,
                  current: { trace: ctx.trace, text: this.#traceText, model: this.#traceModel },
                  colorScaleControl: this.#shows('colorScale')
                    ? renderControl(settingByName('colorScale')!, this.state.colorScale, undefined, this.#onSetting)
                    : nothing,
                }),
            )
          }</div></div>
          ${this.pretrained && this.#traceModel === this.pretrained.key ? predictionsView(this.pretrained, this.predictions, ctx.trace.tokens[0] ?? []) : nothing}`
            : Object.keys(this.errors).length > 0 && !this.#typing.on
              ? html`<p class="error" role="alert" data-testid="blocked">Nothing to show yet: ${Object.values(this.errors).join(' ')}</p>`
              : this.engineError || this.modelError
                ? nothing
                : html`<p class="status">Waiting for the first result…</p>`
        }
        ${aside ? nothing : status}
      </main>
    </div>`;
  }
}
customElements.define('ap-playground', Playground);
