// <ap-train>: the Train view. Pick a task, a model and an optimizer, press Start (or, on a shipped model, Train it yourself), and
// watch the loss fall and the heads of a probe example sharpen as the model learns;
// optionally two to five runs differing in one setting (settings/train-settings.ts's
// comparisons) train side by side, curves overlaid, heads next to each other. Shipped
// checkpoints show trained at once; heads can be switched off. Each run trains in a
// worker of its own (workers/train-run.ts; the one-file element: the page's thread); this
// element only draws. Settings live in the URL hash ('#train&...') with sync-hash, or
// come from attributes (the element's train mode).
import { LitElement, html, nothing } from 'lit';
import { TASKS } from 'attention-playground';
import { loadCheckpoint, type CheckpointIndex } from '../model/checkpoint.js';
import { checkpointPlan } from '../model/checkpoint-plans.js';
import { CheckpointShelf } from './checkpoint-shelf.js';
import { RUN_BUTTON, type Ablation, type HeadRef, type Probe } from '../model/training-data.js';
import { TrainRun } from '../workers/train-run.js';
import { parseSetting } from '../settings/settings.js';
import {
  DEFAULT_TRAIN_STATE,
  comparisonOpening,
  runLabel,
  runLimits,
  runStates,
  shownTrainSettings,
  trainCrossCheck,
  trainSettingByName,
  trainStateFromHash,
  trainStateToHash,
  trainerOptions,
  type TrainState,
} from '../settings/train-settings.js';
import { exportBytes } from '../ui/export.js';
import { exportCurves, exportPlots } from './train-export.js';
import { TRAINED_MODEL_ID, offerTrainedModel } from '../model/trained-models.js';
import { charactersAreTokens, lengthNote, parseProbeInput, tokensAsInput } from '../model/probe-input.js';
import { ablationSummary, headKey, probeIntro, probeView, visible, type HeadSwitches } from './probe-view.js';
import { comparisonSummary, progressLine, trainPlots } from './train-report.js';
import { settingInput } from '../ui/controls.js';
import { TRAIN_STYLES } from './train-styles.js';
import { probeBox, timeline, timelineIndex, trainButtons, trainSettings, trainSummary } from './train-controls.js';
import { settingsDrawer } from '../ui/settings-drawer.js';
import '../ui/curves.js';
import '../ui/heatmap.js';
import '../ui/legend.js';

const NAMES = ['A', 'B', 'C', 'D', 'E']; // up to five runs (positions at twice the length compare five)

/** The run's own tokens when they are few enough to list (the task's description says "items 0..symbols-1"), else that description. */
const vocabularyText = (described: string, tokens: readonly string[] | undefined) =>
  tokens && tokens.length <= 32 ? `${tokens.length} tokens, ${tokens.map(visible).join(' ')}` : described;

export class TrainView extends LitElement {
  static override properties = {
    syncHash: { type: Boolean, attribute: 'sync-hash' },
    checkpoint: { type: String },
    controls: { type: String },
    autostart: { type: Boolean },
    state: { attribute: false },
    errors: { state: true },
    runError: { state: true },
    version: { state: true },
    scrub: { state: true },
    custom: { state: true },
    customError: { state: true },
    customNote: { state: true },
    checkpoints: { state: true },
    ablation: { state: true },
    drawerOpen: { state: true },
    allHeads: { state: true },
  };
  declare syncHash: boolean;
  /** A checkpoint to open with: a shipped one's id, or the URL of a given one's .json (its settings replace the state). */
  declare checkpoint: string;
  /** Which settings show ('all', 'none', or a comma list of setting names); 'buttons' in the list (or 'all') shows the buttons. */
  declare controls: string;
  /** Start training as soon as the runs are ready (unless a checkpoint is shown). */
  declare autostart: boolean;
  declare state: TrainState;
  declare errors: Record<string, string>;
  declare runError: string;
  /** Bumped whenever a run reports: redraw. */
  declare version: number;
  /** The step whose heads the timeline shows, or null for the latest. */
  declare scrub: number | null;
  /** Your own input completed by each run's model (shown instead of the held-out example), or null. */
  declare custom: { text: string; step: number; probes: (Probe | null)[] } | null;
  declare customError: string;
  /** Said about your own input that is not an error (a prompt of another length than the task's). */
  declare customNote: string;
  /** Heads switched off in one run, measured at one step (shown while that run is still at that step). */
  declare ablation: { run: number; step: number; off: Set<string>; result: Ablation | null; error: string } | null;
  /** The shipped checkpoints: settings that match one show it trained, until Reset or Start. */
  declare checkpoints: CheckpointIndex['checkpoints'];
  /** In a narrow container the settings fold into a drawer above the runs: whether it is open. */
  declare drawerOpen: boolean;
  /** Every head of the probes, or (false) only the ones that matter (probe-view.ts, headsThatMatter). */
  declare allHeads: boolean;
  /** Set by Reset and Start: train these settings here even if a checkpoint has them. */
  #fromScratch = false;
  /** Why the `checkpoint` asked for could not be shown, for the first runs shown instead. */
  #checkpointProblem = '';
  /** The state this element set itself; another one assigned from outside (an attribute) means new runs. */
  #ownState: TrainState | null = null;
  #prepared = false;
  #shelf = new CheckpointShelf();
  #runs: TrainRun[] = [];
  #linkProblems: string[] = [];
  #parseErrors = new Set<string>();

