import type { ENGINE, MaskKind, SettingsOf, StageKind } from './schema.js';

/**
 * Which compiled engine is running: with 128-bit wasm SIMD or without, or with SIMD and
 * threads (for cross-origin isolated pages, and Node when asked for).
 */
export type Build = 'simd' | 'scalar' | 'simd-threads';

/** The kernels the engine's fast path runs, by their names in the C++ kernel registry. */
export interface FastKernels {
  gemm: string;
  softmax: string;
  geluTanh: string;
  /** Whether the GEMM uses relaxed SIMD's fused multiply-add (the SIMD builds' relaxed twin). */
  relaxedSimd: boolean;
  /**
   * The integer dot of Q8_0's int8-activations GEMV (`q8Activations: 'int8'`), {@link Int8Dot}:
   * the fastest the loaded .wasm and its runtime compute right, unless `loadAttention`'s `int8Dot`
   * caps it. Every one gives the same numbers.
   */
  int8Dot: Int8Dot;
}

/**
 * How Q8_0's int8-activations GEMV sums its blocks of integer products, fastest first:
 * 'unsigned', relaxed SIMD's integer dot with W's bytes taken as unsigned (one dot per 16 values;
 * only where the runtime computes that exactly, as Chromium does on x86 CPUs with AVX-VNNI);
 * 'split', relaxed SIMD's dot on the activations' positive and negative parts (two dots; every
 * runtime whose relaxed dot adds as specified); 'plain', 16-bit dots (no relaxed SIMD, or a
 * runtime that computes the relaxed dot wrong, as Node 20's baseline compiler does).
 */
export type Int8Dot = 'unsigned' | 'split' | 'plain';

/** Every playground setting (the model's and `mode`) as the engine declares them. */
export type PlaygroundSettings = SettingsOf<typeof ENGINE.playground.settings>;

/** Kind of attention the playground model runs. */
export type Mode = PlaygroundSettings['mode'];

/** How the playground model's weights are made. */
export type Preset = PlaygroundSettings['preset'];

/**
 * Settings of the playground model; every field has a default ({@link DEFAULT_CONFIG}).
 * Their ranges, help texts and rules are the engine's (`CONFIG_SCHEMA`).
 */
export type ModelConfig = Omit<PlaygroundSettings, 'mode'>;

/**
 * The architecture of a transformer (see the README, "Models with named parameters").
 * With residual and scale on it is exactly a PyTorch model whose state_dict keys are
 * the parameter names. Every field has a default ({@link DEFAULT_SPEC}).
 */
export type ModelSpec = SettingsOf<typeof ENGINE.modelSpec.settings>;

/**
 * One multi-head attention call, in PyTorch `nn.MultiheadAttention` conventions
 * (batch_first). Sizes: B = `batch`, Sq = `querySeq`, Sk = `keySeq`, E = `embedDim`,
 * H = `heads`, d_k = E / H.
 */
export interface MultiHeadAttentionInput {
  /** (B, Sq, E) row-major. */
  query: Float32Array;
  /** (B, Sk, kdim); defaults to `query` (self-attention). */
  key?: Float32Array;
  /** (B, Sk, vdim); defaults to `key`. */
  value?: Float32Array;
  batch: number;
  querySeq: number;
  /** Defaults to `querySeq`. */
  keySeq?: number;
  embedDim: number;
  heads: number;
  /** Features of `key`, as PyTorch's kdim. Default `embedDim`. */
  kdim?: number;
  /** Features of `value`, as PyTorch's vdim. Default `embedDim`. */
  vdim?: number;
  /** (3E, E): the Q rows, then K, then V, as `in_proj_weight`. y = x W^T + b. When kdim = vdim = E. */
  inProjWeight?: Float32Array;
  /** (E, E), as `q_proj_weight`: when kdim or vdim differ from E. */
  qProjWeight?: Float32Array;
  /** (E, kdim), as `k_proj_weight`: when kdim or vdim differ from E. */
  kProjWeight?: Float32Array;
  /** (E, vdim), as `v_proj_weight`: when kdim or vdim differ from E. */
  vProjWeight?: Float32Array;
  /** (3E), as `in_proj_bias`. Not with `bias: false`. */
  inProjBias?: Float32Array;
  /** (E, E), as `out_proj.weight`. */
  outProjWeight?: Float32Array;
  /** (E), as `out_proj.bias`. Not with `bias: false`. */
  outProjBias?: Float32Array;
  /** false: the layer has no biases (as `bias=False`). Default true. */
  bias?: boolean;
  /** Weights given once by `engine.prepareWeights()`, instead of the weight arrays above. */
  weights?: PreparedWeights;
  /** (B, Sk), 1 = ignore that key (padding), as `key_padding_mask`. */
  keyPaddingMask?: Uint8Array;
  /** Block keys j > i (decoder self-attention). Default false. */
  causal?: boolean;
  /**
   * (Sq, Sk) as `attn_mask`: a Uint8Array blocks where 1; a Float32Array is added to the
   * scaled scores (-Infinity blocks).
   */
  attnMask?: Uint8Array | Float32Array;
  /** Divide scores by sqrt(d_k). Default true. */
  scale?: boolean;
  /** false: skip copying the attention weights out (faster); `weights` is null. Default true. */
  needWeights?: boolean;
  /** true: weights averaged over heads, (B, Sq, Sk). Default false (per head). */
  averageAttnWeights?: boolean;
}

