import { DEFAULT_SPEC } from './config.js';
import { AttentionError, fromEngine } from './errors.js';
import type { RawGenerationClass } from './generation.js';
import { Model, type RawModel } from './model.js';
import { type LoadPretrainedOptions, PretrainedModel, type RawPretrainedModule, loadPretrained } from './pretrained.js';
import { Trainer, type RawTrainer } from './trainer.js';
import { ENGINE } from './schema.js';
import { readTrace, type RawTrace } from './trace.js';
import type {
  AttentionWeights,
  Build,
  CreateModelOptions,
  FastKernels,
  CreateTrainerOptions,
  Int8Dot,
  ModelSpec,
  MultiHeadAttentionInput,
  MultiHeadAttentionResult,
  PreparedWeights,
  RunInput,
  StageInfo,
  TaskOptions,
  TaskShape,
  Trace,
} from './types.js';
import {
  checkAttentionWeights,
  checkInteger,
  checkMultiHeadInput,
  checkRunInput,
  checkSpec,
  checkTrainerOptions,
  type CheckedMultiHeadInput,
  type CheckedWeights,
} from './validate.js';

type RawError = { error?: { message: string; code: string; field: string } };
type RawAttention = RawError & { output?: Float32Array; weights?: Float32Array | null };

/** The raw Embind surface of attention-*.mjs (private: only the facade talks to it). */
export interface RawModule extends RawPretrainedModule {
  _describe(): string;
  _describeTask(task: string): RawError & Partial<TaskShape>;
  _multiHeadAttention(input: CheckedMultiHeadInput): RawAttention;
  _heapInUse(): number;
  _heapPeak(): number;
  _resetHeapPeak(): void;
  _fastKernels(): FastKernels;
  /** Caps the int8 GEMV's dot (kernels.int8Dot); returns the one that then runs. */
  _limitInt8Dot(most: Int8Dot): Int8Dot;
  _setThreads(threads: number): number;
  /** The threaded build's pool of pthread workers. */
  PThread?: { terminateAllThreads(): void };
  wasmMemory?: WebAssembly.Memory;
  _PreparedAttention: new (weights: CheckedWeights) => {
    error(): RawError | undefined;
    attend(input: CheckedMultiHeadInput): RawAttention;
    delete(): void;
  };
  _PlaygroundRunner: new () => { run(texts: string[], source: string[], config: string): RawError & Partial<RawTrace> };
  _Model: new (spec: string, init: string, seed: number) => RawModel;
  _Trainer: new (model: RawModel, options: string, data: unknown) => RawTrainer;
  _Generation: RawGenerationClass;
  HEAP8: Int8Array;
}

type RawPrepared = InstanceType<RawModule['_PreparedAttention']>;

// The core names arrays and options as PyTorch does; the API as this package does.
const API_NAMES: Record<string, string> = {
  in_proj_weight: 'inProjWeight',
  in_proj_bias: 'inProjBias',
  out_proj_weight: 'outProjWeight',
  out_proj_bias: 'outProjBias',
  q_proj_weight: 'qProjWeight',
  k_proj_weight: 'kProjWeight',
  v_proj_weight: 'vProjWeight',
  attn_mask: 'attnMask',
  embed_dim: 'embedDim',
};
const apiField = (field: string) => API_NAMES[field] ?? field;
function apiError(raw: { message: string; code: string; field: string }): AttentionError {
  const message = raw.message.replace(/\b[a-z]+(?:_[a-z]+)+\b/g, (name) => API_NAMES[name] ?? name);
  return fromEngine({ ...raw, message }, apiField);
}

class Prepared implements PreparedWeights {
  readonly embedDim: number;
  readonly kdim: number;
  readonly vdim: number;
  readonly engine: AttentionEngine;
  #raw: RawPrepared | null;
  readonly #release: (prepared: Prepared) => void;

  constructor(
    engine: AttentionEngine,
    raw: RawPrepared,
    weights: CheckedWeights,
    release: (prepared: Prepared) => void,
  ) {
    this.engine = engine;
    this.#raw = raw;
    this.embedDim = weights.embedDim;
    this.kdim = weights.kdim;
    this.vdim = weights.vdim;
    this.#release = release;
  }

  get disposed(): boolean {
    return this.#raw === null;
  }

