// The runs of <ap-playground> (playground.ts): each change of the state asks the engine for
// a new trace when the model's input changed (a view setting alone recomputes nothing), with
// the untrained model's settings, a trained model (loaded once, starting from its example) or
// a pretrained checkpoint loaded in this tab; the answer becomes the element's trace, status,
// predictions and problems (its reactive properties, playground-properties.ts), and a
// 'trace' event. Also kept here: which model and text made the trace and the result before
// it (the 'changes' view compares them), the pinned baseline, and whether the trace shown
// is stale.
import type { ReactiveControllerHost } from 'lit';
import type { EngineClient, EngineRequest, RunOutcome } from '../workers/client.js';
import { isPretrainedId, pretrainedId, pretrainedModel } from '../model/pretrained-models.js';
import { exploreModel } from './explore-models.js';
import {
  DEFAULT_STATE,
  draftProblems,
  settingByName,
  splitLines,
  untrainedRun,
  type State,
} from '../settings/settings.js';
import type { Snapshot } from '../model/comparison.js';
import type { PlaygroundProperties } from './playground-properties.js';
import { SlowRun } from './delayed-flags.js';
import { fixed } from '../model/words.js';

export class TraceRuns {
  /** A run that takes a while marks the view it will replace. */
  #slowRun: SlowRun;
  /** The result before `trace`, from the same model (else null). */
  #previous: Snapshot | null = null;
  /** The text that produced `trace`, for the 'changes' view's caption. */
  #traceText = '';
  /** Which model made `trace` ('' untrained, else its TrainedModelRef key): 'what changed' compares one model's traces only. */
  #traceModel = '';
  /** The engine's latest complaint about the typed text (shown at the text box until a run succeeds). */
  #inputError = '';
  #lastRun = '';
  #compareRequester = {};

  constructor(
    private readonly host: PlaygroundProperties & ReactiveControllerHost,
    private readonly engine: () => EngineClient,
    /** The state changed here (a trained model's example text): the URL hash follows. */
    private readonly stateChanged: () => void,
  ) {
    this.#slowRun = new SlowRun(host, 250);
  }

