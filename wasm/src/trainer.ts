// Trainer handles: a model, AdamW and a task (or the caller's batches), living in the
// engine until dispose().
import { ENGINE } from './schema.js';
import { AttentionError, fromEngine } from './errors.js';
import { Model, type RawModel } from './model.js';
import type { EvaluateOptions, Evaluation, HeadRef, StepReport, TaskInfo, TrainingBatch } from './types.js';
import { checkEvaluateOptions, checkTrainingBatch, type CheckedTrainingBatch } from './validate.js';

type RawError = { error?: { message: string; code: string; field: string } };

/** The raw Embind trainer (private: only this file and engine.ts talk to it). */
export interface RawTrainer {
  error(): RawError | undefined;
  step(n: number): RawError & Partial<StepReport>;
  stepBatch(batch: CheckedTrainingBatch): RawError & Partial<StepReport>;
  evaluate(ablate: HeadRef[]): RawError & Partial<Evaluation>;
  lossAndGradients(
    batch: CheckedTrainingBatch,
  ): RawError & { loss?: number; gradients?: { name: string; values: Float32Array }[] };
  example(seed: number): { ids: number[]; targets: number[] } | null;
  tokenTexts(): string[] | null;
  snapshot(): number;
  restore(index: number): void;
  releaseSnapshot(index: number): void;
  steps(): number;
  delete(): void;
}

const finalizer = new FinalizationRegistry<RawTrainer>((raw) => raw.delete());

/** A saved state of a trainer (parameters, optimizer moments, batch generator). */
export interface TrainerSnapshot {
  readonly step: number;
}

class Snapshot implements TrainerSnapshot {
  constructor(
    readonly owner: Trainer,
    readonly index: number,
    readonly step: number,
  ) {}
}

/** What every task is: its vocabulary, format and the attention pattern that solves it. */
export const TASKS: readonly TaskInfo[] = ENGINE.tasks as unknown as TaskInfo[];

/**
 * Trains a model (see `engine.createTrainer`). Steps run synchronously; in a browser,
 * call them from a worker (the playground does) so the page never waits on them.
 */
export class Trainer {
  /** The model being trained: forward, saveWeights, parameters ... all work on it. */
  readonly model: Model;
  #raw: RawTrainer | null;
  readonly #ownsModel: boolean;

  /** @internal Use `engine.createTrainer()`. */
  constructor(raw: RawTrainer, model: Model, ownsModel: boolean) {
    this.#raw = raw;
    this.model = model;
    this.#ownsModel = ownsModel;
    finalizer.register(this, raw, this);
  }

  #live(): RawTrainer {
    if (!this.#raw) throw new AttentionError('this trainer was disposed', { code: 'disposed', field: 'trainer' });
    return this.#raw;
  }

  get disposed(): boolean {
    return this.#raw === null;
  }

  /**
   * `step(n = 1)`: n steps on batches drawn from the task; `step(batch)`: one step on
   * your batch. Returns the (last) step's report. A non-finite loss or gradient throws
   * an AttentionError with code 'diverged', and the model keeps its last parameters.
   */
  step(nOrBatch: number | TrainingBatch = 1): StepReport {
    const raw = this.#live();
    const started = performance.now();
    let result: RawError & Partial<StepReport>;
    if (typeof nOrBatch === 'number') {
      if (!Number.isInteger(nOrBatch) || nOrBatch < 1 || nOrBatch > 1e6)
        throw new AttentionError(`step(n) takes a whole number of steps from 1, got ${nOrBatch}`, {
          field: 'n',
          value: nOrBatch,
        });
      result = raw.step(nOrBatch);
    } else {
      result = raw.stepBatch(checkTrainingBatch(nOrBatch, this.model.spec));
    }
    if (result.error) throw fromEngine(result.error);
    return { ...(result as StepReport), ms: performance.now() - started };
  }

  /**
   * Loss and accuracies on the task's held-out set (your data's sequences, for `data`);
   * with `ablate`, with those heads switched off (see `model.forward`). A head out of
   * range throws an AttentionError (field 'ablate.layer' or 'ablate.head') and changes nothing.
   */
  evaluate(options: EvaluateOptions = {}): Evaluation {
    const raw = this.#live();
    const result = raw.evaluate(checkEvaluateOptions(options, this.model.spec));
    if (result.error) throw fromEngine(result.error);
    return result as Evaluation;
  }

  /** The loss of a batch and every parameter's gradient; the parameters stay as they are. */
  lossAndGradients(batch: TrainingBatch): { loss: number; gradients: Map<string, Float32Array> } {
    const result = this.#live().lossAndGradients(checkTrainingBatch(batch, this.model.spec));
    if (result.error) throw fromEngine(result.error);
    return { loss: result.loss!, gradients: new Map(result.gradients!.map((g) => [g.name, g.values])) };
  }

  /** One held-out example of the task ({ ids, targets }), drawn from the seed; null without a task. */
  example(seed = 0): { ids: Int32Array; targets: Int32Array } | null {
    const e = this.#live().example(seed);
    return e && { ids: Int32Array.from(e.ids), targets: Int32Array.from(e.targets) };
  }

  /** The task's tokens as text, indexed by id (for display; your data's ids as numbers); null without a task or data. */
  vocabulary(): string[] | null {
    return this.#live().tokenTexts();
  }

  /** Steps taken so far. */
  get steps(): number {
    return this.#live().steps();
  }

  snapshot(): TrainerSnapshot {
    const raw = this.#live();
    return new Snapshot(this, raw.snapshot(), raw.steps());
  }

  restore(snapshot: TrainerSnapshot): void {
    const raw = this.#live();
    if (!(snapshot instanceof Snapshot) || snapshot.owner !== this)
      throw new AttentionError('restore() takes a snapshot of this trainer', { field: 'snapshot' });
    raw.restore(snapshot.index);
  }

  /** Frees the trainer (and the model, when the trainer made it from a spec). */
  dispose(): void {
    if (!this.#raw) return;
    finalizer.unregister(this);
    this.#raw.delete();
    this.#raw = null;
    if (this.#ownsModel) this.model.dispose();
  }
}

export type { RawModel };
