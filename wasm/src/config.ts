// Defaults, limits and choices of the playground model and of ModelSpec, all read
// from the engine's declaration (schema.generated.ts): nothing is restated here.
import { ENGINE, defaultsOf, type SchemaInfo, type SettingInfo } from './schema.js';
import type { Mode, ModelConfig, ModelSpec, Preset } from './types.js';

/** The playground's settings (including `mode`) as the engine declares them. */
export const PLAYGROUND_SCHEMA: SchemaInfo = ENGINE.playground;
/** ModelSpec's settings as the engine declares them. */
export const MODEL_SPEC_SCHEMA: SchemaInfo = ENGINE.modelSpec;
/** createTrainer's `optimizer`, its own settings (batchSize, seed, evalSize) and `task`, as the engine declares them. */
export const OPTIMIZER_SCHEMA: SchemaInfo = ENGINE.optimizer;
export const TRAINER_SCHEMA: SchemaInfo = ENGINE.trainer;
export const TASK_SCHEMA: SchemaInfo = ENGINE.task;
/** The model settings of `run()`'s `config`: the playground's, less `mode` (its own argument). */
export const CONFIG_SCHEMA: SchemaInfo = {
  settings: PLAYGROUND_SCHEMA.settings.filter((s) => s.name !== 'mode'),
  rules: PLAYGROUND_SCHEMA.rules,
};

function setting(schema: SchemaInfo, name: string): SettingInfo {
  return schema.settings.find((s) => s.name === name)!;
}
const range = (name: string) => {
  const s = setting(PLAYGROUND_SCHEMA, name);
  return Object.freeze({ min: s.min!, max: s.max! });
};

/** The model settings used where a field is not given. */
export const DEFAULT_CONFIG: Readonly<ModelConfig> = Object.freeze(defaultsOf<ModelConfig>(CONFIG_SCHEMA));
/** The ModelSpec fields used where `createModel` is given a partial spec. */
export const DEFAULT_SPEC: Readonly<ModelSpec> = Object.freeze(defaultsOf<ModelSpec>(MODEL_SPEC_SCHEMA));

/** Limits the engine enforces; exceeding one is an {@link AttentionError}. */
export const LIMITS = Object.freeze({
  dModel: range('dModel'),
  heads: range('heads'),
  layers: range('layers'),
  ffnDim: range('ffnDim'),
  seed: range('seed'),
  /** Texts per batch. */
  texts: ENGINE.limits.texts,
  /** Tokens per text. */
  tokensPerText: ENGINE.limits.tokensPerText,
  /** UTF-8 bytes per text. */
  bytesPerText: ENGINE.limits.bytesPerText,
  /** Working memory one call may need, in bytes. */
  workingMemoryBytes: ENGINE.limits.workingMemoryBytes,
  /** The most a generation's KV cache may hold (prompt + maxNewTokens positions), in bytes. */
  kvCacheBytes: ENGINE.limits.kvCacheBytes,
});

export const MODES = setting(PLAYGROUND_SCHEMA, 'mode').choices as readonly Mode[];
export const PRESETS = setting(PLAYGROUND_SCHEMA, 'preset').choices as readonly Preset[];
export const ACTIVATIONS = setting(PLAYGROUND_SCHEMA, 'activation').choices as readonly ModelConfig['activation'][];
export const NORMS = setting(PLAYGROUND_SCHEMA, 'norm').choices as readonly ModelConfig['norm'][];
