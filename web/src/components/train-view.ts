// <ap-train>: the Train view. Pick a task, a model and an optimizer, press Start, and
// watch the loss fall and the heads of a probe example sharpen as the model learns.
// Training runs in a worker of its own (engine/train-worker.ts); this element only
// draws what its progress events carry, so the page stays responsive. Settings live
// in the URL hash ('#train&...') when sync-hash is set.
import { LitElement, css, html, nothing } from 'lit';
import { TASKS } from 'attention-playground';
import type { CurvePoint, ErrorInfo, Probe, Progress, RunInfo, RunStatus } from '../engine/training.js';
import { Comlink, startTrainingWorker, type TrainingWorker } from '../engine/train-client.js';
import { parseSetting } from '../state/settings.js';
import {
  DEFAULT_TRAIN_STATE, runLimits, shownTrainSettings, trainCrossCheck, trainSettingByName, trainStateFromHash,
  trainStateToHash, trainerOptions, type TrainSetting, type TrainState,
} from '../state/train-settings.js';
import { weightScale } from '../view/colors.js';
import { headPatterns } from '../view/head-patterns.js';
import { exportBytes, exportText } from '../view/export.js';
import { renderControl, settingInput, CONTROL_STYLES } from './controls.js';
import type { Series } from './curves.js';
import './curves.js';
import './heatmap.js';
import './legend.js';

const GROUPS: [TrainSetting['group'], string][] = [['task', 'Task'], ['model', 'Model'], ['optimizer', 'Optimizer'], ['run', 'Run']];
const PROBE_INTERVAL_MS = 400;
/** Probe snapshots kept for the timeline (older ones are thinned evenly beyond this). */
const TIMELINE_MAX = 240;
const COLORS = { train: '#1a73e8', heldOut: '#e8175d', sequence: '#2e7d32' };

export class TrainView extends LitElement {
  static override properties = {
    syncHash: { type: Boolean, attribute: 'sync-hash' },
    state: { attribute: false },
    errors: { state: true }, runError: { state: true }, info: { state: true }, status: { state: true },
    message: { state: true }, step: { state: true }, rate: { state: true }, probe: { state: true }, curvesVersion: { state: true },
    scrub: { state: true },
  };
  declare syncHash: boolean;
  declare state: TrainState;
  declare errors: Record<string, string>;
  declare runError: string;
  declare info: RunInfo | null;
  declare status: RunStatus | 'starting';
  declare message: string;
  declare step: number;
  /** Smoothed steps per second. */
  declare rate: number;
  declare probe: Probe | null;
  declare curvesVersion: number;
  /** The timeline entry shown instead of the latest probe, or null. */
  declare scrub: number | null;
  #timeline: { step: number; probe: Probe }[] = [];
  #worker: TrainingWorker | null = null;
  #run = 0;  // bumps with every new run: late events of an old one are dropped
  #train: CurvePoint[] = [];
  #heldOut: CurvePoint[] = [];
  #trainingMs = 0;
  #linkProblems: string[] = [];
  #probeShownAt = 0;

