/** Which compiled engine is running: with 128-bit wasm SIMD or without. */
export type Build = 'simd' | 'scalar';

/** Kind of attention the playground model runs. */
export type Mode = 'encoder' | 'decoder' | 'cross';

/** How the model's weights are made. */
export type Preset = 'random' | 'identity' | 'positional';

/**
 * One multi-head attention call, in PyTorch `nn.MultiheadAttention` conventions
 * (batch_first). Sizes: B = `batch`, Sq = `querySeq`, Sk = `keySeq`, E = `embedDim`,
 * H = `heads`, d_k = E / H.
 */
export interface MultiHeadAttentionInput {
  /** (B, Sq, E) row-major. */
  query: Float32Array;
  /** (B, Sk, E); defaults to `query` (self-attention). */
  key?: Float32Array;
  /** (B, Sk, E); defaults to `key`. */
  value?: Float32Array;
  batch: number;
  querySeq: number;
  /** Defaults to `querySeq`. */
  keySeq?: number;
  embedDim: number;
  heads: number;
  /** (3E, E): the Q rows, then K, then V, as `in_proj_weight`. y = x W^T + b. Not with `weights`. */
  inProjWeight?: Float32Array;
  /** (3E), as `in_proj_bias`. Not with `weights`. */
  inProjBias?: Float32Array;
  /** (E, E), as `out_proj.weight`. Not with `weights`. */
  outProjWeight?: Float32Array;
  /** (E), as `out_proj.bias`. Not with `weights`. */
  outProjBias?: Float32Array;
  /** Weights given once by `engine.prepareWeights()`, instead of the four arrays above. */
  weights?: PreparedWeights;
  /** (B, Sk), 1 = ignore that key (padding), as `key_padding_mask`. */
  keyPaddingMask?: Uint8Array;
  /** Block keys j > i (decoder self-attention). Default false. */
  causal?: boolean;
  /** (Sq, Sk), 1 = block that (query, key) pair. */
  attnMask?: Uint8Array;
  /** Divide scores by sqrt(d_k). Default true. */
  scale?: boolean;
}

/** The four weight arrays of one attention layer, nn.MultiheadAttention layout (E = embedDim). */
export interface AttentionWeights {
  embedDim: number;
  inProjWeight: Float32Array;   // (3E, E)
  inProjBias: Float32Array;     // (3E)
  outProjWeight: Float32Array;  // (E, E)
  outProjBias: Float32Array;    // (E)
}

/**
 * Weights copied into the engine once and packed for its fast kernels, for many
 * `multiHeadAttention` calls. Later changes to the original arrays are not seen.
 * Call `dispose()` when done (they are also freed when garbage-collected).
 */
export interface PreparedWeights {
  readonly embedDim: number;
  readonly disposed: boolean;
  dispose(): void;
}

export interface MultiHeadAttentionResult {
  /** (B, Sq, E). */
  output: Float32Array;
  /** (B, H, Sq, Sk), per head (not averaged). Blocked entries are exactly 0; a row whose keys are all blocked is all 0. */
  weights: Float32Array;
  shapes: { output: [number, number, number]; weights: [number, number, number, number] };
}

/** Settings of the playground model. Every field has a default (see {@link DEFAULT_CONFIG}). */
export interface ModelConfig {
  /** Width of the residual stream, E. 1..1024. */
  dModel: number;
  /** Number of heads, H; must divide dModel. 1..64. */
  heads: number;
  /** Layers per stack. 1..12. */
  layers: number;
  /** Feed-forward width; 0 = 4 * dModel. */
  ffnDim: number;
  /** Seed for weights and token embeddings (an unsigned 32-bit integer). */
  seed: number;
  preset: Preset;
  /** Divide scores by sqrt(d_k). */
  scale: boolean;
  /** Residual connections around each sub-layer. */
  residual: boolean;
  /** Add sinusoidal positional encoding. */
  positional: boolean;
  activation: 'relu' | 'gelu';
  /** Post-LN (the paper) or pre-LN. */
  norm: 'post' | 'pre';
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
  /** Layer index, or -1 for stages before the layers (embeddings, positions, padding mask). */
  layer: number;
  /** `<stack>.<block>.<stage>`, e.g. `encoder.self_attn.weights`. */
  name: string;
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
