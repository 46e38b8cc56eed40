// A training run, wherever it runs (the Train view's worker; Node in tests): a trainer
// on a task, stepped in slices of wall time so that a pause or any other message gets
// through between slices, with one progress event per slice at a rate a page can draw
// (every SLICE_MS): the new points of the training and held-out curves, and the
// attention of every head on a probe example.
import type {
  AttentionEngine,
  AttentionError,
  CreateTrainerOptions,
  Evaluation,
  StepReport,
  Trainer,
} from 'attention-playground';
import type { RunLimits } from '../settings/train-settings.js';
import { headSlice } from '../model/trace-model.js';
import type { Ablation, CurvePoint, HeadRef, Probe, ProbeHead } from '../model/training-data.js';
import { fixed } from '../model/words.js';

/** Wall time of training between two progress events. */
export const SLICE_MS = 150;

export type RunStatus = 'ready' | 'running' | 'paused' | 'done' | 'diverged';

export interface Progress {
  status: RunStatus;
  /** Why the run stopped (done, diverged), for people. */
  message: string;
  step: number;
  lr: number;
  /** Steps per second over the last slice (0 when no step ran). */
  stepsPerSecond: number;
  /** Wall time spent training so far. */
  trainingMs: number;
  /** The training batches' points since the last event, one per step. */
  train: CurvePoint[];
  /** Held-out evaluations since the last event. */
  heldOut: CurvePoint[];
  probe: Probe;
}

export interface RunInfo {
  parameters: number;
  seqLen: number;
  vocabulary: string[];
  spec: Record<string, unknown>;
}

export type ErrorInfo = { message: string; code: string; field: string };
export type Created = { ok: true; info: RunInfo; progress: Progress } | { ok: false; error: ErrorInfo };

const PROBE_SEED = 12345;

function errorInfo(error: unknown): ErrorInfo {
  const e = error as Partial<AttentionError>;
  return { message: e.message ?? String(error), code: e.code ?? 'internal', field: e.field ?? '' };
}

function point(r: StepReport | Evaluation, step: number): CurvePoint {
  return { step, loss: r.loss, accuracy: r.accuracy, sequenceAccuracy: r.sequenceAccuracy };
}

/** Index of the largest value of a logits row. */
function argmax(row: Float32Array): number {
  let best = 0;
  for (let j = 1; j < row.length; j++) if (row[j] > row[best]) best = j;
  return best;
}

/** Yields to the event loop (a message may be waiting), without setTimeout's clamping. */
function yieldToEvents(): Promise<void> {
  return new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });
}

export class TrainingSession {
  #engine: AttentionEngine;
  #sliceMs: number;
  #trainer: Trainer | null = null;
  #vocabulary: string[] = [];
  #limits: RunLimits = { steps: 1, stopAt: 0, evalEvery: 1 };
  #status: RunStatus = 'ready';
  #message = '';
  #lr = 0;
  #trainingMs = 0;
  #train: CurvePoint[] = [];
  #heldOut: CurvePoint[] = [];
  /** The latest held-out evaluation (null: none of the current weights yet). */
  #heldOutLast: CurvePoint | null = null;
  #pauseRequested = false;
  #generation = 0;

  /** sliceMs: training between progress events (shorter on a page's own thread, so no task blocks input for long). */
  constructor(engine: AttentionEngine, sliceMs = SLICE_MS) {
    this.#engine = engine;
    this.#sliceMs = sliceMs;
  }

