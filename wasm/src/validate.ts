// Argument checks for the public API. Everything that reaches the wasm module has
// passed through here, so no call can hand Embind a wrong type or make the core
// allocate without bound. Each failure is an AttentionError naming the argument.
import { ACTIVATIONS, DEFAULT_CONFIG, LIMITS, MODES, NORMS, PRESETS } from './config.js';
import { AttentionError, describeValue } from './errors.js';
import type { AttentionWeights, Mode, ModelConfig, MultiHeadAttentionInput, RunInput } from './types.js';

/** What the binding's _multiHeadAttention receives: every field present and checked. */
export type CheckedMultiHeadInput = Required<Omit<MultiHeadAttentionInput, 'keyPaddingMask' | 'attnMask' | 'weights'>> & {
  keyPaddingMask: Uint8Array | null;
  attnMask: Uint8Array | null;
  /** A prepared-weights handle, or 0 when the four arrays are given. */
  weightsHandle: number;
};

/** Resolves a `weights` argument to its engine handle, or throws naming the problem. */
export type PreparedResolver = (weights: unknown) => { handle: number; embedDim: number };

export interface CheckedRunInput {
  texts: string[];
  source: string[];
  mode: Mode;
  config: ModelConfig;
}

function fail(message: string): never {
  throw new AttentionError(message);
}