  /** A run has taken a while and is not answered yet. */
  get slow(): boolean {
    return this.#slowRun.on;
  }
  get previous(): Snapshot | null {
    return this.#previous;
  }
  /** The trace shown, with the text and model that made it. */
  get current(): Snapshot | null {
    const trace = this.host.trace;
    return trace && { trace, text: this.#traceText, model: this.#traceModel };
  }
  /** Which model made the trace shown ('' the untrained one). */
  get traceModel(): string {
    return this.#traceModel;
  }

  /** The next state runs even if the model's input is the same as the last run's (a checkpoint was just loaded). */
  forget(): void {
    this.#lastRun = '';
  }

  /** Pin the trace shown as the 'changes' view's baseline, or unpin (compare with the previous result again). */
  pin(pin: boolean): void {
    this.host.baseline = pin ? this.current : null;
  }

  /** Runs the state, if its model's input changed since the last run. */
  run(): void {
    const { host } = this;
    const state = host.state;
    if (isPretrainedId(state.model)) {
      this.#runPretrained(state);
      return;
    }
    host.pretrained = null;
    if (state.model) {
      this.#runTrained(state);
      return;
    }
    host.model = null;
    host.modelError = '';
    const { input, problems } = untrainedRun(state);
    const drafts = draftProblems(host.drafts);
    host.errors = { ...this.#viewErrors(), ...problems, ...drafts };
    if (!input || Object.keys(drafts).some((name) => settingByName(name)?.group !== 'view')) return;
    const key = JSON.stringify(input);
    if (key === this.#lastRun) return; // a view setting changed: nothing to recompute
    const first = this.#lastRun === '';
    this.#lastRun = key;
    const compare = splitLines(host.compareText);
    if (first && compare.length > 0) {
      this.engine().request(this.#compareRequester, { ...input, texts: compare }, (outcome) => {
        if (outcome.ok && !host.baseline) host.baseline = { trace: outcome.trace, text: host.compareText, model: '' };
      });
    }
    this.#request(input, '', state.text);
  }

  /** Errors of view settings (the others are checked again on every run). */
  #viewErrors(): Record<string, string> {
    return Object.fromEntries(
      Object.entries(this.host.errors).filter(([name]) => settingByName(name)?.group === 'view'),
    );
  }

  #request(input: EngineRequest, model: string, text: string) {
    this.#slowRun.started();
    this.engine().request(this.host, input, (outcome) => this.#show(outcome, model, text));
  }

  /** A trained model: load it (once), start from its example input, run it on the typed tokens. */
  #runTrained(state: State) {
    const { host } = this;
    const errors = this.#viewErrors();
    if (state.text.trim() === '') errors.text = 'Type tokens of the model\u2019s task to see its attention.';
    host.errors = errors;
    if (host.model?.id !== state.model) {
      host.model = null;
      host.modelError = '';
      host.status = `loading the model \u2018${state.model}\u2019\u2026`;
      const id = state.model;
      exploreModel(id).then(
        (model) => {
          if (host.state.model !== id) return; // another model was picked meanwhile
          host.model = model;
          if (host.state.text === DEFAULT_STATE.text) {
            // no input of its own yet: the model's example
            host.state = { ...host.state, text: model.example };
            this.stateChanged();
          } else this.run();
        },
        (error: unknown) => {
          if (host.state.model !== id) return;
          host.modelError = error instanceof Error ? error.message : String(error);
          host.status = '';
        },
      );
      return;
    }
    if (errors.text) return;
    const key = JSON.stringify({ model: host.model.ref.key, text: state.text });
    if (key === this.#lastRun) return;
    this.#lastRun = key;
    this.#request({ trained: host.model.ref, text: state.text }, host.model.ref.key, state.text);
  }

  /** A pretrained checkpoint (loaded on this page): run it on the typed text with its tokenizer. */
  #runPretrained(state: State) {
    const { host } = this;
    host.model = null;
    const info = pretrainedModel();
    const errors = this.#viewErrors();
    if (!info || pretrainedId(info) !== state.model) {
      host.pretrained = null;
      host.errors = errors;
      host.modelError =
        `The pretrained model \u2018${state.model.slice('pretrained:'.length)}\u2019 is not loaded in this tab: ` +
        'load it again with \u201cLoad a pretrained model\u2026\u201d in the Model picker.';
      host.status = '';
      return;
    }
    host.modelError = '';
    host.pretrained = info;
    if (state.text.trim() === '') errors.text = 'Type some text to see the model\u2019s attention.';
    host.errors = errors;
    if (errors.text) return;
    const chat = info.chat && state.chat;
    const key = JSON.stringify({ model: info.key, text: state.text, chat });
    if (key === this.#lastRun) return;
    this.#lastRun = key;
    this.#request({ pretrained: { key: info.key }, text: state.text, chat }, info.key, state.text);
  }

  #show(outcome: RunOutcome, model: string, text: string) {
    const { host } = this;
    this.#slowRun.stop();
    if (!outcome.ok) {
      host.rendered = ''; // the last text the template made is not what was asked for now
      if (outcome.field === 'text') host.errors = { ...host.errors, text: (this.#inputError = outcome.error) };
      else host.engineError = outcome.error;
      host.status = '';
      return;
    }
    host.engineError = '';
    if (this.#inputError && host.errors.text === this.#inputError) {
      // An older request's complaint, answered since by a newer request that ran.
      const { text: _, ...rest } = host.errors;
      host.errors = rest;
    }
    this.#inputError = '';
    this.#previous =
      host.trace && model === this.#traceModel ? { trace: host.trace, text: this.#traceText, model } : null;
    this.#traceModel = model;
    this.#traceText = text;
    host.trace = outcome.trace;
    host.predictions = outcome.predictions ?? [];
    host.recorded = outcome.recorded ?? 'every';
    host.stagesUpTo = outcome.stagesUpTo ?? 0;
    host.rendered = outcome.rendered ?? '';
    host.status = `${outcome.build} engine · ${fixed(outcome.milliseconds, 2)} ms · wasm heap ${fixed(outcome.heapBytes / 1024, 0)} KiB`;
    host.heapBytes = outcome.heapBytes;
    host.dispatchEvent(new CustomEvent('trace', { detail: { trace: outcome.trace }, bubbles: true, composed: true }));
  }

  /** Why the trace shown is not what the settings ask for (a problem, or another model still loading), or null. */
  stale(): 'problem' | 'loading' | null {
    const { host } = this;
    const wanted = isPretrainedId(host.state.model)
      ? (host.pretrained?.key ?? null)
      : host.state.model
        ? (host.model?.ref.key ?? null)
        : '';
    if (
      host.engineError ||
      host.modelError ||
      Object.keys(host.errors).some((name) => settingByName(name)?.group !== 'view')
    )
      return 'problem';
    return wanted !== this.#traceModel ? 'loading' : null;
  }
}