  /** A new run (the previous one is freed). Bad settings come back as an error, not a throw. */
  create(options: CreateTrainerOptions, limits: RunLimits): Created {
    this.dispose();
    try {
      this.#trainer = this.#engine.createTrainer(options);
    } catch (error) {
      return { ok: false, error: errorInfo(error) };
    }
    this.#vocabulary = this.#trainer.vocabulary() ?? [];
    this.#limits = limits;
    this.#status = 'ready';
    this.#message = '';
    this.#trainingMs = 0;
    this.#heldOutLast = null;
    this.#evaluate(); // the untrained model's point at step 0
    const info: RunInfo = {
      parameters: this.#trainer.model.parameters().reduce((n, p) => n + p.shape.reduce((a, b) => a * b, 1), 0),
      seqLen: this.#trainer.model.spec.maxSeq,
      vocabulary: this.#vocabulary,
      spec: { ...this.#trainer.model.spec },
    };
    return { ok: true, info, progress: this.#progress(0, 0) };
  }

  /** Later limits (more steps, another target) apply to the current run. */
  setLimits(limits: RunLimits): void {
    this.#limits = limits;
    if (this.#status === 'done' && this.#trainer && !this.#reachedLimit()) this.#status = 'paused';
  }

  /**
   * Trains until the limits are reached, the run diverges or pause() is called; calls
   * onProgress once per slice. Resolves with the last progress.
   */
  async run(onProgress: (progress: Progress) => void): Promise<Progress> {
    const trainer = this.#live();
    if (this.#status === 'done' || this.#status === 'diverged' || this.#status === 'running')
      return this.#progress(0, 0);
    const generation = ++this.#generation;
    this.#pauseRequested = false;
    this.#status = 'running';
    while (this.#status === 'running') {
      const started = performance.now();
      let steps = 0;
      while (performance.now() - started < this.#sliceMs && this.#status === 'running') {
        this.#stepOnce(trainer);
        steps += 1;
      }
      const ms = performance.now() - started;
      this.#trainingMs += ms;
      const progress = this.#progress(steps, ms);
      onProgress(progress);
      await yieldToEvents(); // pause(), setLimits() or a new run may be waiting
      if (generation !== this.#generation) return progress; // replaced or disposed meanwhile
      if (this.#pauseRequested && this.#status === 'running') this.#status = 'paused';
    }
    return this.#progress(0, 0);
  }

  /** Stops a running run after its current slice. */
  pause(): void {
    this.#pauseRequested = true;
  }

  /** One step (when not running), with its progress. */
  step(): Progress {
    const trainer = this.#live();
    if (this.#status === 'running' || this.#status === 'diverged') return this.#progress(0, 0);
    const started = performance.now();
    this.#status = 'paused';
    this.#stepOnce(trainer);
    const ms = performance.now() - started;
    this.#trainingMs += ms;
    return this.#progress(1, ms);
  }

  /**
   * Up to `steps` steps (fewer when the limits are reached first) with one progress at
   * the end: a run cut at given steps, not at wall-time slices, so that snapshots
   * (the shipped checkpoints' timelines) are the same on every machine.
   */
  advance(steps: number): Progress {
    const trainer = this.#live();
    let done = 0;
    if (this.#status === 'ready') this.#status = 'paused';
    while (done < steps && this.#status === 'paused') {
      this.#stepOnce(trainer);
      done += 1;
    }
    return this.#progress(done, 0);
  }

  /**
   * Switches heads off (each one's context zeroed before the heads merge) and measures
   * the held-out set and the probe that way, next to all heads on: which heads the task
   * needs. The model itself is not changed.
   */
  ablate(heads: HeadRef[]): { ok: true; ablation: Ablation } | { ok: false; error: ErrorInfo } {
    const trainer = this.#live();
    try {
      const baseline = point(trainer.evaluate(), trainer.steps);
      const ablated = point(trainer.evaluate({ ablate: heads }), trainer.steps);
      const example = trainer.example(PROBE_SEED)!;
      const probe = this.#probeOf(trainer, example.ids, example.targets, heads);
      return { ok: true, ablation: { step: trainer.steps, heads, baseline, ablated, probe } };
    } catch (error) {
      return { ok: false, error: errorInfo(error) };
    }
  }

  /** The weights as a .safetensors file. */
  saveWeights(): Uint8Array {
    return this.#live().model.saveWeights();
  }

  /** Replaces the weights (a file saved from a model of the same settings); the probe shows them. */
  loadWeights(bytes: Uint8Array): { ok: true; progress: Progress } | { ok: false; error: ErrorInfo } {
    try {
      this.#live().model.loadWeights(bytes);
    } catch (error) {
      return { ok: false, error: errorInfo(error) };
    }
    this.#heldOutLast = null; // new weights: evaluate again at this step
    this.#evaluate();
    return { ok: true, progress: this.#progress(0, 0) };
  }

  dispose(): void {
    this.#generation += 1;
    this.#trainer?.dispose();
    this.#trainer = null;
    this.#train = [];
    this.#heldOut = [];
  }

  #live(): Trainer {
    if (!this.#trainer) throw new Error('no training run: create() one first');
    return this.#trainer;
  }

  #reachedLimit(): boolean {
    const trainer = this.#live();
    const last = this.#heldOutLast;
    return (
      trainer.steps >= this.#limits.steps ||
      (this.#limits.stopAt > 0 && last !== null && last.sequenceAccuracy >= this.#limits.stopAt)
    );
  }

  #stepOnce(trainer: Trainer): void {
    let report: StepReport;
    try {
      report = trainer.step();
    } catch (error) {
      this.#status = 'diverged';
      this.#message = `${errorInfo(error).message} (step ${trainer.steps + 1}); the model keeps its last finite weights.`;
      return;
    }
    this.#lr = report.lr;
    this.#train.push(point(report, report.step));
    if (report.step % this.#limits.evalEvery === 0 || report.step >= this.#limits.steps) this.#evaluate();
    if (this.#reachedLimit()) {
      this.#evaluate();
      const last = this.#heldOutLast!;
      const reached = this.#limits.stopAt > 0 && last.sequenceAccuracy >= this.#limits.stopAt;
      this.#status = 'done';
      this.#message = reached
        ? `Reached ${fixed(100 * last.sequenceAccuracy, 1)}% held-out sequence accuracy at step ${report.step}.`
        : `Ran ${report.step} steps: held-out sequence accuracy ${fixed(100 * last.sequenceAccuracy, 1)}%.`;
    }
  }

  #evaluate(): void {
    const trainer = this.#live();
    if (this.#heldOutLast?.step === trainer.steps) return;
    const p = point(trainer.evaluate(), trainer.steps);
    this.#heldOut.push(p);
    this.#heldOutLast = p;
  }

  #progress(steps: number, ms: number): Progress {
    const trainer = this.#live();
    const progress: Progress = {
      status: this.#status,
      message: this.#message,
      step: trainer.steps,
      lr: this.#lr,
      stepsPerSecond: ms > 0 ? (1000 * steps) / ms : 0,
      trainingMs: this.#trainingMs,
      train: this.#train,
      heldOut: this.#heldOut,
      probe: this.#probe(trainer),
    };
    this.#train = [];
    this.#heldOut = [];
    return progress;
  }

  /** Every head's attention and the predictions on one fixed held-out example. */
  #probe(trainer: Trainer): Probe {
    const example = trainer.example(PROBE_SEED)!;
    return this.#probeOf(trainer, example.ids, example.targets);
  }

  /**
   * The model on your own input (ids of the task's vocabulary): completed greedily, one
   * most-likely token at a time, to the task's sequence length, then probed like the
   * held-out example. Bad input comes back as an error naming it.
   */
  complete(ids: number[]): { ok: true; probe: Probe } | { ok: false; error: ErrorInfo } {
    const trainer = this.#live();
    const { maxSeq, vocabSize } = trainer.model.spec;
    if (ids.length === 0 || ids.length > maxSeq)
      return {
        ok: false,
        error: { message: `type 1 to ${maxSeq} tokens, got ${ids.length}`, code: 'out_of_range', field: 'input' },
      };
    const bad = ids.find((id) => !Number.isInteger(id) || id < 0 || id >= vocabSize);
    if (bad !== undefined)
      return {
        ok: false,
        error: { message: `token id ${bad} is not in the vocabulary`, code: 'out_of_range', field: 'input' },
      };
    const out = ids.slice();
    while (out.length < maxSeq) {
      const { logits } = trainer.model.forward({ ids: Int32Array.from(out), batch: 1, seq: out.length });
      out.push(argmax(logits!.subarray((out.length - 1) * vocabSize, out.length * vocabSize)));
    }
    const probe = this.#probeOf(trainer, Int32Array.from(out), null);
    return { ok: true, probe: { ...probe, typed: ids.length } };
  }

  /** Predictions and every head's attention on one sequence; targets give the expected tokens. */
  #probeOf(trainer: Trainer, ids: Int32Array, targets: Int32Array | null, ablate: HeadRef[] = []): Probe {
    const seq = ids.length;
    const result = trainer.model.forward({
      ids,
      batch: 1,
      seq,
      record: { stages: ['*.self_attn.weights'] },
      ...(ablate.length ? { ablate } : {}),
    });
    const vocab = this.#vocabulary;
    const text = (id: number) => vocab[id] ?? String(id);
    const v = trainer.model.spec.vocabSize; // (S, V) logits
    const predicted: string[] = [];
    const confidence: number[] = [];
    for (let i = 0; i < seq; i++) {
      const row = result.logits!.subarray(i * v, (i + 1) * v);
      const best = argmax(row);
      let sum = 0;
      for (let j = 0; j < v; j++) sum += Math.exp(row[j] - row[best]);
      predicted.push(text(best));
      confidence.push(1 / sum);
    }
    const heads: ProbeHead[] = [];
    for (const stage of result.trace!.stages)
      for (let head = 0; head < stage.shape[1]; head++)
        // a copy: a view would post the whole trace buffer per head
        heads.push({ layer: stage.layer, head, weights: headSlice(stage, 0, head).values.slice() });
    return {
      tokens: Array.from(ids, text),
      seq,
      predicted,
      confidence,
      heads,
      expected: targets ? Array.from(targets, (t) => (t < 0 ? null : text(t))) : Array.from(ids, () => null),
    };
  }
}