  static override styles = [CONTROL_STYLES, css`
    :host { display: block; font: 1rem/1.4 system-ui, sans-serif; color: #111; container-type: inline-size; }
    .layout { display: grid; gap: 1rem; grid-template-columns: minmax(12rem, 16rem) minmax(0, 1fr); grid-template-areas: 'aside main'; }
    aside { grid-area: aside; }
    main { grid-area: main; min-width: 0; }
    @container (max-width: 720px) { .layout { grid-template-columns: minmax(0, 1fr); grid-template-areas: 'main' 'aside'; } }
    fieldset { border: 1px solid #ddd; border-radius: 6px; margin: 0 0 0.7rem; padding: 0.4rem 0.6rem 0; min-width: 0; }
    fieldset select, fieldset input[type='number'] { width: 100%; box-sizing: border-box; }
    legend { font-weight: 700; font-size: 0.9rem; }
    .buttons { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; margin-bottom: 0.4rem; }
    button { font: inherit; padding: 0.35rem 0.9rem; cursor: pointer; border-radius: 5px; border: 1px solid #888; background: #f4f4f4; }
    button.primary { background: #1a73e8; color: #fff; border-color: #1a73e8; font-weight: 700; }
    button:disabled { opacity: 0.5; cursor: default; }
    button:focus-visible { outline: 3px solid #1a73e8; outline-offset: 1px; }
    .progress { font-variant-numeric: tabular-nums; margin: 0.3rem 0; }
    .task { color: #333; font-size: 0.9rem; max-width: 46rem; margin: 0 0 0.6rem; }
    .plots { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 22rem), 1fr)); }
    .probe-tokens { display: flex; flex-wrap: wrap; gap: 0.25rem; margin: 0.4rem 0; font: 0.8rem ui-monospace, monospace; }
    .tok { border: 1px solid #ccc; border-radius: 4px; padding: 0.1rem 0.3rem; text-align: center; min-width: 1.4rem; }
    .tok small { display: block; color: #555; font-size: 0.7rem; }
    .tok.right { border-color: #2e7d32; background: #e8f5e9; }
    .tok.wrong { border-color: #b00020; background: #fdecee; }
    .heads { display: grid; gap: 0.8rem; grid-template-columns: repeat(auto-fill, minmax(min(100%, 15rem), 1fr)); }
    .error { color: #b00020; }
    .run-error { border: 1px solid #b00020; background: #fdecee; padding: 0.4rem 0.6rem; border-radius: 4px; }
    h3 { font-size: 1rem; margin: 1rem 0 0.3rem; }
  `];

  constructor() {
    super();
    this.syncHash = false;
    this.state = { ...DEFAULT_TRAIN_STATE };
    this.errors = {};
    this.runError = '';
    this.info = null;
    this.status = 'starting';
    this.message = '';
    this.step = 0;
    this.rate = 0;
    this.probe = null;
    this.curvesVersion = 0;
    this.scrub = null;
  }

  override connectedCallback() {
    super.connectedCallback();
    if (this.syncHash) {
      const { state, problems } = trainStateFromHash(location.hash);
      this.state = state;
      this.#linkProblems = problems;
    }
    this.#worker ??= startTrainingWorker();
    void this.#newRun();
  }

  override disconnectedCallback() {
    this.#worker?.terminate();
    this.#worker = null;
    this.#run += 1;
    super.disconnectedCallback();
  }