  static override styles = TRAIN_STYLES;

  constructor() {
    super();
    this.syncHash = false;
    this.checkpoint = '';
    this.controls = 'all';
    this.autostart = false;
    this.state = { ...DEFAULT_TRAIN_STATE };
    this.errors = {};
    this.runError = '';
    this.version = 0;
    this.scrub = null;
    this.custom = null;
    this.customError = '';
    this.customNote = '';
    this.checkpoints = [];
    this.ablation = null;
    this.drawerOpen = false;
    this.allHeads = false;
  }

  override connectedCallback() {
    super.connectedCallback();
    if (this.syncHash) {
      const { state, problems } = trainStateFromHash(location.hash);
      this.state = state;
      this.#linkProblems = problems;
      window.addEventListener('hashchange', this.#onHashChange);
    }
    void this.#prepare();
  }

  /** A hash typed or followed while the view is open: its settings, as a fresh visit to that link would show. */
  #onHashChange = () => {
    if (!location.hash.startsWith('#train') || location.hash === trainStateToHash(this.state)) return;
    const { state, problems } = trainStateFromHash(location.hash);
    this.#linkProblems = problems;
    this.errors = {};
    this.#parseErrors.clear();
    this.state = state; // not #ownState: willUpdate makes new runs (showing a checkpoint that has these settings)
  };