/** The weight arrays of one attention layer, nn.MultiheadAttention layout (E = embedDim). */
export interface AttentionWeights {
  embedDim: number;
  kdim?: number;
  vdim?: number;
  inProjWeight?: Float32Array; // (3E, E)
  qProjWeight?: Float32Array; // (E, E)     } when kdim or vdim
  kProjWeight?: Float32Array; // (E, kdim)  } differ from E
  vProjWeight?: Float32Array; // (E, vdim)  }
  inProjBias?: Float32Array; // (3E)
  outProjWeight: Float32Array; // (E, E)
  outProjBias?: Float32Array; // (E)
  bias?: boolean;
}

/**
 * Weights copied into the engine once and packed for its fast kernels, for many
 * `multiHeadAttention` calls. Later changes to the original arrays are not seen.
 * Call `dispose()` when done (they are also freed when garbage-collected).
 */
export interface PreparedWeights {
  readonly embedDim: number;
  readonly kdim: number;
  readonly vdim: number;
  readonly disposed: boolean;
  dispose(): void;
}

export interface MultiHeadAttentionResult {
  /** (B, Sq, E). */
  output: Float32Array;
  /**
   * (B, H, Sq, Sk) per head, or (B, Sq, Sk) with `averageAttnWeights`; null with
   * `needWeights: false`. Blocked entries are exactly 0; a row whose keys are all blocked is all 0.
   */
  weights: Float32Array | null;
  shapes: { output: [number, number, number]; weights: number[] | null };
}

export interface RunInput {
  /** One sentence per sequence of the batch; the batch is padded to the longest. */
  texts: string[];
  /** Default 'encoder'. */
  mode?: Mode;
  /** Cross mode: the encoder's input, one per text. */
  source?: string[];
  config?: Partial<ModelConfig>;
}

/** One named intermediate tensor of a forward pass. */
export interface Stage {
  /** Layer index, or -1 for stages outside the layers (embeddings, positions, padding mask, logits). */
  layer: number;
  /** `<stack>.<block>.<stage>`, e.g. `encoder.self_attn.weights` (names from the engine's `stageRegistry`). */
  name: string;
  /** What the numbers are, e.g. 'weights', 'scores', 'mask', 'norm'. */
  kind: StageKind;
  /** For masks: 'padding', 'causal', 'user', 'additive' or 'combined'. */
  mask?: MaskKind;
  /** Axis names, e.g. ['B', 'H', 'Sq', 'Sk']. */
  axes: string[];
  shape: number[];
  /** Row-major values. Masked scores hold -Infinity. The stages of one trace are views into one shared buffer. */
  data: Float32Array;
}

/** Everything a forward pass computed, in order. */
export interface Trace {
  mode: Mode;
  config: ModelConfig;
  /** Tokens per sequence, unpadded (the target side in cross mode). */
  tokens: string[][];
  /** Cross mode: the source tokens per sequence; otherwise empty. */
  sourceTokens: string[][];
  stages: Stage[];
}