  /** A fresh run of the current settings (Reset, or any change of task, model or optimizer). */
  async #newRun() {
    const run = ++this.#run;
    const problems = trainCrossCheck(this.state);
    this.errors = { ...Object.fromEntries(Object.entries(this.errors).filter(([n]) => !(n in problems) && this.#isParseError(n))), ...problems };
    this.#train = [];
    this.#heldOut = [];
    this.#timeline = [];
    this.scrub = null;
    this.#trainingMs = 0;
    this.rate = 0;
    if (Object.keys(this.errors).length > 0) {
      this.status = 'starting';
      this.info = null;
      this.probe = null;
      this.curvesVersion += 1;
      return;
    }
    this.status = 'starting';
    const created = await this.#worker!.api.create(trainerOptions(this.state), runLimits(this.state));
    if (run !== this.#run) return;
    if (!created.ok) {
      this.#showRunError(created.error);
      this.info = null;
      this.probe = null;
      return;
    }
    this.runError = '';
    this.info = created.info;
    this.#apply(created.progress);
  }

  #parseErrors = new Set<string>();
  #isParseError(name: string) { return this.#parseErrors.has(name); }

  #showRunError(error: ErrorInfo) {
    const setting = shownTrainSettings(this.state).find((s) => s.field === error.field);
    if (setting) this.errors = { ...this.errors, [setting.name]: error.message };
    else this.runError = error.message;
    this.status = 'starting';
  }

  #apply(progress: Progress) {
    this.#train.push(...progress.train);
    this.#heldOut.push(...progress.heldOut);
    this.#trainingMs = progress.trainingMs;
    this.step = progress.step;
    this.status = progress.status;
    this.message = progress.message;
    if (progress.stepsPerSecond > 0) this.rate = this.rate ? 0.7 * this.rate + 0.3 * progress.stepsPerSecond : progress.stepsPerSecond;
    this.#remember(progress);
    // The probe's heatmaps are most of the drawing: a few times a second is enough to watch heads form.
    const now = performance.now();
    if (progress.status !== 'running' || now - this.#probeShownAt >= PROBE_INTERVAL_MS) {
      this.probe = progress.probe;
      this.#probeShownAt = now;
    }
    this.curvesVersion += 1;
    this.dispatchEvent(new CustomEvent('train-progress', { detail: { step: progress.step, status: progress.status }, bubbles: true, composed: true }));
  }

  /** Keeps the probe of each step seen, for scrubbing through the run afterwards. */
  #remember(progress: Progress) {
    const last = this.#timeline.at(-1);
    if (last && last.step === progress.step) last.probe = progress.probe;
    else this.#timeline.push({ step: progress.step, probe: progress.probe });
    if (this.#timeline.length > TIMELINE_MAX) this.#timeline = this.#timeline.filter((_, i, all) => i % 2 === 0 || i === all.length - 1);
    this.scrub = null;
  }

  #timelineControl() {
    const n = this.#timeline.length;
    if (n < 2 || this.status === 'running') return nothing;
    const index = this.scrub ?? n - 1;
    return html`<div class="setting timeline"><label for="timeline">Timeline: the heads at step ${this.#timeline[index].step}</label>
      <input id="timeline" type="range" min="0" max=${n - 1} .value=${String(index)}
        @input=${(e: Event) => { e.stopPropagation(); const i = Number((e.target as HTMLInputElement).value); this.scrub = i === n - 1 ? null : i; }}>
    </div>`;
  }

  #start = async () => {
    if (!this.info) return;
    const run = this.#run;
    this.status = 'running';
    const last = await this.#worker!.api.run(Comlink.proxy((p: Progress) => { if (run === this.#run) this.#apply(p); }));
    if (run === this.#run) this.#apply(last);
  };

  #pause = () => { void this.#worker?.api.pause(); };

  #stepOnce = async () => {
    const run = this.#run;
    const progress = await this.#worker!.api.step();
    if (run === this.#run) this.#apply(progress);
  };

  #reset = () => { void this.#newRun(); };

