// One training run as the page sees it: a worker of its own (so two runs being compared
// train on two cores), the curves and probe snapshots its progress events brought, and
// the controls (create, start, pause, step, weights). Owned by <ap-train>, which redraws
// when onChange is called.
import type { CreateTrainerOptions } from 'attention-playground';
import type { RunLimits } from '../settings/train-settings.js';
import type { Checkpoint } from '../model/checkpoint.js';
import * as Comlink from 'comlink';
import type { TrainingRunner } from './training-api.js';
import { RUN_BUTTON, type CurvePoint, type HeadRef, type Probe } from '../model/training-data.js';
import type { ErrorInfo, Progress, RunInfo, RunStatus } from './training.js';

/** The probe's heatmaps are most of the drawing: a few times a second is enough to watch heads form. */
const PROBE_INTERVAL_MS = 400;
/** Probe snapshots kept for the timeline (older ones are thinned evenly beyond this). */
const TIMELINE_MAX = 240;

let startRunner: (() => TrainingRunner) | null = null;

/** Where runs train (a worker each on the site; the page's thread in the one-file element): set once by the entry module. */
export function setTrainingRunner(factory: () => TrainingRunner): void {
  startRunner = factory;
}

export class TrainRun {
  info: RunInfo | null = null;
  status: RunStatus | 'starting' = 'starting';
  message = '';
  step = 0;
  /** Smoothed steps per second. */
  rate = 0;
  trainingMs = 0;
  train: CurvePoint[] = [];
  heldOut: CurvePoint[] = [];
  /** The probe shown now (updated at most every PROBE_INTERVAL_MS while running). */
  probe: Probe | null = null;
  /** Probe snapshots by step, for the timeline. */
  timeline: { step: number; probe: Probe }[] = [];
  /** The shipped checkpoint shown (its curves and timeline, its weights in the worker), or null for a run trained here. */
  checkpoint: string | null = null;
  #worker: TrainingRunner | null = startRunner ? startRunner() : null;
  #generation = 0; // bumps with every create(): late events of an older run are dropped
  #probeShownAt = 0;
  /** The settings of the latest create(), to start a shown checkpoint's settings over. */
  #created: { options: CreateTrainerOptions; limits: RunLimits } | null = null;
  readonly #onChange: () => void;

  constructor(onChange: () => void) {
    this.#onChange = onChange;
  }

  #api() {
    if (!this.#worker)
      throw new Error(startRunner ? 'this run was disposed' : 'no training runner: call setTrainingRunner() first');
    return this.#worker.api;
  }

