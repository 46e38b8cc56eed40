// Model handles: a transformer of a ModelSpec with named parameters, living in the
// engine until dispose() (or garbage collection) frees it.
import { AttentionError, fromEngine } from './errors.js';
import { checkGenerateOptions, Generation, type RawGenerationClass } from './generation.js';
import { readTrace, type RawTrace } from './trace.js';
import {
  ablationRankingResult,
  checkAblationRankingOptions,
  checkHeadScoreOptions,
  checkLogitAttributionOptions,
  checkLogitLensOptions,
  checkRolloutOptions,
  type CheckedAblationRankingOptions,
  type CheckedHeadScoreOptions,
  type CheckedLogitAttributionOptions,
  type CheckedLogitLensOptions,
  type RawAblationRanking,
} from './analysis.js';
import type {
  AblationRankingOptions,
  AblationRankingResult,
  ForwardInput,
  ForwardResult,
  GenerateOptions,
  HeadScoreOptions,
  LogitAttributionOptions,
  LogitAttributionResult,
  LogitLensOptions,
  LogitLensResult,
  ModelSpec,
  PatchOptions,
  PatchResult,
  ParameterInfo,
  WeightBytes,
} from './types.js';
import { checkForwardInput, type CheckedForwardInput } from './validate.js';
import { checkPatchOptions, runPatching, type CheckedPatchOptions, type RawPatching } from './patching.js';

type RawError = { error?: { message: string; code: string; field: string } };
type RawForwardResult = RawError & Partial<RawTrace> & { hidden?: Float32Array; logits?: Float32Array | null };

/** The raw Embind model (private: only this file and engine.ts talk to it). */
export interface RawModel {
  error(): RawError | undefined;
  specJson(): string;
  parametersJson(): string;
  parameter(name: string): Float32Array | null;
  loadWeights(bytes: Uint8Array): RawError | undefined;
  saveWeights(): Uint8Array;
  weightBytes(): WeightBytes;
  forward(input: CheckedForwardInput): RawForwardResult;
  forwardAblated(input: CheckedForwardInput): RawForwardResult;
  ablationRanking(options: CheckedAblationRankingOptions): RawAblationRanking | RawError;
  headScores(options: CheckedHeadScoreOptions): Float32Array | RawError;
  logitLens(options: CheckedLogitLensOptions): LogitLensResult | RawError;
  logitAttribution(options: CheckedLogitAttributionOptions): LogitAttributionResult | RawError;
  attentionRollout(options: { ids: Int32Array }): Float32Array | RawError;
  startPatching(options: CheckedPatchOptions): RawPatching;
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