export function checkInteger(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value))
    fail(`${name} must be a whole number, got ${describeValue(value)}`);
  if (value < min || value > max) fail(`${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

function checkBoolean(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') fail(`${name} must be true or false, got ${describeValue(value)}`);
  return value;
}

function checkChoice<T extends string>(name: string, value: unknown, choices: readonly T[]): T {
  if (typeof value !== 'string' || !choices.includes(value as T))
    fail(`${name} must be one of ${choices.map((c) => `'${c}'`).join(', ')}, got ${describeValue(value)}`);
  return value as T;
}

function checkArray<T extends Float32Array | Uint8Array>(
  name: string, value: unknown, type: { new (n: number): T; name: string }, length: number, shape: string,
): T {
  if (!(value instanceof type)) fail(`${name} must be a ${type.name}, got ${describeValue(value)}`);
  if (value.length !== length)
    fail(`${name} has ${value.length} elements, expected ${shape} = ${length}`);
  return value;  // NaN and Infinity inside are found by the core, which scans faster (see engine.ts)
}

function checkObject(name: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(`${name} must be an object, got ${describeValue(value)}`);
  return value as Record<string, unknown>;
}

const MHA_KEYS = new Set([
  'query', 'key', 'value', 'batch', 'querySeq', 'keySeq', 'embedDim', 'heads', 'inProjWeight', 'inProjBias',
  'outProjWeight', 'outProjBias', 'keyPaddingMask', 'causal', 'attnMask', 'scale', 'weights',
]);
const WEIGHT_KEYS = new Set(['embedDim', 'inProjWeight', 'inProjBias', 'outProjWeight', 'outProjBias']);

function checkWeightArrays(input: Partial<AttentionWeights>, e: number) {
  return {
    inProjWeight: checkArray('inProjWeight', input.inProjWeight, Float32Array, 3 * e * e, `(3E, E) = (${3 * e}, ${e})`),
    inProjBias: checkArray('inProjBias', input.inProjBias, Float32Array, 3 * e, `(3E) = (${3 * e})`),
    outProjWeight: checkArray('outProjWeight', input.outProjWeight, Float32Array, e * e, `(E, E) = (${e}, ${e})`),
    outProjBias: checkArray('outProjBias', input.outProjBias, Float32Array, e, `(E) = (${e})`),
  };
}

/** The argument of engine.prepareWeights(). */
export function checkAttentionWeights(raw: unknown): AttentionWeights {
  const input = checkObject('prepareWeights input', raw) as Partial<AttentionWeights>;
  rejectUnknownKeys('prepareWeights argument', input, WEIGHT_KEYS);
  const embedDim = checkInteger('embedDim', input.embedDim, 1, 8192);
  return { embedDim, ...checkWeightArrays(input, embedDim) };
}

function rejectUnknownKeys(what: string, input: Record<string, unknown>, known: Set<string>): void {
  for (const key of Object.keys(input)) if (!known.has(key)) fail(`unknown ${what} '${key}'`);
}

export function checkMultiHeadInput(raw: unknown, resolvePrepared: PreparedResolver): CheckedMultiHeadInput {
  const input = checkObject('multiHeadAttention input', raw) as Partial<MultiHeadAttentionInput>;
  rejectUnknownKeys('multiHeadAttention argument', input, MHA_KEYS);
  const batch = checkInteger('batch', input.batch, 1, 65536);
  const querySeq = checkInteger('querySeq', input.querySeq, 1, 65536);
  const embedDim = checkInteger('embedDim', input.embedDim, 1, 8192);
  const heads = checkInteger('heads', input.heads, 1, embedDim);
  if (embedDim % heads !== 0) fail(`heads (${heads}) must divide embedDim (${embedDim})`);
  if (input.key === undefined && input.keySeq !== undefined && input.keySeq !== querySeq)
    fail(`keySeq (${describeValue(input.keySeq)}) differs from querySeq (${querySeq}) but no key was given`);
  const keySeq = input.keySeq === undefined ? querySeq : checkInteger('keySeq', input.keySeq, 1, 65536);

  const [b, sq, sk, e, h] = [batch, querySeq, keySeq, embedDim, heads];
  const floats = 5 * b * h * sq * sk + 12 * b * (sq + sk) * e + 4 * e * e;
  if (floats * 4 > LIMITS.workingMemoryBytes)
    fail(`this call needs about ${Math.ceil((floats * 4) / 2 ** 20)} MiB of working memory; ` +
         `the limit is ${LIMITS.workingMemoryBytes / 2 ** 20} MiB (batch ${b}, querySeq ${sq}, keySeq ${sk}, embedDim ${e}, heads ${h})`);

  const query = checkArray('query', input.query, Float32Array, b * sq * e, `(B, Sq, E) = (${b}, ${sq}, ${e})`);
  const key = input.key === undefined ? query
    : checkArray('key', input.key, Float32Array, b * sk * e, `(B, Sk, E) = (${b}, ${sk}, ${e})`);
  const value = input.value === undefined ? key
    : checkArray('value', input.value, Float32Array, b * sk * e, `(B, Sk, E) = (${b}, ${sk}, ${e})`);
  let weights: ReturnType<typeof checkWeightArrays>;
  let weightsHandle = 0;
  if (input.weights !== undefined) {
    const given = ['inProjWeight', 'inProjBias', 'outProjWeight', 'outProjBias'].filter((k) => input[k as keyof typeof input] !== undefined);
    if (given.length) fail(`give either weights (prepared) or the weight arrays, not both (also given: ${given.join(', ')})`);
    const prepared = resolvePrepared(input.weights);
    if (prepared.embedDim !== e) fail(`weights were prepared for embedDim ${prepared.embedDim}, but embedDim is ${e}`);
    const none = new Float32Array(0);
    weights = { inProjWeight: none, inProjBias: none, outProjWeight: none, outProjBias: none };
    weightsHandle = prepared.handle;
  } else {
    weights = checkWeightArrays(input, e);
  }
  return {
    query, key, value, batch, querySeq, keySeq, embedDim, heads, ...weights, weightsHandle,
    keyPaddingMask: input.keyPaddingMask === undefined || input.keyPaddingMask === null ? null
      : checkArray('keyPaddingMask', input.keyPaddingMask, Uint8Array, b * sk, `(B, Sk) = (${b}, ${sk})`),
    attnMask: input.attnMask === undefined || input.attnMask === null ? null
      : checkArray('attnMask', input.attnMask, Uint8Array, sq * sk, `(Sq, Sk) = (${sq}, ${sk})`),
    causal: checkBoolean('causal', input.causal, false),
    scale: checkBoolean('scale', input.scale, true),
  };
}

// Lone UTF-16 surrogates cannot be encoded as UTF-8: replace them with U+FFFD.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function checkTexts(name: string, value: unknown): string[] {
  if (!Array.isArray(value)) fail(`${name} must be an array of strings, got ${describeValue(value)}`);
  if (value.length === 0) fail(`${name} is empty: give at least one sentence`);
  if (value.length > LIMITS.texts) fail(`${name} has ${value.length} sentences; the maximum batch is ${LIMITS.texts}`);
  return value.map((text, i) => {
    if (typeof text !== 'string') fail(`${name}[${i}] must be a string, got ${describeValue(text)}`);
    if (text.length > LIMITS.bytesPerText)  // UTF-16 units never outnumber UTF-8 bytes
      fail(`${name}[${i}] is ${text.length} characters long; the limit is ${LIMITS.bytesPerText} bytes of UTF-8`);
    return text.replace(LONE_SURROGATE, '\uFFFD');
  });
}

const CONFIG_KEYS = new Set(Object.keys(DEFAULT_CONFIG));
const RUN_KEYS = new Set(['texts', 'mode', 'source', 'config']);

export function checkConfig(raw: unknown): ModelConfig {
  const given = raw === undefined ? {} : checkObject('config', raw);
  rejectUnknownKeys('config setting', given, CONFIG_KEYS);
  const c = { ...DEFAULT_CONFIG, ...given } as Record<string, unknown>;
  const config: ModelConfig = {
    dModel: checkInteger('dModel', c.dModel, LIMITS.dModel.min, LIMITS.dModel.max),
    heads: checkInteger('heads', c.heads, LIMITS.heads.min, LIMITS.heads.max),
    layers: checkInteger('layers', c.layers, LIMITS.layers.min, LIMITS.layers.max),
    ffnDim: checkInteger('ffnDim', c.ffnDim, LIMITS.ffnDim.min, LIMITS.ffnDim.max),
    seed: checkInteger('seed', c.seed, LIMITS.seed.min, LIMITS.seed.max),
    preset: checkChoice('preset', c.preset, PRESETS),
    scale: checkBoolean('scale', c.scale, true),
    residual: checkBoolean('residual', c.residual, true),
    positional: checkBoolean('positional', c.positional, true),
    activation: checkChoice('activation', c.activation, ACTIVATIONS),
    norm: checkChoice('norm', c.norm, NORMS),
  };
  if (config.dModel % config.heads !== 0)
    fail(`heads (${config.heads}) must divide dModel (${config.dModel}): d_k = dModel / heads must be a whole number`);
  return config;
}

export function checkRunInput(raw: unknown): CheckedRunInput {
  const input = checkObject('run input', raw) as Partial<RunInput>;
  rejectUnknownKeys('run argument', input, RUN_KEYS);
  const mode = input.mode === undefined ? 'encoder' : checkChoice('mode', input.mode, MODES);
  const texts = checkTexts('texts', input.texts);
  let source: string[] = [];
  if (mode === 'cross') {
    if (input.source === undefined) fail(`mode 'cross' needs source: one source sentence per text`);
    source = checkTexts('source', input.source);
    if (source.length !== texts.length)
      fail(`source has ${source.length} sentences but texts has ${texts.length}: cross mode pairs them one to one`);
  }
  return { texts, source, mode, config: checkConfig(input.config) };
}
