// What every entry point (index.ts, node.ts, inline.ts) exports besides loadAttention.
export { AttentionEngine } from './engine.js';
export { findStage } from './trace.js';
export { Model } from './model.js';
export { HEAD_SCORE_KINDS } from './analysis.js';
export { PATCH_METHODS, PATCH_OVER } from './patching.js';
export { Generation } from './generation.js';
export { PretrainedModel, type LoadPretrainedOptions, type Q8Activations, type WeightsMode } from './pretrained.js';
export type { CheckpointFiles, CheckpointFile, LoadProgress } from './checkpoint-files.js';
export type {
  Tokenizer,
  TokenizerKind,
  Encoding,
  EncodeOptions,
  DecodeOptions,
  SpecialTokenIds,
  ChatTurn,
  ChatTemplateOptions,
} from './tokenizers.js';
export { createHubTokenizer, HubTokenizer } from './hub-tokenizer/index.js';
export { Trainer, TASKS, type TrainerSnapshot } from './trainer.js';
export {
  ENGINE,
  ERROR_CODES,
  checkValue,
  ruleProblems,
  type ErrorCode,
  type StageKind,
  type MaskKind,
  type Family,
  type FamilyTokenizer,
  type SettingsOf,
  type SettingValue,
  type SchemaInfo,
  type SettingInfo,
  type RuleInfo,
  type SettingProblem,
} from './schema.js';
export { AttentionError, type ErrorDetails } from './errors.js';
export {
  DEFAULT_CONFIG,
  DEFAULT_SPEC,
  LIMITS,
  CONFIG_SCHEMA,
  MODEL_SPEC_SCHEMA,
  PLAYGROUND_SCHEMA,
  OPTIMIZER_SCHEMA,
  TRAINER_SCHEMA,
  TASK_SCHEMA,
} from './config.js';
export { supportsRelaxedSimd, supportsSimd, supportsThreads } from './build-choice.js';
export type { LoadOptions } from './loader.js';
export type * from './types.js';