  /** Starts over with these settings; resolves with the settings' problem, or null. */
  async create(options: CreateTrainerOptions, limits: RunLimits): Promise<ErrorInfo | null> {
    this.clear();
    this.#created = { options, limits };
    const generation = this.#generation;
    const created = await this.#api().create(options, limits);
    if (generation !== this.#generation) return null;
    if (!created.ok) {
      this.#onChange();
      return created.error;
    }
    this.info = created.info;
    this.#apply(created.progress, generation);
    return null;
  }

  /**
   * Shows a trained checkpoint as a finished run: a model of these settings with its
   * weights (so the probe box and saving work), its curves and its timeline. Training it
   * again is a new run (create()).
   */
  async showCheckpoint(
    checkpoint: Checkpoint,
    options: CreateTrainerOptions,
    limits: RunLimits,
  ): Promise<ErrorInfo | null> {
    const error = await this.create(options, limits);
    if (error || !this.info) return error;
    const generation = this.#generation;
    const loaded = await this.#api().loadWeights(checkpoint.weights);
    if (generation !== this.#generation) return null;
    if (!loaded.ok) return loaded.error;
    const { record } = checkpoint;
    Object.assign(this, {
      checkpoint: record.id,
      train: [...record.train],
      heldOut: [...record.heldOut],
      step: record.step,
      status: 'done',
      message:
        `${record.title}: a model trained by this page's own trainer and shipped with it. ${record.message} ` +
        `${record.description} Press “${RUN_BUTTON.train}” to watch it learn, or scrub the timeline.`,
      timeline: checkpoint.timeline.map((t, i, all) =>
        i === all.length - 1 ? { step: t.step, probe: loaded.progress.probe } : t,
      ),
      probe: loaded.progress.probe,
    });
    this.#onChange();
    return null;
  }

  /** Forgets the run (e.g. the settings became invalid). */
  clear(): void {
    this.#generation += 1;
    Object.assign(this, {
      info: null,
      status: 'starting',
      message: '',
      step: 0,
      rate: 0,
      trainingMs: 0,
      train: [],
      heldOut: [],
      probe: null,
      timeline: [],
      checkpoint: null,
    });
  }

  async start(): Promise<void> {
    if (!this.info) return;
    const generation = this.#generation;
    this.status = 'running';
    const last = await this.#api().run(Comlink.proxy((p: Progress) => this.#apply(p, generation)));
    this.#apply(last, generation);
  }

  pause(): void {
    void this.#worker?.api.pause();
  }

  async stepOnce(): Promise<void> {
    const generation = this.#generation;
    this.#apply(await this.#api().step(), generation);
  }

  setLimits(limits: RunLimits): void {
    if (this.checkpoint) return; // a finished checkpoint: more steps or another target is a new run
    void this.#worker?.api.setLimits(limits);
    if (this.status === 'done') this.status = 'paused';
  }

  saveWeights(): Promise<Uint8Array> {
    return this.#api().saveWeights();
  }

  async loadWeights(bytes: Uint8Array): Promise<ErrorInfo | null> {
    if (this.checkpoint && this.#created) {
      // your weights replace the checkpoint's: a run of its own
      const error = await this.create(this.#created.options, this.#created.limits);
      if (error) return error;
    }
    const generation = this.#generation;
    const result = await this.#api().loadWeights(bytes);
    if (!result.ok) return result.error;
    this.#apply(result.progress, generation);
    return null;
  }

  /** The held-out set and the probe with these heads switched off (see TrainingSession.ablate). */
  ablate(heads: HeadRef[]) {
    return this.#api().ablate(heads);
  }

  /** Your own input, completed by the model (see TrainingSession.complete). */
  complete(ids: number[]) {
    return this.#api().complete(ids);
  }

  dispose(): void {
    this.#generation += 1;
    this.#worker?.terminate();
    this.#worker = null;
  }

  /** Whether the run has ended (its limits reached, or diverged): nothing more to start or step. */
  get finished(): boolean {
    return this.status === 'done' || this.status === 'diverged';
  }

  /** The latest held-out evaluation. */
  get lastHeldOut(): CurvePoint | undefined {
    return this.heldOut.at(-1);
  }

  /** The first held-out evaluation at or above a sequence accuracy, if any. */
  reached(target: number): CurvePoint | undefined {
    return this.heldOut.find((p) => p.sequenceAccuracy >= target);
  }

  /** The timeline's snapshot nearest to a step (at or before it). */
  probeAt(step: number): Probe | null {
    let found: Probe | null = null;
    for (const entry of this.timeline) if (entry.step <= step) found = entry.probe;
    return found ?? this.timeline[0]?.probe ?? null;
  }

  #apply(progress: Progress, generation: number): void {
    if (generation !== this.#generation) return;
    this.train.push(...progress.train);
    this.heldOut.push(...progress.heldOut);
    this.trainingMs = progress.trainingMs;
    this.step = progress.step;
    this.status = progress.status;
    this.message = progress.message;
    if (progress.stepsPerSecond > 0)
      this.rate = this.rate ? 0.7 * this.rate + 0.3 * progress.stepsPerSecond : progress.stepsPerSecond;
    const last = this.timeline.at(-1);
    if (last && last.step === progress.step) last.probe = progress.probe;
    else this.timeline.push({ step: progress.step, probe: progress.probe });
    if (this.timeline.length > TIMELINE_MAX)
      this.timeline = this.timeline.filter((_, i, all) => i % 2 === 0 || i === all.length - 1);
    const now = performance.now();
    if (progress.status !== 'running' || now - this.#probeShownAt >= PROBE_INTERVAL_MS) {
      this.probe = progress.probe;
      this.#probeShownAt = now;
    }
    this.#onChange();
  }
}