/** An entry of the engine's stage registry. Full names: see {@link Stage.name}. */
export interface StageInfo {
  /** Relative to its scope: 'weights', 'mask.padding', 'norm1', 'logits' ... */
  name: string;
  /** 'stack' (`<stack>.name`, layer -1), 'layer' (`<stack>.name`), 'attention' (`<stack>.<block>.name`) or 'model' (`name`). */
  scope: 'model' | 'stack' | 'layer' | 'attention';
  kind: StageKind;
  mask?: MaskKind;
  axes: string[];
  help: string;
}

/** Which stages a forward pass keeps. */
export interface RecordOptions {
  /** Full stage names, '*' matching any run of characters: ['*.weights'], ['encoder.*']. Default: every stage. */
  stages?: string[];
  /** Layers whose stages to keep (stages outside layers are always kept). Default: every layer. */
  layers?: number[];
}

/** One attention head: head `head` (0 .. heads - 1) of the self-attention of layer `layer` (0 .. layers - 1). */
export interface HeadRef {
  layer: number;
  head: number;
}

/** What an ablated head or MLP writes: nothing ('zero') or its per-position mean over a reference batch ('mean'). */
export type AblationKind = 'zero' | 'mean';

/** The argument of `model.ablationRanking()`: one sequence, the prediction to explain, how to ablate. */
export interface AblationRankingOptions {
  /** Token ids (S). */
  ids: ArrayLike<number>;
  /** The position whose prediction is explained (0..S-1; default the last): the next token in a causal model, the token at that position in BERT. */
  position?: number;
  /** The token whose probability and logit are followed. */
  token: number;
  /** If given, the logit difference logit(token) - logit(against) is followed; else logit(token). */
  against?: number;
  /** 'zero' (default) or 'mean' (needs `meanOver`). */
  ablation?: AblationKind;
  /** The reference batch of mean ablation: sequences of exactly S tokens each (1..64 of them). */
  meanOver?: ArrayLike<number>[];
}

/** The effect of ablating one head or one MLP (alone) on the prediction. */
export interface AblationEffect {
  kind: 'head' | 'mlp';
  layer: number;
  /** The head (0..heads-1), or -1 for an MLP. */
  head: number;
  /** The token's probability with this part ablated, and its change from the clean run. */
  probability: number;
  probabilityChange: number;
  /** The logit difference (or the logit) with this part ablated, and its change. */
  logitDiff: number;
  logitDiffChange: number;
}

/** `model.ablationRanking()`: every head and MLP ablated one at a time (docs/heads.md). */
export interface AblationRankingResult {
  /** The clean run's probability of `token` at `position`. */
  probability: number;
  /** The clean run's logit(token) - logit(against), or logit(token) without `against`. */
  logitDiff: number;
  /** (L, H): each head's change of the probability / of the logit difference when ablated alone. */
  heads: { probabilityChange: Float32Array; logitDiffChange: Float32Array };
  /** (L): each MLP's changes likewise. */
  mlps: { probabilityChange: Float32Array; logitDiffChange: Float32Array };
  /** Every head and MLP, the largest |logitDiffChange| first (ties: heads before MLPs, lower layer, lower head). */
  ranked: AblationEffect[];
}

/** A detection pattern of `model.headScores()`: the previous token; earlier copies of the current token; the token right after an earlier copy. */
export type HeadScoreKind = 'previous' | 'duplicate' | 'induction';

/** The argument of `model.headScores()`. */
export interface HeadScoreOptions {
  kind: HeadScoreKind;
  /** SplitMix64 seed of the random tokens (0 .. 2^53 - 1; default 0). */
  seed?: number;
  /** Random tokens per half: each sequence is 2 length tokens (1 .. maxSeq / 2; default min(10, maxSeq / 2)). */
  length?: number;
  /** Sequences averaged (1 .. 64; default 4). */
  batch?: number;
}

/** The argument of `model.logitLens()`: one sequence. */
export interface LogitLensOptions {
  /** Token ids (S), each in 0..vocabSize-1. */
  ids: ArrayLike<number>;
  /** Tokens kept per layer and position (1..min(vocabSize, 100); default 5). */
  topK?: number;
}

/** Each layer's residual stream through the final norm and the unembedding (docs/heads.md). */
export interface LogitLensResult {
  layers: number;
  seq: number;
  topK: number;
  /** (L, S, K): the K likeliest next tokens after each layer, most likely first. */
  topIds: Int32Array;
  /** (L, S, K): their probabilities. */
  topProbs: Float32Array;
  /** (S): the model's final prediction at each position (the last layer's top token). */
  prediction: Int32Array;
  /** (L, S): the probability of that final prediction after each layer. */
  predictionProbs: Float32Array;
}

