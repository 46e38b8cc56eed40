// <ap-playground>: the whole playground. Holds the state (declared in
// settings/settings.ts; on the page mirrored in the URL hash, in an embed set from
// attributes), sends the model settings and text to the engine worker, shows the
// chosen view of the latest trace, and sends a 'trace' event after each run. With a
// trained model picked (playground/explore-models.ts), it sends that model and the typed
// tokens instead, and the model's own settings replace the model controls. A pretrained
// GPT-2 or BERT checkpoint is loaded from the picker's "Load a pretrained model…" panel
// (in the engine's worker) and runs on the typed text with its own tokenizer; its
// next-token or [MASK] predictions show under the view. Its properties are declared in
// playground-properties.ts; this file composes the parts and draws them: the runs
// (trace-runs.ts), the URL hash (hash-sync.ts) and the model choice with the pretrained
// panel (model-choice.ts, pretrained-panel.ts) are controllers of their own.
import { type PropertyValues, html, nothing } from 'lit';
import { guard } from 'lit/directives/guard.js';
import type { EngineClient } from '../workers/client.js';
import { predictionsView } from './predictions.js';
import {
  SETTINGS,
  parseSetting,
  settingByName,
  VIEW_SETTING_NAMES,
  type Setting,
  type State,
} from '../settings/settings.js';
import { PlaygroundProperties } from './playground-properties.js';
import { lessonState, type LessonOverride } from '../settings/why-notes.js';
import { viewBody, viewContext } from './view-body.js';
import { renderControl, settingInput } from '../ui/controls.js';
import { VIEW_PANEL_ID, viewDiagram, viewToolbar } from './view-toolbar.js';
import { revealSelected, watchWraps } from '../ui/block-diagram.js';
import { outOfRangeNotes, staleNote } from './view-notes.js';
import { settingsDrawer } from '../ui/settings-drawer.js';
import { TypingPause } from './delayed-flags.js';
import { weightsHint } from './first-view.js';
import {
  fixedSettings,
  modelPicker,
  modelSummary,
  pretrainedSummary,
  pretrainedTextSetting,
  renderedPrompt,
  trainedTextSetting,
} from './model-picker.js';
import { TraceRuns } from './trace-runs.js';
import { HashSync } from './hash-sync.js';
import { ModelChoice } from './model-choice.js';
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
  /** The engine runs and their results. */
  #runs = new TraceRuns(
    this,
    () => this.#engine(),
    () => this.#hash.write(),
  );
  /** The URL hash (on the page). */
  #hash = new HashSync(this, (name) => this.#shows(name));
  /** The model picker's choice and the pretrained loading panel. */
  #models = new ModelChoice(this, {
    picker: () => this.#shows('model'),
    engine: () => this.#engine(),
    stateChanged: () => this.#hash.write(),
    loaded: () => this.#runs.forget(),
  });

  static override styles = PLAYGROUND_STYLES;

  protected override willUpdate(changed: PropertyValues<this>) {
    if (changed.has('state')) this.#runs.run();
  }

  protected override updated() {
    if (!this.shadowRoot) return;
    revealSelected(this.shadowRoot); // a phone's diagram scrolls sideways: keep the step in sight
    watchWraps(this.shadowRoot); // a wider one wraps: drawn as a connection
  }

  #shows(name: string): boolean {
    const list = this.controls.split(',').map((c) => c.trim());
    return list.includes('all') || list.includes(name);
  }

  #engine(): EngineClient {
    this.engine ??= defaultEngine?.() ?? null;
    if (!this.engine) throw new Error('ap-playground: no engine (call setDefaultEngine or set .engine)');
    return this.engine;
  }

  /** The Weights switch the current lesson view made, undone on leaving it (see lessonState). */
  #lessonOverride: LessonOverride | null = null;

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
      this.#hash.write(event.type === 'input');
      return;
    }
    this.drafts = drafts;
    this.errors = errors;
    this.state = { ...this.state, [name]: parsed.value } as State; // a new object: reruns (or rechecks) even if the value is the same
    if (name === 'view') {
      // A view whose point these weights hide brings its own, for as long as the person stays on such views.
      ({ state: this.state, override: this.#lessonOverride } = lessonState(this.state, this.#lessonOverride));
    } else if (name === 'preset') this.#lessonOverride = null; // chosen by the person: no view puts it back
    this.#hash.write(event.type === 'input');
  };

  /** A layer x head thumbnail was chosen: open that head. */
  #onPick = (event: Event) => {
    const { layer, head } = (event as CustomEvent<{ layer: number; head: number }>).detail;
    ({ state: this.state, override: this.#lessonOverride } = lessonState(
      { ...this.state, layer, head, view: 'head' },
      this.#lessonOverride,
    ));
    this.#hash.write();
  };

  /** Pin the trace shown as the 'changes' view's baseline, or unpin (compare with the previous result again). */
  #onBaseline = (event: Event) => {
    this.#runs.pin((event as CustomEvent<{ pin: boolean }>).detail.pin);
  };

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
    const diagram = ctx && this.#shows('views') ? viewDiagram(ctx, this.#onSetting) : null;
    const trained = this.state.model !== '';
    const values = { ...this.state, ...this.drafts } as Record<string, unknown>;
    const errors = this.#typing.on ? {} : this.errors; // shown once the person pauses typing
    const textSettings = (SETTINGS as readonly Setting[])
      .filter(
        (s) =>
          s.group === 'text' &&
          this.#shows(s.name) &&
          (s.name === 'text' ||
            (s.name === 'chat' ? !!this.pretrained?.chat : !trained && this.state.mode === 'cross')),
      )
      .map((s) =>
        this.pretrained && s.name === 'text'
          ? pretrainedTextSetting(s, this.pretrained, this.state.chat)
          : trained && s.name === 'text'
            ? trainedTextSetting(s, this.model)
            : s,
      );
    const modelControls = trained
      ? []
      : (SETTINGS as readonly Setting[]).filter((s) => s.group === 'model' && this.#shows(s.name)).map((s) => s.name);
    const picker = this.#shows('model');
    const problems = Object.entries(errors)
      .filter(([name]) => !this.#shows(name))
      .map(([, message]) => message);
    const stale = this.#runs.stale();
    const status = this.#showsStatus()
      ? html`<p class="status" aria-live="polite" data-heap-bytes=${this.heapBytes}>${this.status}</p>`
      : nothing;
    const aside =
      modelControls.length || picker
        ? html`
      ${
        picker
          ? html`${modelPicker(this.state.model, this.choices, this.#models.onModel)}<ap-pretrained-loader .host=${this.#models.panel}
              .weights=${this.state.weights} .q8Activations=${this.state.q8Activations}></ap-pretrained-loader>`
          : nothing
      }
      ${modelControls.length ? html`<ap-controls .state=${this.state} .errors=${errors} .drafts=${this.drafts} .only=${modelControls}></ap-controls>` : nothing}
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
        ${this.pretrained && this.rendered ? renderedPrompt(this.pretrained, this.rendered) : nothing}
      </section>`
          : nothing
      }
      <main>
        ${diagram ? diagram.template : nothing}
        ${this.#hash.problems.length ? html`<p class="error" role="alert" data-testid="link-problems">Ignored in the link: ${this.#hash.problems.join('; ')}</p>` : nothing}
        ${problems.map((message) => html`<p class="error" role="alert">${message}</p>`)}
        ${this.modelError ? html`<p class="error engine-error" role="alert" data-testid="model-error">${this.modelError}</p>` : nothing}
        ${this.engineError ? html`<p class="error engine-error" role="alert">${this.engineError}</p>` : nothing}
        ${
          picker && this.syncHash
            ? html`<ap-real-model .host=${this.#models.panel} .weights=${this.state.weights}
          .q8Activations=${this.state.q8Activations}></ap-real-model>`
            : nothing
        }
        ${picker && this.syncHash ? weightsHint(this.#runs.traceModel === '' && ctx ? { ...this.state, ...ctx.trace.config } : this.state, ctx?.block) : nothing}
        ${
          ctx
            ? html`<div class="view-panel" id=${VIEW_PANEL_ID} role=${diagram ? 'tabpanel' : nothing}
            aria-labelledby=${diagram ? diagram.tabId : nothing}>
          ${viewToolbar({ ctx, errors, drafts: this.drafts, shows: (name) => this.#shows(name), onSetting: this.#onSetting })}
          ${outOfRangeNotes(ctx)}
          <div class="view ${stale || this.#runs.slow ? 'stale' : ''}" data-view=${this.state.view} data-stale=${stale ? '1' : '0'}>
          ${stale || this.#runs.slow ? staleNote(ctx.trace, stale ?? 'computing') : nothing}${
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
                  recorded: this.pretrained ? this.recorded : 'every',
                  stagesUpTo: this.stagesUpTo,
                  baseline: this.baseline,
                  previous: this.#runs.previous,
                  current: this.#runs.current!,
                  whyNote: this.controls.trim() !== 'none',
                  weightsControl: this.#shows('preset'),
                  colorScaleControl: this.#shows('colorScale')
                    ? renderControl(settingByName('colorScale')!, this.state.colorScale, undefined, this.#onSetting)
                    : nothing,
                }),
            )
          }</div></div>
          ${this.pretrained && this.#runs.traceModel === this.pretrained.key ? predictionsView(this.pretrained, this.predictions, ctx.trace.tokens[0] ?? []) : nothing}`
            : Object.keys(this.errors).length > 0 && !this.#typing.on
              ? html`<p class="error" role="alert" data-testid="blocked">Nothing to show yet: ${Object.values(this.errors).join(' ')}</p>`
              : this.engineError || this.modelError
                ? nothing
                : html`<p class="status">Waiting for the first result…</p>`
        }
        ${aside ? nothing : status}
      </main>
      ${
        // After the view in the DOM, though the grid draws it beside (at the left): the diagram and the view come first
        // in the Tab order, before the model's settings.
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
    </div>`;
  }
}
customElements.define('ap-playground', Playground);