  /** The checkpoints' list first (so the first runs can show one), then the runs. */
  async #prepare() {
    this.runError = (await this.#shelf.readIndex()) ?? '';
    if (this.checkpoint) {
      try {
        const { state, problems } = trainStateFromHash(`#train&${(await this.#shelf.entry(this.checkpoint)).settings}`);
        this.state = state;
        this.#linkProblems.push(...problems);
      } catch (error) {
        // A shipped one's task and settings are known without its files: open on them, untrained, and say so.
        const plan = checkpointPlan(this.checkpoint);
        if (plan) this.state = trainStateFromHash(`#train&${plan.settings}`).state;
        this.#checkpointProblem =
          `Checkpoint '${this.checkpoint}' could not be loaded (${(error as Error).message})` +
          (plan
            ? `: its task and settings (${plan.title}) are shown untrained; press ${RUN_BUTTON.start} to train it here.`
            : '.');
      }
    }
    this.checkpoints = this.#shelf.entries;
    this.#ownState = this.state;
    this.#prepared = true;
    await this.#newRuns();
    if (this.autostart && !this.#runs.some((r) => r.checkpoint)) void this.#start();
  }

  override willUpdate(changed: Map<string, unknown>) {
    if (changed.has('state') && this.#prepared && this.state !== this.#ownState) {
      this.#ownState = this.state;
      this.#fromScratch = false;
      void this.#newRuns();
    }
  }

  override disconnectedCallback() {
    window.removeEventListener('hashchange', this.#onHashChange);
    for (const run of this.#runs) run.dispose();
    this.#runs = [];
    super.disconnectedCallback();
  }

  #changed = () => {
    this.version += 1;
    const a = this.#runs[0];
    if (a)
      this.dispatchEvent(
        new CustomEvent('train-progress', {
          detail: { step: a.step, status: this.#status() },
          bubbles: true,
          composed: true,
        }),
      );
  };

  /** Fresh runs of the current settings (Reset, or any change of task, model, optimizer or comparison). */
  async #newRuns() {
    const problems = trainCrossCheck(this.state);
    this.errors = {
      ...Object.fromEntries(Object.entries(this.errors).filter(([n]) => !(n in problems) && this.#parseErrors.has(n))),
      ...problems,
    };
    this.scrub = null;
    this.custom = null;
    this.customError = '';
    const states = runStates(this.state);
    while (this.#runs.length > states.length) this.#runs.pop()!.dispose();
    while (this.#runs.length < states.length) this.#runs.push(new TrainRun(this.#changed));
    if (Object.keys(this.errors).length > 0) {
      for (const run of this.#runs) run.clear();
      this.version += 1;
      return;
    }
    // The checkpoint that could not be loaded is said once, with the first runs shown in its place.
    this.runError = this.#checkpointProblem;
    this.#checkpointProblem = '';
    const shown = states.length === 1 && !this.#fromScratch ? this.#shelf.matching(states[0]) : null;
    if (shown) {
      const error = await this.#showCheckpoint(shown, states[0]);
      if (!error) {
        this.version += 1;
        return;
      }
      this.runError = `${error} Training it here instead.`;
    }
    const failures = await Promise.all(
      this.#runs.map((run, i) => run.create(trainerOptions(states[i]), runLimits(states[i]))),
    );
    failures.forEach((error, i) => {
      if (!error) return;
      const setting = shownTrainSettings(this.state).find((s) => s.field === error.field);
      if (i === 0 && setting) this.errors = { ...this.errors, [setting.name]: error.message };
      else this.runError = `${this.#runs.length > 1 ? `Run ${NAMES[i]}: ` : ''}${error.message}`;
    });
    this.version += 1;
  }

  /** Shows a checkpoint in run A; resolves with a problem's description, or null. */
  async #showCheckpoint(id: string, state: TrainState): Promise<string | null> {
    try {
      const checkpoint = await loadCheckpoint(id);
      const error = await this.#runs[0].showCheckpoint(checkpoint, trainerOptions(state), runLimits(state));
      return error ? `Checkpoint '${id}': ${error.message}.` : null;
    } catch (error) {
      return `Checkpoint '${id}' could not be loaded (${(error as Error).message}).`;
    }
  }

  /** Switches to a shipped checkpoint's settings (its trained run shows). */
  #openCheckpoint(settings: string) {
    this.state = this.#ownState = trainStateFromHash(`#train&${settings}`).state;
    if (this.syncHash) history.replaceState(null, '', trainStateToHash(this.state));
    this.#fromScratch = false;
    void this.#newRuns();
  }

  /** One status for the buttons: running while any run trains; done when every run is. */
  #status(): string {
    const statuses = this.#runs.map((r) => r.status);
    if (statuses.length === 0 || statuses.includes('starting')) return 'starting';
    if (statuses.includes('running')) return 'running';
    if (this.#runs.every((r) => r.finished)) return 'done';
    return statuses.includes('paused') ? 'paused' : 'ready';
  }

  #start = async () => {
    this.scrub = null;
    if (this.#runs.some((r) => r.checkpoint)) {
      // a shown checkpoint: train its settings here, from the start
      this.#fromScratch = true;
      await this.#newRuns();
    }
    for (const run of this.#runs) if (!run.finished) void run.start();
  };
  #pause = () => {
    for (const run of this.#runs) run.pause();
  };
  #stepOnce = () => {
    for (const run of this.#runs) if (!run.finished) void run.stepOnce();
  };
  #reset = () => {
    this.#fromScratch = true;
    void this.#newRuns();
  };

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
    const unchanged = parsed.value === this.state[name];
    if (unchanged && !this.#parseErrors.has(name)) return; // the 'change' after an 'input', or no change: the problems stand
    this.#parseErrors.delete(name);
    if (unchanged) {
      // typed back to the value the runs have: only that state's cross-checks apply
      const problem = trainCrossCheck(this.state)[name];
      this.errors = problem ? { ...errors, [name]: problem } : errors;
      return;
    }
    this.errors = errors;
    // A comparison opens on the settings where its effect shows (train-settings.ts, COMPARISONS).
    const opening = name === 'compare' ? comparisonOpening(parsed.value as string) : {};
    this.state = this.#ownState = { ...this.state, ...opening, [name]: parsed.value as TrainState[string] };
    this.#fromScratch = false;
    if (this.syncHash) history.replaceState(null, '', trainStateToHash(this.state));
    if (
      setting.target === 'run' &&
      setting.field !== 'steps' &&
      Object.keys(errors).length === 0 &&
      this.#runs.every((r) => r.info)
    ) {
      const states = runStates(this.state);
      this.#runs.forEach((run, i) => run.setLimits(runLimits(states[i])));
      this.version += 1;
    } else {
      void this.#newRuns(); // the steps set the cosine schedule's end: new runs
    }
  };

  #saveWeights = async () => {
    const a = this.#runs[0];
    exportBytes(await a.saveWeights(), `${this.state.task}-step${a.step}.safetensors`);
  };

  /** Hands run A's model to the Explore page (every view on the trained model) and goes there. */
  #explore = async () => {
    const a = this.#runs[0];
    const probe = a.probe;
    offerTrainedModel({
      label: `${this.state.task}${this.#runs.length > 1 ? `, run A: ${runLabel(this.state, 0)}` : ''}, step ${a.step}`,
      settings: trainStateToHash(this.state).replace(/^#train&?/, ''),
      weights: await a.saveWeights(),
      example: probe ? tokensAsInput(probe.tokens, this.#characters()) : undefined,
    });
    location.hash = `#model=${TRAINED_MODEL_ID}`;
  };

  #loadWeights = async (event: Event) => {
    const input = event.target as HTMLInputElement;
    const file = input.files?.[0];
    input.value = '';
    if (!file) return;
    const error = await this.#runs[0].loadWeights(new Uint8Array(await file.arrayBuffer()));
    this.runError = error ? `${file.name}: ${error.message}` : '';
  };

  #name(i: number): string {
    return this.#runs.length > 1 ? `${NAMES[i]} (${runLabel(this.state, i)})` : '';
  }

  #characters(): boolean {
    return charactersAreTokens(this.state);
  }

  /** Runs the typed input through every run's model, each completing it greedily. */
  #complete = async (event: Event) => {
    event.preventDefault();
    const text = (this.renderRoot.querySelector('#probe-input') as HTMLInputElement).value;
    const vocabulary = this.#runs[0]?.info?.vocabulary ?? [];
    const parsed = parseProbeInput(text, vocabulary, this.#characters());
    if ('error' in parsed) {
      this.customError = parsed.error;
      return;
    }
    const results = await Promise.all(this.#runs.map((run) => run.complete(parsed.ids)));
    const failed = results.find((r) => !r.ok);
    if (failed && !failed.ok) {
      this.customError = failed.error.message;
      return;
    }
    this.customError = '';
    this.customNote =
      this.state.task === 'text'
        ? '' // free text: prompts of any length
        : lengthNote(this.#runs[0].probe, parsed.ids.length);
    this.custom = { text, step: this.#runs[0].step, probes: results.map((r) => (r.ok ? r.probe : null)) };
  };

  /** The ablation shown for run i, if it still describes that run (same step, no scrubbing, no own input). */
  #ablationOf(i: number): Ablation | null {
    const a = this.ablation;
    if (!a || a.run !== i || !a.result || this.scrub !== null || this.custom) return null;
    return a.step === this.#runs[i]?.step ? a.result : null; // the run's step: a shown checkpoint's worker counts from 0
  }

  /** Switches run i's head off or on, and measures the run with the heads that are off. */
  async #toggleHead(i: number, head: HeadRef) {
    const run = this.#runs[i];
    const current = this.ablation?.run === i && this.#ablationOf(i) ? this.ablation.off : new Set<string>();
    const off = new Set(current);
    if (off.has(headKey(head))) off.delete(headKey(head));
    else off.add(headKey(head));
    if (off.size === 0) {
      this.ablation = null;
      return;
    }
    const heads = [...off].map((k) => {
      const [layer, h] = k.split('.').map(Number);
      return { layer, head: h };
    });
    const step = run.step;
    this.ablation = { run: i, step, off, result: null, error: '' };
    const outcome = await run.ablate(heads);
    if (this.ablation?.off !== off) return; // toggled again meanwhile
    this.ablation = {
      run: i,
      step,
      off,
      result: outcome.ok ? outcome.ablation : null,
      error: outcome.ok ? '' : outcome.error.message,
    };
  }

  /** Head switches for run i: on the latest probe of a run that is not training. */
  #switches(i: number): HeadSwitches | undefined {
    if (this.custom || this.scrub !== null || !this.#runs[i]?.info || this.#runs[i].status === 'running')
      return undefined;
    return { off: this.#ablationOf(i) ? this.ablation!.off : new Set(), toggle: (h) => void this.#toggleHead(i, h) };
  }

  #ablationSummary(i: number) {
    const a = this.#ablationOf(i);
    if (a) return ablationSummary(a, this.ablation!.step);
    return this.ablation?.run === i && this.ablation.error
      ? html`<p class="error" role="alert">${this.ablation.error}</p>`
      : nothing;
  }

  /** The training step of the model whose probe run i shows (your input's, the ablation's, the scrubbed or latest). */
  #probeStep(i: number): number {
    const run = this.#runs[i];
    if (this.custom) return this.custom.step;
    if (this.#ablationOf(i)) return this.ablation!.step;
    if (this.scrub === null) return run?.step ?? 0;
    const at = run?.timeline.filter((t) => t.step <= this.scrub!).at(-1) ?? run?.timeline[0];
    return at?.step ?? 0;
  }

  /** The probes' heads, each run's; then how to read them and the box for your own input. */
  #probes() {
    const custom = this.custom;
    const shown = custom
      ? custom.probes
      : this.#runs.map(
          (run, i) => this.#ablationOf(i)?.probe ?? (this.scrub === null ? run.probe : run.probeAt(this.scrub)),
        );
    if (shown.every((p) => !p)) return nothing;
    const what = custom ? `your input, completed by the model at step ${custom.step}` : 'a held-out example';
    const title = (i: number) =>
      this.#runs.length > 1 ? `Run ${this.#name(i)}: ${what}` : what[0].toUpperCase() + what.slice(1);
    const heads = Math.max(...shown.map((p) => p?.heads.length ?? 0));
    const layers = Math.max(...shown.map((p) => new Set(p?.heads.map((h) => h.layer)).size));
    return html`<div class="probe-runs">${shown.map((probe, i) =>
      probe
        ? html`<section data-run=${NAMES[i]}>
        ${probeView(probe, title(i), { switches: this.#switches(i), step: this.#probeStep(i), all: this.allHeads })}${this.#ablationSummary(i)}</section>`
        : nothing,
    )}</div>
      ${
        heads > layers
          ? html`<button class="fold" data-action="all-heads" aria-pressed=${String(this.allHeads)}
        @click=${() => {
          this.allHeads = !this.allHeads;
        }}>${this.allHeads ? 'Show only the heads that matter' : `Show all ${heads} heads${shown.length > 1 ? ' of each run' : ''}`}</button>`
          : nothing
      }
      ${probeIntro()}
      ${probeBox({
        example: this.#runs[0]?.probe ?? null,
        characters: this.#characters(),
        ready: !!this.#runs[0]?.info,
        custom: this.custom,
        error: this.customError,
        note: this.customNote,
        onSubmit: this.#complete,
        onBack: () => {
          this.custom = null;
        },
      })}`;
  }

  /** Whether a control shows: 'all' shows everything; a list names settings, 'buttons' and 'checkpoints'. */
  #shows(name: string): boolean {
    if (this.controls === 'all') return true;
    return this.controls
      .split(',')
      .map((c) => c.trim())
      .includes(name);
  }

  override render() {
    const shown = shownTrainSettings(this.state).filter((s) => this.#shows(s.name));
    const task = TASKS.find((t) => t.name === this.state.task);
    const status = this.#status();
    const a = this.#runs[0];
    const ready = this.#runs.length > 0 && this.#runs.every((r) => r.info) && Object.keys(this.errors).length === 0;
    // The timeline (not while training) scrubs the recorded steps; the curves mark the step it shows, the heads below show it.
    const steps = [...new Set(this.#runs.flatMap((r) => r.timeline.map((t) => t.step)))].sort((x, y) => x - y);
    const scrubbing = status !== 'running' && steps.length >= 2;
    const cursor = scrubbing ? steps[timelineIndex(steps, this.scrub)] : null;
    // Comparing, the summary says where each run got to: only a run that failed (diverged) keeps its own line.
    const comparing = this.#runs.length > 1;
    const messages = this.#runs
      .map((r, i) =>
        r.message && (!comparing || r.status === 'diverged')
          ? `${this.#name(i) ? `${this.#name(i)}: ` : ''}${r.message}`
          : '',
      )
      .filter(Boolean);
    return html`<div class="layout ${shown.length ? '' : 'bare'}" @input=${this.#onSetting} @change=${this.#onSetting}>
      ${
        shown.length
          ? settingsDrawer(trainSettings(shown, this.state, this.errors, a?.info), {
              title: 'Training settings',
              open: this.drawerOpen,
              summary: shown.length > 3 ? trainSummary(this.state) : '',
              problems: shown.filter((s) => this.errors[s.name]).map((s) => s.label),
              onToggle: () => {
                this.drawerOpen = !this.drawerOpen;
              },
            })
          : nothing
      }
      <main>
        ${this.#linkProblems.length ? html`<p class="error">Ignored in the link: ${this.#linkProblems.join('; ')}</p>` : nothing}
        ${
          this.checkpoints.length && this.#shows('checkpoints')
            ? html`<div class="checkpoints" role="group" aria-label="Trained models">Trained models:
          ${this.checkpoints.map(
            (c) => html`<button data-checkpoint=${c.id} aria-pressed=${String(a?.checkpoint === c.id)}
            @click=${() => this.#openCheckpoint(c.settings)}>${c.title}</button>`,
          )}</div>`
            : nothing
        }
        ${task ? html`<p class="task" data-testid="task-info"><strong>${task.format}</strong>. Vocabulary: ${vocabularyText(task.vocabulary, a?.info?.vocabulary)}. Solved by: ${task.pattern}.</p>` : nothing}
        ${
          this.#shows('buttons')
            ? trainButtons({
                status,
                ready,
                checkpoint: !!a?.checkpoint,
                step: a?.step ?? 0,
                runs: this.#runs.length,
                errors: Object.keys(this.errors).length > 0,
                explore: this.syncHash,
                start: this.#start,
                pause: this.#pause,
                stepOnce: this.#stepOnce,
                reset: this.#reset,
                save: this.#saveWeights,
                load: this.#loadWeights,
                openExplore: this.#explore,
                exportCurves: (format) => exportCurves(this.#runs, NAMES, this.state, format),
                exportPlots: (format) => exportPlots(this.#runs, NAMES, this.state, format, cursor),
              })
            : nothing
        }
        <div class="progress" aria-live="polite" data-status=${status} data-step=${a?.step ?? 0}>${
          ready || a?.info
            ? this.#runs.map(
                (run, i) =>
                  html`<div data-run=${NAMES[i]}>${progressLine(run, this.#name(i), this.state.steps as number)}</div>`,
              )
            : 'preparing…'
        }</div>
        ${messages.length ? html`<p class=${this.#runs.some((r) => r.status === 'diverged') ? 'run-error' : 'task'} role="status">${messages.join(' ')}</p>` : nothing}
        ${this.runError ? html`<p class="run-error" role="alert">${this.runError}</p>` : nothing}
        ${this.#runs.length > 1 && a?.info ? comparisonSummary(this.#runs, (i) => this.#name(i), this.state.stopAt as number) : nothing}
        ${a?.info ? trainPlots(this.#runs, NAMES, this.state.steps as number, cursor) : nothing}
        ${
          scrubbing
            ? timeline(
                this.#runs.map((r) => r.timeline.at(-1)?.step ?? 0),
                steps,
                this.scrub,
                (step) => {
                  this.scrub = step;
                },
              )
            : nothing
        }
        ${this.#probes()}
      </main>
    </div>`;
  }
}
customElements.define('ap-train', TrainView);