/** The argument of `model.logitAttribution()`: one sequence and the logit to explain. */
export interface LogitAttributionOptions {
  /** Token ids (S). */
  ids: ArrayLike<number>;
  /** The position whose next-token logit is explained (0..S-1; default the last). */
  position?: number;
  /** The token whose logit is explained. */
  token: number;
  /** If given, explain logit(token) - logit(against). */
  against?: number;
}

/** Each part's direct contribution to the logit (docs/heads.md); they sum to `logit`. */
export interface LogitAttributionResult {
  /** (L, H): each self-attention head's output. */
  heads: Float32Array;
  /** (L): each MLP's output (its bias included). */
  mlps: Float32Array;
  /** The stack's input (token and position embeddings). */
  embed: number;
  /** The attention output projections' biases, the final norm's bias and the output head's bias. */
  biases: number;
  /** The full run's logit (or logit difference): embed + heads + mlps + biases. */
  logit: number;
}

/** What `model.patch()` patches: the residual stream entering each layer at each position, or each head's output. */
export type PatchOver = 'resid' | 'heads';
/** How `model.patch()` measures: rerunning the model per patch, or the first-order (gradient) estimate. */
export type PatchMethod = 'exact' | 'attribution';

/** How far a `model.patch()` run is: `done` of `total` chunks (a chunk is one layer's batch of patched runs). */
export interface PatchProgress {
  done: number;
  total: number;
}

/** The argument of `model.patch()`: two prompts of the same length and the logit difference to recover (docs/heads.md). */
export interface PatchOptions {
  /** Token ids of the clean prompt (S), whose activations are patched in. */
  clean: ArrayLike<number>;
  /** Token ids of the corrupted prompt (S, the same length), into which they are patched. */
  corrupted: ArrayLike<number>;
  /** The position whose next-token logits are read (0..S-1; default the last). */
  position?: number;
  /** The two tokens `[good, bad]`; the metric is `logit[good] - logit[bad]` at `position`. */
  tokens: [number, number];
  /** 'resid' (default): the residual stream entering layer l at position p; 'heads': head h's output (its context before out_proj, every position) at layer l. */
  over?: PatchOver;
  /** 'exact' (default): rerun the layers after each patch; 'attribution': one forward of each prompt and one backward (gradient x activation difference). */
  method?: PatchMethod;
  /** Called after each chunk of work (exact: one per layer; attribution: one per pass). */
  onProgress?: (progress: PatchProgress) => void;
  /** Stops the run between chunks: the promise rejects with an AttentionError (code 'aborted'); the model is unchanged. */
  signal?: AbortSignal;
}

/** The share of the logit difference each patch recovers (docs/heads.md). */
export interface PatchResult {
  over: PatchOver;
  method: PatchMethod;
  /** [L, S] for 'resid', [L, H] for 'heads'. */
  shape: [number, number];
  /** shape, row-major: (patched - corrupted) / (clean - corrupted) of the logit difference; 1 = all recovered, 0 = none. */
  recovered: Float32Array;
  /** logit[good] - logit[bad] at `position` on the clean prompt. */
  cleanDiff: number;
  /** The same on the corrupted prompt. */
  corruptedDiff: number;
}