  /** The live model, in an engine that has `tool` (the element's light engine has neither generation nor the head tools). */
  #withTool(
    tool:
      | 'headScores'
      | 'logitLens'
      | 'logitAttribution'
      | 'attentionRollout'
      | 'startPatching'
      | 'forwardAblated'
      | 'ablationRanking'
      | 'generate',
  ): RawModel {
    const raw = this.#live();
    const present = tool === 'generate' ? this.#generationClass !== undefined : typeof raw[tool] === 'function';
    if (!present)
      throw new AttentionError(
        `this engine build has no ${tool} (the element's light engine): load the package's engine`,
        {
          code: 'invalid_argument',
          field: tool,
        },
      );
    return raw;
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
    // MLP and mean ablation run in the head tools' binding (not in the element's light engine).
    const result =
      checked.ablateMlps.length > 0 || checked.ablation === 'mean'
        ? this.#withTool('forwardAblated').forwardAblated(checked)
        : raw.forward(checked);
    if (result.error) throw fromEngine(result.error);
    return {
      hidden: result.hidden!,
      logits: result.logits ?? null,
      trace: checked.record ? { stages: readTrace(result as RawTrace).stages } : null,
    };
  }

  /**
   * Head detector scores, TransformerLens's head_detector.py with error_measure 'mul' (BOS and
   * the current token not excluded): on `batch` sequences of `length` random tokens
   * (SplitMix64(seed) % vocabSize) each followed by itself, the share of each self-attention
   * head's weights on the pattern of `kind`, averaged over the sequences. Returns a
   * Float32Array of shape (L, H), row-major: `scores[layer * heads + head]`, in 0..1.
   * Single stacks only (GPT-2, BERT, the playground's and hub models); see docs/heads.md.
   */
  headScores(options: HeadScoreOptions): Float32Array {
    const raw = this.#withTool('headScores');
    const result = raw.headScores(checkHeadScoreOptions(options, this.spec));
    if (!(result instanceof Float32Array)) throw fromEngine(result.error!);
    return result;
  }

  /**
   * The logit lens of one sequence: each layer's output (the residual stream) through the
   * model's final norm and unembedding, as if it were the last layer. Per layer and position
   * the `topK` likeliest next tokens with their probabilities, and the probability of the
   * model's final prediction layer by layer (shapes on {@link LogitLensResult}). Needs a
   * single stack with an output head (GPT-2, the playground's decoders, the hub's causal LMs,
   * BERT through its MLM head); a model without one throws (field 'model'). See docs/heads.md.
   */
  logitLens(options: LogitLensOptions): LogitLensResult {
    const raw = this.#withTool('logitLens');
    const result = raw.logitLens(checkLogitLensOptions(options, this.spec));
    if ('error' in result && result.error) throw fromEngine(result.error);
    return result as LogitLensResult;
  }

  /**
   * Direct logit attribution at one position: each head's, each MLP's and the embedding's
   * contribution to `token`'s logit (or to logit(token) - logit(against)), read through the
   * final norm with its scale frozen at the full run's value (TransformerLens's
   * apply_ln_to_stack). The parts sum to `logit` (shapes on {@link LogitAttributionResult}).
   * Pre-LN single stacks only (GPT-2, Llama, Qwen, Mistral, pre-LN playground models): a
   * post-LN (BERT) or sandwich-norm (Gemma 3) model throws (field 'model'). See docs/heads.md.
   */
  logitAttribution(options: LogitAttributionOptions): LogitAttributionResult {
    const raw = this.#withTool('logitAttribution');
    const result = raw.logitAttribution(checkLogitAttributionOptions(options, this.spec));
    if ('error' in result && result.error) throw fromEngine(result.error);
    return result as LogitAttributionResult;
  }

  /**
   * Attention rollout (Abnar and Zuidema) of one sequence: each layer's weights averaged over
   * heads, mixed with the residual as 0.5 I + 0.5 A, multiplied through the layers. Returns a
   * Float32Array (S, S), row-major: `rollout[query * S + source]`, each row summing to 1.
   * Single stacks only. See docs/heads.md.
   */
  attentionRollout(options: { ids: ArrayLike<number> }): Float32Array {
    const raw = this.#withTool('attentionRollout');
    const result = raw.attentionRollout(checkRolloutOptions(options, this.spec));
    if (!(result instanceof Float32Array)) throw fromEngine(result.error!);
    return result;
  }

  /**
   * Activation patching of two prompts of the same length: the share of the logit difference
   * logit[good] - logit[bad] at `position` (default the last) that each clean activation
   * restores in the corrupted run, (patched - corrupted) / (clean - corrupted), as a
   * Float32Array of shape [L, S] (`over: 'resid'`, the residual stream entering each layer at
   * each position) or [L, H] (`over: 'heads'`, each head's output). `method: 'exact'` reruns
   * the layers after each patch from the cached corrupted run; `'attribution'` is the
   * gradient estimate from one forward of each prompt and one backward. Runs in chunks with
   * `onProgress` between them; `signal` stops it (an AttentionError, code 'aborted'). Single
   * stacks with an output head (GPT-2, BERT through its MLM head, the hub's causal LMs, the
   * playground's models) and float32 weights: an encoder–decoder, a model without a head and
   * 16- or 8-bit weights reject. See docs/heads.md.
   */
  async patch(options: PatchOptions): Promise<PatchResult> {
    const raw = this.#withTool('startPatching');
    const { checked, onProgress, signal } = checkPatchOptions(options, this.spec);
    return runPatching(() => raw.startPatching(checked), checked, onProgress, signal);
  }

  /**
   * Which heads and MLPs the prediction at `position` depends on: each head and each MLP is
   * ablated alone ('zero', or 'mean' over the reference sequences `meanOver`, as in `forward`)
   * and the probability of `token` and the logit difference logit(token) - logit(against) (or
   * logit(token)) are read again. Returns the clean values, the changes per head (L, H) and per
   * MLP (L), and every part ranked by the size of its logit difference change (shapes on
   * {@link AblationRankingResult}). In a causal model the prediction is the next token; in BERT,
   * the token at `position`. Single stacks with an output head. See docs/heads.md.
   */
  ablationRanking(options: AblationRankingOptions): AblationRankingResult {
    const raw = this.#withTool('ablationRanking');
    const result = raw.ablationRanking(checkAblationRankingOptions(options, this.spec));
    if ('error' in result && result.error) throw fromEngine(result.error);
    return ablationRankingResult(result as RawAblationRanking, this.spec.heads);
  }

  /**
   * Starts a generation from `ids` (a causal model with a head): the prompt runs once into
   * a KV cache, then each `step()` of the returned Generation adds one token at the cost of
   * one row. Bad settings throw an AttentionError naming the field. Dispose the generation
   * when done (it keeps the model's weights alive until then).
   */
  generate(options: GenerateOptions): Generation {
    const raw = this.#withTool('generate');
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