  #onSetting = (event: Event) => {
    const { name, raw } = settingInput(event);
    const setting = trainSettingByName(name);
    if (!setting) return;
    const parsed = parseSetting(setting, raw);
    const errors = { ...this.errors };
    delete errors[name];
    if ('error' in parsed) {
      this.#parseErrors.add(name);
      this.errors = { ...errors, [name]: parsed.error };
      return;
    }
    this.#parseErrors.delete(name);
    this.errors = errors;
    if (parsed.value === this.state[name]) return;  // the 'change' after an 'input', or no change
    this.state = { ...this.state, [name]: parsed.value as TrainState[string] };
    if (this.syncHash) history.replaceState(null, '', trainStateToHash(this.state));
    if (setting.target === 'run' && setting.field !== 'steps' && this.info && Object.keys(errors).length === 0) {
      void this.#worker!.api.setLimits(runLimits(this.state));
      if (this.status === 'done') this.status = 'paused';
    } else {
      void this.#newRun();  // the steps set the cosine schedule's end: a new run
    }
  };

  #saveWeights = async () => {
    const bytes = await this.#worker!.api.saveWeights();
    exportBytes(bytes, `${this.state.task}-step${this.step}.safetensors`);
  };

  #loadWeights = async (event: Event) => {
    const input = event.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    const run = this.#run;
    const result = await this.#worker!.api.loadWeights(new Uint8Array(await file.arrayBuffer()));
    if (run !== this.#run) return;
    if (!result.ok) { this.runError = `${file.name}: ${result.error.message}`; return; }
    this.runError = '';
    this.#apply(result.progress);
  };

  #exportCurves(format: 'csv' | 'json') {
    const rows = [...this.#train.map((p) => ({ set: 'train', ...p })), ...this.#heldOut.map((p) => ({ set: 'heldOut', ...p }))];
    if (format === 'json') exportText(JSON.stringify({ settings: this.state, curves: rows }, null, 1), 'application/json', 'curves.json');
    else exportText(['set,step,loss,accuracy,sequenceAccuracy', ...rows.map((r) => `${r.set},${r.step},${r.loss},${r.accuracy},${r.sequenceAccuracy}`)]
      .join('\n'), 'text/csv', 'curves.csv');
  }

  #progressLine() {
    const steps = this.state.steps as number;
    const last = this.#heldOut.at(-1);
    const left = this.rate > 0 && this.status === 'running' ? Math.max(0, steps - this.step) / this.rate : null;
    const parts = [`step ${this.step} of ${steps}`];
    if (this.rate > 0) parts.push(`${this.rate.toFixed(0)} steps/s`);
    parts.push(`${(this.#trainingMs / 1000).toFixed(1)} s training`);
    if (left !== null) parts.push(`at most ${left.toFixed(0)} s left`);
    if (last) parts.push(`held-out: loss ${last.loss.toFixed(3)}, sequences right ${(100 * last.sequenceAccuracy).toFixed(1)}%`);
    return parts.join(' · ');
  }

  #plots() {
    const xy = (points: CurvePoint[], key: keyof CurvePoint) => points.map((p) => ({ x: p.step, y: p[key] }));
    const loss: Series[] = [
      { label: 'training loss', color: COLORS.train, points: xy(this.#train, 'loss') },
      { label: 'held-out loss', color: COLORS.heldOut, points: xy(this.#heldOut, 'loss') },
    ];
    const accuracy: Series[] = [
      { label: 'training tokens right', color: COLORS.train, points: xy(this.#train, 'accuracy') },
      { label: 'held-out tokens right', color: COLORS.heldOut, points: xy(this.#heldOut, 'accuracy') },
      { label: 'held-out sequences right', color: COLORS.sequence, points: xy(this.#heldOut, 'sequenceAccuracy'), dashed: true },
    ];
    const xMax = this.state.steps as number;
    return html`<div class="plots">
      <ap-curves data-plot="loss" .series=${loss} log y-label="cross-entropy loss" x-max=${xMax}></ap-curves>
      <ap-curves data-plot="accuracy" .series=${accuracy} .yDomain=${[0, 1]} y-label="accuracy" x-max=${xMax}></ap-curves>
    </div>`;
  }

  #probeView(probe: Probe) {
    const scale = weightScale();
    const labels = probe.tokens.map((label) => ({ label, pad: false }));
    const blocked = new Uint8Array(probe.seq * probe.seq);
    for (let i = 0; i < probe.seq; i++) for (let j = i + 1; j < probe.seq; j++) blocked[i * probe.seq + j] = 1;
    return html`<h3>A held-out example</h3>
      <p class="task">Under each token: the model's guess for the next one (green: right, red: wrong, where scored) and its probability.
        Each head is named by the pattern it best matches (previous token, self, first token, induction, reverse diagonal, or broad)
        with the share of attention that falls where the pattern puts it.</p>
      <div class="probe-tokens" data-testid="probe">${probe.tokens.map((t, i) => {
        const expected = probe.expected[i];
        const cls = expected === null ? '' : expected === probe.predicted[i] ? 'right' : 'wrong';
        return html`<span class="tok ${cls}" title=${expected === null ? 'not scored' : `should be ${expected}`}>${t}
          <small>${expected === null ? '·' : `${probe.predicted[i]} ${(100 * probe.confidence[i]).toFixed(0)}%`}</small></span>`;
      })}</div>
      <ap-legend .scale=${scale} label="Attention weight:"></ap-legend>
      <div class="heads">${probe.heads.map((h) => {
        const best = headPatterns(h.weights, probe.seq, probe.tokens)[0];
        return html`<ap-heatmap data-layer=${h.layer} data-head=${h.head} data-pattern=${best.name} .values=${h.weights}
          .rows=${probe.seq} .cols=${probe.seq} .rowLabels=${labels} .colLabels=${labels} .blocked=${blocked} .scale=${scale}
          row-axis="query" col-axis="key"
          caption=${`Layer ${h.layer} · head ${h.head}: ${best.name} (${best.score.toFixed(2)}) · weights (Sq, Sk) = (${probe.seq}, ${probe.seq})`}
        ></ap-heatmap>`;
      })}</div>`;
  }

  override render() {
    const shown = shownTrainSettings(this.state);
    const task = TASKS.find((t) => t.name === this.state.task);
    const running = this.status === 'running';
    const finished = this.status === 'done' || this.status === 'diverged';
    const ready = this.info !== null && Object.keys(this.errors).length === 0;
    return html`<div class="layout" @input=${this.#onSetting} @change=${this.#onSetting}>
      <aside aria-label="Training settings">
        ${GROUPS.map(([group, title]) => html`<fieldset><legend>${title}</legend>
          ${shown.filter((s) => s.group === group).map((s) => renderControl(s, this.state[s.name], this.errors[s.name], () => {}))}
        </fieldset>`)}
        ${this.info ? html`<p class="task">${this.info.parameters.toLocaleString('en')} parameters · sequences of ${this.info.seqLen} tokens ·
          vocabulary ${this.info.vocabulary.length}</p>` : nothing}
        ${this.#linkProblems.length ? html`<p class="error">Ignored in the link: ${this.#linkProblems.join('; ')}</p>` : nothing}
      </aside>
      <main>
        ${task ? html`<p class="task" data-testid="task-info"><strong>${task.format}</strong>. Vocabulary: ${task.vocabulary}. Solved by: ${task.pattern}.</p>` : nothing}
        <div class="buttons">
          ${running ? html`<button class="primary" data-action="pause" @click=${this.#pause}>Pause</button>`
            : html`<button class="primary" data-action="start" ?disabled=${!ready || finished} @click=${this.#start}>${this.step > 0 ? 'Resume' : 'Start'}</button>`}
          <button data-action="step" ?disabled=${!ready || running || finished} @click=${this.#stepOnce}>Step</button>
          <button data-action="reset" ?disabled=${Object.keys(this.errors).length > 0} @click=${this.#reset}>Reset</button>
          <button data-action="save" ?disabled=${!ready || running} @click=${this.#saveWeights}>Save weights</button>
          <label><button data-action="load" ?disabled=${!ready || running}
            @click=${(e: Event) => (e.currentTarget as HTMLElement).parentElement!.querySelector('input')!.click()}>Load weights</button>
            <input type="file" accept=".safetensors" hidden @change=${this.#loadWeights}></label>
          <button data-action="csv" ?disabled=${this.step === 0} @click=${() => this.#exportCurves('csv')}>Curves CSV</button>
          <button data-action="json" ?disabled=${this.step === 0} @click=${() => this.#exportCurves('json')}>Curves JSON</button>
        </div>
        <p class="progress" aria-live="polite" data-status=${this.status} data-step=${this.step}>${this.info ? this.#progressLine() : 'preparing…'}</p>
        ${this.message ? html`<p class=${this.status === 'diverged' ? 'run-error' : 'task'} role="status">${this.message}</p>` : nothing}
        ${this.runError ? html`<p class="run-error" role="alert">${this.runError}</p>` : nothing}
        ${this.info ? this.#plots() : nothing}
        ${this.#timelineControl()}
        ${this.probe ? this.#probeView(this.scrub === null ? this.probe : this.#timeline[this.scrub].probe) : nothing}
      </main>
    </div>`;
  }
}
customElements.define('ap-train', TrainView);