export interface ForwardInput {
  /** (B, S) token ids, 0 <= id < vocabSize. */
  ids: Int32Array;
  batch: number;
  seq: number;
  /** (B) real tokens per sequence; positions past them are padding. Default: all S. */
  lengths?: Int32Array | number[];
  /** (B, S) token types (BERT's segments A = 0, B = 1), 0 <= type < typeVocabSize; only for specs with typeVocabSize > 0. Default: all 0. */
  tokenTypes?: Int32Array;
  /** Encoder–decoder specs: the encoder's ids (B, sourceSeq), and their lengths. */
  sourceIds?: Int32Array;
  sourceSeq?: number;
  sourceLengths?: Int32Array | number[];
  /** Stages to keep in `trace`: true = every stage. Default: none (no trace). */
  record?: boolean | RecordOptions;
  /**
   * Heads to switch off (head ablation): each one's context, weights x V (B, Sq, d_k), is
   * zero before the heads are merged, so the output projection sees nothing of it; its
   * recorded weights stay as computed. Single stacks only (an encoder–decoder refuses it).
   * Repeats are allowed. Default: none.
   */
  ablate?: HeadRef[];
  /**
   * Layers whose MLP (the feed-forward sub-layer) is switched off: its output (B, S, E),
   * before any post-norm and the residual add, becomes zero or, with `ablation: 'mean'`,
   * its per-position mean over `meanOver`. Single stacks only. Default: none.
   */
  ablateMlps?: number[];
  /**
   * What an ablated head's context and an ablated MLP's output become: 'zero' (default) or
   * 'mean', the per-position mean over the reference batch `meanOver` (TransformerLens's
   * mean ablation: position s of every sequence gets the mean of position s).
   */
  ablation?: AblationKind;
  /**
   * The reference batch of mean ablation (only with `ablation: 'mean'`): one or more
   * sequences of token ids, each exactly `seq` long (at most 64 sequences).
   */
  meanOver?: ArrayLike<number>[];
  /**
   * Which logits to compute: 'all' (B, S, V), 'last' (B, 1, V) at each sequence's last
   * real position (a next-token prediction: GPT-2 small's output layer over 50257 tokens
   * is a third of its forward), or 'none'. Default 'all'.
   */
  logits?: 'all' | 'last' | 'none';
}

export interface ForwardResult {
  /** (B, S, E): the last stack's output, after its final norm. */
  hidden: Float32Array;
  /** (B, S, vocabSize) when the spec has a head ((B, 1, vocabSize) for logits 'last'), else null. */
  logits: Float32Array | null;
  /** The recorded stages (no tokens: ids have no text), or null when nothing was recorded. */
  trace: { stages: Stage[] } | null;
}

export interface ParameterInfo {
  /** The PyTorch state_dict key, e.g. 'layers.0.self_attn.in_proj_weight'. */
  name: string;
  shape: number[];
  /** How its values are held: 'f32', or for the matrices of a checkpoint loaded with weights 'auto' / 'q8_0', 'bf16', 'f16' or 'q8_0' (read-only). */
  storage: WeightStorage;
}

/** How a parameter's values are held in memory (docs/pretrained.md, "Weights in memory"). */
export type WeightStorage = 'f32' | 'bf16' | 'f16' | 'q8_0';

/** Bytes of parameter values a model holds, in total and by storage. */
export interface WeightBytes {
  total: number;
  f32: number;
  bf16: number;
  f16: number;
  q8_0: number;
}

export interface CreateModelOptions {
  /** 'random' (default): Xavier-uniform matrices, unit-variance embeddings, zero biases, LayerNorm (1, 0); 'zeros'. */
  init?: 'random' | 'zeros';
  /** Seed for 'random' (an unsigned 32-bit integer). Default 1. */
  seed?: number;
}

/** A training batch: ids with the targets each position should predict (every head trains). */
export interface TrainingBatch extends Omit<
  ForwardInput,
  'record' | 'ablate' | 'ablateMlps' | 'ablation' | 'meanOver'
> {
  /** (B, S) target ids; -100 = not scored (PyTorch's ignore_index). */
  targets: Int32Array;
}

export interface OptimizerOptions {
  /** Default 1e-3. */
  lr?: number;
  /** Default [0.9, 0.999]. */
  betas?: [number, number];
  /** Default 1e-8. */
  eps?: number;
  /** Decoupled weight decay. Default 0.01. */
  weightDecay?: number;
  /** Clip the global gradient norm to this; 0 = off (default). */
  clipNorm?: number;
  /** Steps of linear warm-up. Default 0. */
  warmup?: number;
  /** After warm-up: 'constant' (default) or 'cosine' (to 0 at totalSteps). */
  schedule?: 'constant' | 'cosine';
  totalSteps?: number;
}

export interface TaskOptions {
  name: (typeof ENGINE.tasks)[number]['name'];
  length?: number;
  symbols?: number;
  modulus?: number;
  text?: string;
  words?: boolean;
  /** Held-out examples' length (as `length` counts), e.g. twice it: length generalisation. 0 (default) = length. */
  evalLength?: number;
}

