import type { Mode, ModelConfig, Preset } from './types.js';

/** The model settings used where a field is not given. */
export const DEFAULT_CONFIG: Readonly<ModelConfig> = Object.freeze({
  dModel: 64,
  heads: 4,
  layers: 2,
  ffnDim: 0,
  seed: 1,
  preset: 'random',
  scale: true,
  residual: true,
  positional: true,
  activation: 'relu',
  norm: 'post',
});

/** Limits the engine enforces; exceeding one is an {@link AttentionError}. */
export const LIMITS = Object.freeze({
  dModel: { min: 1, max: 1024 },
  heads: { min: 1, max: 64 },
  layers: { min: 1, max: 12 },
  ffnDim: { min: 0, max: 4096 },
  seed: { min: 0, max: 0xffffffff },
  /** Texts per batch. */
  texts: 16,
  /** Tokens per text. */
  tokensPerText: 128,
  /** UTF-8 bytes per text. */
  bytesPerText: 8192,
  /** Working memory one call may need, in bytes. */
  workingMemoryBytes: 256 * 1024 * 1024,
});

export const MODES: readonly Mode[] = ['encoder', 'decoder', 'cross'];
export const PRESETS: readonly Preset[] = ['random', 'identity', 'positional'];
export const ACTIVATIONS: readonly ModelConfig['activation'][] = ['relu', 'gelu'];
export const NORMS: readonly ModelConfig['norm'][] = ['post', 'pre'];