  /** @internal */
  raw(): RawPrepared {
    if (!this.#raw)
      throw new AttentionError('these prepared weights were disposed', { code: 'disposed', field: 'weights' });
    return this.#raw;
  }

  dispose(): void {
    if (!this.#raw) return;
    this.#release(this);
    this.#raw.delete();
    this.#raw = null;
  }
}

/**
 * A loaded attention engine. Get one from `loadAttention()`. Results are plain
 * typed arrays the caller owns; models and prepared weights are handles to dispose.
 */
export class AttentionEngine {
  /** Which compiled build is running. */
  readonly build: Build;
  /** Threads the engine's parallel loops use (1 except in the 'simd-threads' build). */
  readonly threads: number;
  /**
   * The kernels it runs: in the SIMD builds, the GEMM with relaxed SIMD's fused multiply-add
   * where the runtime has relaxed SIMD (`relaxedSimd: true`), else mul + add. Read from
   * the loaded .wasm itself.
   */
  readonly kernels: FastKernels;
  /** Every stage a forward pass can record: name, scope, kind, axes, help (the engine's registry). */
  readonly stageRegistry: readonly StageInfo[] = ENGINE.stages as unknown as StageInfo[];
  readonly #module: RawModule;
  #runner: InstanceType<RawModule['_PlaygroundRunner']> | null = null;
  // Frees prepared weights that were garbage-collected without dispose().
  readonly #finalizer = new FinalizationRegistry<RawPrepared>((raw) => raw.delete());

  /** @internal Use `loadAttention()`. */
  constructor(module: RawModule, build: Build, threads: number) {
    this.#module = module;
    this.build = build;
    this.threads = module._setThreads(threads);
    this.kernels = Object.freeze(module._fastKernels());
  }

  /**
   * Stops the threaded build's worker threads (in Node they keep the process alive); the
   * engine should not be used afterwards. Nothing to do for the other builds.
   */
  dispose(): void {
    if (!this.#module.PThread) return;
    this.#module._setThreads(1); // joins the pool's threads: later calls (a mistake) run serially, never hang
    this.#module.PThread.terminateAllThreads();
  }

  /** What the engine itself declares (settings, rules, stages, error codes), as JSON; equals `ENGINE`. */
  describe(): unknown {
    return JSON.parse(this.#module._describe());
  }

  /**
   * Multi-head attention with explicit weights, in PyTorch `nn.MultiheadAttention`
   * conventions. Throws {@link AttentionError} naming the problem for any bad argument.
   */
  multiHeadAttention(input: MultiHeadAttentionInput): MultiHeadAttentionResult {
    let prepared: Prepared | null = null;
    const checked = checkMultiHeadInput(input, (weights) => {
      if (!(weights instanceof Prepared) || weights.engine !== this)
        throw new AttentionError("weights must come from this engine's prepareWeights()", { field: 'weights' });
      weights.raw(); // throws if disposed
      prepared = weights;
      return weights;
    });
    const raw = prepared ? (prepared as Prepared).raw().attend(checked) : this.#module._multiHeadAttention(checked);
    if (raw.error) throw apiError(raw.error);
    const { batch, querySeq, keySeq, embedDim, heads, needWeights, averageAttnWeights } = checked;
    return {
      output: raw.output!,
      weights: needWeights ? raw.weights! : null,
      shapes: {
        output: [batch, querySeq, embedDim],
        weights: !needWeights
          ? null
          : averageAttnWeights
            ? [batch, querySeq, keySeq]
            : [batch, heads, querySeq, keySeq],
      },
    };
  }

  /**
   * Copies one attention layer's weights into the engine once, for many
   * `multiHeadAttention({ ..., weights })` calls: each call then skips copying,
   * checking and packing them. Throws {@link AttentionError} for bad arrays.
   */
  prepareWeights(weights: AttentionWeights): PreparedWeights {
    const checked = checkAttentionWeights(weights);
    const raw = new this.#module._PreparedAttention(checked);
    const failure = raw.error();
    if (failure?.error) {
      raw.delete();
      throw apiError(failure.error);
    }
    const prepared = new Prepared(this, raw, checked, (p) => this.#finalizer.unregister(p));
    this.#finalizer.register(prepared, raw, prepared);
    return prepared;
  }

  /**
   * The playground model: tokenizes the texts, runs the layers and returns every
   * intermediate as a {@link Trace}. Throws {@link AttentionError} for bad input.
   */
  run(input: RunInput): Trace {
    const { texts, source, mode, config } = checkRunInput(input);
    this.#runner ??= new this.#module._PlaygroundRunner();
    const raw = this.#runner.run(texts, source, JSON.stringify({ ...config, mode }));
    if (raw.error) throw fromEngine(raw.error);
    return { mode, config, ...readTrace(raw as RawTrace) };
  }

  /**
   * A transformer of a {@link ModelSpec} (a partial spec is filled from `DEFAULT_SPEC`)
   * with named parameters, initialised as `options.init` says. Throws
   * {@link AttentionError} for a bad spec. Dispose of it when done.
   */
  createModel(spec: Partial<ModelSpec> = {}, options: CreateModelOptions = {}): Model {
    const full = checkSpec(spec);
    if (typeof options !== 'object' || options === null)
      throw new AttentionError('options must be an object', { field: 'options' });
    for (const key of Object.keys(options))
      if (key !== 'init' && key !== 'seed')
        throw new AttentionError(`unknown createModel option '${key}'`, { field: key });
    const init = options.init ?? 'random';
    if (init !== 'random' && init !== 'zeros')
      throw new AttentionError(`init must be 'random' or 'zeros', got ${String(init)}`, { field: 'init', value: init });
    const seed = options.seed === undefined ? 1 : checkInteger('seed', options.seed, 0, 0xffffffff);
    const raw = new this.#module._Model(JSON.stringify(full), init, seed);
    const failure = raw.error();
    if (failure?.error) {
      raw.delete();
      throw fromEngine(failure.error);
    }
    return new Model(raw, this.#module._Generation);
  }

  /**
   * A trainer: `model` (from createModel; it stays yours) or `spec` (a new model, freed
   * with the trainer), AdamW settings, and batches from a `task` or your `data` (or
   * neither: pass batches to step()). Throws {@link AttentionError} for bad settings.
   */
  createTrainer(options: CreateTrainerOptions): Trainer {
    const { json, data } = checkTrainerOptions(options);
    if (options.model !== undefined && options.spec !== undefined)
      throw new AttentionError('give model or spec, not both', { field: 'spec' });
    let model: Model;
    const owns = options.model === undefined;
    if (owns) {
      // A spec made for a task fits it unless told otherwise: vocabSize and maxSeq default to the task's.
      const spec = { ...(options.spec ?? {}) };
      if (options.task !== undefined && (spec.vocabSize === undefined || spec.maxSeq === undefined)) {
        const shape = this.describeTask(options.task);
        spec.vocabSize ??= shape.vocabSize;
        spec.maxSeq ??= shape.seqLen;
      }
      model = this.createModel(spec, options.init ?? {});
    } else {
      if (!(options.model instanceof Model))
        throw new AttentionError('model must come from createModel()', { field: 'model' });
      model = options.model;
      if (!(model.raw() instanceof (this.#module._Model as unknown as new () => object)))
        throw new AttentionError(
          'model was made by another engine (another loadAttention()); create it with this engine',
          { field: 'model' },
        );
    }
    const raw = new this.#module._Trainer(model.raw(), json, data ?? null);
    const failure = raw.error();
    if (failure?.error) {
      raw.delete();
      if (owns) model.dispose();
      throw fromEngine(failure.error);
    }
    return new Trainer(raw, model, owns);
  }

  /** A task's vocabulary (token texts by id) and sequence length, to size a model for it. Bad options throw. */
  /**
   * A GPT-2 or BERT checkpoint in the hub's layout: config.json, model.safetensors (F32,
   * F16 or BF16; or model.safetensors.index.json and its shards) and the tokenizer's
   * files, from `files` (a FileList, File[] or { name: bytes }) or downloaded from
   * `{baseUrl}/{repo}/resolve/main/{file}`. Anything missing, mismatched or broken
   * rejects with an AttentionError naming the file or tensor; nothing is kept then.
   */
  loadPretrained(options: LoadPretrainedOptions): Promise<PretrainedModel> {
    return loadPretrained(this.#module, options);
  }

  describeTask(task: TaskOptions): TaskShape {
    if (typeof task !== 'object' || task === null || Array.isArray(task))
      throw new AttentionError("describeTask takes task options, e.g. { name: 'sort', length: 8 }", {
        field: 'task',
        value: task,
      });
    const result = this.#module._describeTask(JSON.stringify(task));
    if (result.error) throw fromEngine(result.error);
    return result as TaskShape;
  }

  /** Bytes the engine's C++ code holds on the wasm heap right now; back to the same value after every call (no leaks). */
  heapBytesInUse(): number {
    return this.#module._heapInUse();
  }

  /** The most bytes heapBytesInUse() has been since the last resetHeapPeak() (e.g. a load's peak). */
  heapPeakBytes(): number {
    return this.#module._heapPeak();
  }

  /** Starts a new peak for heapPeakBytes() from what is in use now. */
  resetHeapPeak(): void {
    this.#module._resetHeapPeak();
  }

  /** Size of the wasm memory in bytes (it can grow, never shrink). */
  memoryBytes(): number {
    // Shared memory (the threaded build) never detaches on growth, so HEAP8 may be stale: ask the memory.
    return this.#module.wasmMemory?.buffer.byteLength ?? this.#module.HEAP8.length;
  }
}

export { DEFAULT_SPEC };