/** What a task's examples look like (`engine.describeTask`). */
export interface TaskShape {
  /** Token ids run 0 .. vocabSize - 1. */
  vocabSize: number;
  /** The longest example's tokens (the held-out ones when `evalLength` is longer): what maxSeq must cover. */
  seqLen: number;
  /** Each id's text, for display. */
  vocabulary: string[];
}

/** What a task is (see `TASKS`). */
export interface TaskInfo {
  name: string;
  vocabulary: string;
  format: string;
  pattern: string;
}

export interface CreateTrainerOptions {
  /**
   * A model from createModel (shared: it stays yours), or a spec (a new model is made, and freed with the trainer;
   * with a task, its vocabSize and maxSeq default to the task's).
   */
  model?: unknown;
  spec?: Partial<ModelSpec>;
  /** With `spec`: how the new model is initialised. */
  init?: CreateModelOptions;
  optimizer?: OptimizerOptions;
  /** Batches from a task ... */
  task?: TaskOptions;
  /** ... or from your data: `batch` sequences of `seq` ids with their targets. */
  data?: { ids: Int32Array; targets: Int32Array; batch: number; seq: number };
  /** Examples per step. Default 32. */
  batchSize?: number;
  /** Seeds the batches. Default 1. */
  seed?: number;
  /** Held-out examples for evaluate(). Default 256. */
  evalSize?: number;
}

export interface StepReport {
  /** Steps taken so far. */
  step: number;
  loss: number;
  /** Argmax accuracy over the scored positions of the batch. */
  accuracy: number;
  /** Sequences of the batch with every scored position right. */
  sequenceAccuracy: number;
  /** Global gradient norm before clipping. */
  gradNorm: number;
  lr: number;
  /** Wall time of the call. */
  ms: number;
}

export interface EvaluateOptions {
  /** Heads to switch off while evaluating, as in `model.forward`'s `ablate`. Default: none. */
  ablate?: HeadRef[];
}

export interface Evaluation {
  loss: number;
  accuracy: number;
  sequenceAccuracy: number;
  examples: number;
}

/** model.generate's options. Defaults: temperature 1, topK 0 (off), topP 1, minP 0, repetitionPenalty 1, seed 0. */
export interface GenerateOptions {
  /** The prompt's token ids (1 or more, fewer than the model's maxSeq). */
  ids: ArrayLike<number>;
  /** New tokens at most: 1..maxSeq - ids.length (default min(16, that)). */
  maxNewTokens?: number;
  /** >= 0; 0 = greedy (the argmax, after the repetition penalty). */
  temperature?: number;
  /** Keep the k highest logits (ties kept); 0 = off. */
  topK?: number;
  /** Above 0, at most 1: keep the most likely tokens whose mass reaches topP (1 = off). */
  topP?: number;
  /** Between 0 and 1: drop tokens less likely than minP x the most likely one (0 = off). */
  minP?: number;
  /** > 0: the logits of tokens already in the text, positive ones divided by it and negative ones multiplied (1 = off). */
  repetitionPenalty?: number;
  /** The sampler's seed: the same seed and settings give the same tokens. */
  seed?: number;
  /** End-of-sequence ids, and strings (decoded text, with a tokenizer) that end the generation once generated. */
  stop?: Array<number | string>;
  /** Candidates reported per step (default 10). */
  topCandidates?: number;
  /** Decodes pieces and stop strings (PretrainedModel.generate passes its tokenizer). */
  tokenizer?: { decode(ids: ArrayLike<number>): string };
}

/** One step of a Generation. */
export interface GenerationStep {
  /** The new token and where it went (0-based over prompt + generated). */
  token: number;
  position: number;
  /** Its text, when there is a tokenizer; else null. */
  piece: string | null;
  /** The most likely tokens of the distribution the token was drawn from (after the
   *  penalty, temperature and filters; for greedy the same at temperature 1), descending. */
  candidates: { token: number; probability: number; piece: string | null }[];
  /** That distribution's entropy, in nats. */
  entropy: number;
  /** attention[layer][head]: the new token's weights over positions 0..position (0 where not visible). */
  attention: Float32Array[][];
  /** The KV cache's bytes per layer after the step (H_kv heads; a window layer holds its window only). */
  cacheBytes: number[];
  /** The step's time in the engine, in milliseconds. */
  ms: number;
  /** True when this was the last step (an end-of-sequence id, a stop string, maxNewTokens). */
  done: boolean;
}
