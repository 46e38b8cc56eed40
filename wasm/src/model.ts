// Model handles: a transformer of a ModelSpec with named parameters, living in the
// engine until dispose() (or garbage collection) frees it.
import { AttentionError, fromEngine } from './errors.js';
import { checkGenerateOptions, Generation, type RawGenerationClass } from './generation.js';
import { readTrace, type RawTrace } from './trace.js';
import type { ForwardInput, ForwardResult, GenerateOptions, ModelSpec, ParameterInfo, WeightBytes } from './types.js';
import { checkForwardInput, type CheckedForwardInput } from './validate.js';

type RawError = { error?: { message: string; code: string; field: string } };

/** The raw Embind model (private: only this file and engine.ts talk to it). */
export interface RawModel {
  error(): RawError | undefined;
  specJson(): string;
  parametersJson(): string;
  parameter(name: string): Float32Array | null;
  loadWeights(bytes: Uint8Array): RawError | undefined;
  saveWeights(): Uint8Array;
  weightBytes(): WeightBytes;
  forward(
    input: CheckedForwardInput,
  ): RawError & Partial<RawTrace> & { hidden?: Float32Array; logits?: Float32Array | null };
  delete(): void;
}

// Frees models that were garbage-collected without dispose().
const finalizer = new FinalizationRegistry<RawModel>((raw) => raw.delete());

/**
 * A transformer with named parameters (see `engine.createModel`). Its parameter names
 * are the PyTorch state_dict keys; weights move in and out as .safetensors bytes.
 * Call `dispose()` when done.
 */
export class Model {
  /** The full spec, defaults filled in. */
  readonly spec: Readonly<ModelSpec>;
  #raw: RawModel | null;
  readonly #generationClass: RawGenerationClass;

  /** @internal Use `engine.createModel()`. */
  constructor(raw: RawModel, generationClass: RawGenerationClass) {
    this.#raw = raw;
    this.#generationClass = generationClass;
    this.spec = Object.freeze(JSON.parse(raw.specJson()) as ModelSpec);
    finalizer.register(this, raw, this);
  }

  get disposed(): boolean {
    return this.#raw === null;
  }

  /** @internal The engine's handle, for trainers. */
  raw(): RawModel {
    return this.#live();
  }

  #live(): RawModel {
    if (!this.#raw) throw new AttentionError('this model was disposed', { code: 'disposed', field: 'model' });
    return this.#raw;
  }

  /** Every parameter, name and shape, in the fixed order (PyTorch's state_dict order). */
  parameters(): ParameterInfo[] {
    return JSON.parse(this.#live().parametersJson()) as ParameterInfo[];
  }

  /** A copy of one parameter's values (row-major). */
  parameter(name: string): Float32Array {
    if (typeof name !== 'string')
      throw new AttentionError(`parameter name must be a string`, { field: 'name', value: name });
    const values = this.#live().parameter(name);
    if (!values) throw new AttentionError(`this model has no parameter '${name}'`, { field: 'name', value: name });
    return values;
  }

  /**
   * Replaces every parameter with the tensors of a .safetensors file (F32, F16 or BF16),
   * all or nothing: the file must hold exactly this model's names and shapes. Any
   * problem throws an AttentionError naming the tensor, and the model stays as it was.
   */
  loadWeights(bytes: Uint8Array | ArrayBuffer): void {
    const raw = this.#live();
    const data = bytes instanceof ArrayBuffer ? new Uint8Array(bytes) : bytes;
    if (!(data instanceof Uint8Array))
      throw new AttentionError('loadWeights takes the bytes of a .safetensors file (Uint8Array or ArrayBuffer)', {
        field: 'bytes',
      });
    const result = raw.loadWeights(data);
    if (result?.error) throw fromEngine(result.error);
  }

  /** Bytes of parameter values the model holds in the engine, in total and by storage ('f32', 'bf16', 'f16', 'q8_0'). */
  weightBytes(): WeightBytes {
    return this.#live().weightBytes();
  }

  /** The parameters as a .safetensors file (F32, state_dict order, metadata: format "pt" and the spec; 16- and 8-bit weights widened). */
  saveWeights(): Uint8Array {
    return this.#live().saveWeights();
  }

  /** Token ids in, hidden states (and logits, with a head) out; `record` chooses the stages to keep. */
  forward(input: ForwardInput): ForwardResult {
    const raw = this.#live();
    const checked = checkForwardInput(input, this.spec);
    const result = raw.forward(checked);
    if (result.error) throw fromEngine(result.error);
    return {
      hidden: result.hidden!,
      logits: result.logits ?? null,
      trace: checked.record ? { stages: readTrace(result as RawTrace).stages } : null,
    };
  }

  /**
   * Starts a generation from `ids` (a causal model with a head): the prompt runs once into
   * a KV cache, then each `step()` of the returned Generation adds one token at the cost of
   * one row. Bad settings throw an AttentionError naming the field. Dispose the generation
   * when done (it keeps the model's weights alive until then).
   */
  generate(options: GenerateOptions): Generation {
    const raw = this.#live();
    const decoder = options?.tokenizer ?? null;
    const { checked, stopStrings } = checkGenerateOptions(options, this.spec, decoder);
    const top = options.topCandidates ?? 10;
    if (typeof top !== 'number' || !Number.isInteger(top) || top < 0 || top > this.spec.vocabSize)
      throw new AttentionError(`topCandidates must be 0..${this.spec.vocabSize}`, {
        code: 'out_of_range',
        field: 'topCandidates',
        value: top,
      });
    return new Generation(new this.#generationClass(raw, checked), decoder, stopStrings, top);
  }

  /** Frees the model's memory in the engine; using it afterwards throws. */
  dispose(): void {
    if (!this.#raw) return;
    finalizer.unregister(this);
    this.#raw.delete();
    this.#raw = null;
  }
}
