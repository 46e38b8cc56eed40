// Argument checks for the public API. Everything that reaches the wasm module has
// passed through here, so no call can hand Embind a wrong type or make the core
// allocate without bound. Each failure is an AttentionError with a code, the field
// and the bad value. Settings are checked against the engine's own declaration.
import { CONFIG_SCHEMA, LIMITS, MODEL_SPEC_SCHEMA, MODES } from './config.js';
import { AttentionError, describeValue } from './errors.js';
import { checkValue, defaultsOf, ruleProblems, type ErrorCode, type SchemaInfo } from './schema.js';
import type {
  AblationKind,
  AttentionWeights,
  CreateTrainerOptions,
  EvaluateOptions,
  ForwardInput,
  HeadRef,
  Mode,
  ModelConfig,
  ModelSpec,
  MultiHeadAttentionInput,
  RecordOptions,
  RunInput,
  TrainingBatch,
} from './types.js';

/** The weights part of what the binding's _multiHeadAttention receives: every field present. */
export interface CheckedWeights {
  embedDim: number;
  kdim: number;
  vdim: number;
  inProjWeight: Float32Array | null;
  qProjWeight: Float32Array | null;
  kProjWeight: Float32Array | null;
  vProjWeight: Float32Array | null;
  inProjBias: Float32Array | null;
  outProjWeight: Float32Array;
  outProjBias: Float32Array | null;
}

/** What the binding's _multiHeadAttention receives: every field present and checked. */
export interface CheckedMultiHeadInput extends CheckedWeights {
  query: Float32Array;
  key: Float32Array;
  value: Float32Array;
  selfAttention: boolean;
  batch: number;
  querySeq: number;
  keySeq: number;
  heads: number;
  keyPaddingMask: Uint8Array | null;
  attnMask: Uint8Array | null;
  attnMaskFloat: Float32Array | null;
  causal: boolean;
  scale: boolean;
  needWeights: boolean;
  averageAttnWeights: boolean;
}

/** Resolves a `weights` argument to the prepared weights it is, or throws naming the problem. */
export type PreparedResolver = (weights: unknown) => { embedDim: number; kdim: number; vdim: number };

export interface CheckedRunInput {
  texts: string[];
  source: string[];
  mode: Mode;
  config: ModelConfig;
}

function fail(message: string, field: string, value?: unknown, code: ErrorCode = 'invalid_argument'): never {
  throw new AttentionError(message, { code, field, value });
}

export function checkInteger(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isInteger(value))
    fail(`${name} must be a whole number, got ${describeValue(value)}`, name, value);
  if (value < min || value > max)
    fail(`${name} must be between ${min} and ${max}, got ${value}`, name, value, 'out_of_range');
  return value;
}

function checkBoolean(name: string, value: unknown, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (typeof value !== 'boolean') fail(`${name} must be true or false, got ${describeValue(value)}`, name, value);
  return value;
}

function checkArray<T extends Float32Array | Uint8Array | Int32Array>(
  name: string,
  value: unknown,
  type: { new (n: number): T; name: string },
  length: number,
  shape: string,
): T {
  if (!(value instanceof type))
    fail(`${name} must be a ${type.name}, got ${describeValue(value)}`, name, describeValue(value));
  if (value.length !== length)
    fail(`${name} has ${value.length} elements, expected ${shape} = ${length}`, name, value.length, 'shape_mismatch');
  return value; // NaN and Infinity inside are found by the core, which scans faster (see engine.ts)
}

function checkObject(name: string, value: unknown): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    fail(`${name} must be an object, got ${describeValue(value)}`, name, describeValue(value));
  return value as Record<string, unknown>;
}

function rejectUnknownKeys(what: string, input: Record<string, unknown>, known: ReadonlySet<string>): void {
  for (const key of Object.keys(input)) if (!known.has(key)) fail(`unknown ${what} '${key}'`, key);
}

/** Settings over their defaults, checked against a schema: types, ranges, choices, rules. */
export function checkSettings<T>(schema: SchemaInfo, raw: unknown, what: string): T {
  const given = raw === undefined ? {} : checkObject(what, raw);
  const names = new Set(schema.settings.map((s) => s.name));
  rejectUnknownKeys(`${what} setting`, given, names);
  const values = { ...defaultsOf<Record<string, unknown>>(schema), ...given };
  for (const info of schema.settings) {
    const problem = checkValue(info, values[info.name]);
    if (problem) fail(problem.message, problem.field, problem.value, problem.code);
  }
  const [broken] = ruleProblems(schema.rules, values);
  if (broken) fail(broken.message, broken.field, broken.value, broken.code);
  return values as T;
}

export const checkConfig = (raw: unknown): ModelConfig => checkSettings<ModelConfig>(CONFIG_SCHEMA, raw, 'config');
export const checkSpec = (raw: unknown): ModelSpec => checkSettings<ModelSpec>(MODEL_SPEC_SCHEMA, raw, 'spec');

// The weight arrays, each checked by checkWeightArrays.
const WEIGHT_ARRAYS = [
  'inProjWeight',
  'qProjWeight',
  'kProjWeight',
  'vProjWeight',
  'inProjBias',
  'outProjWeight',
  'outProjBias',
] as const;
// prepareWeights's argument: the weights and their sizes.
const WEIGHT_KEYS = new Set<string>(['embedDim', 'kdim', 'vdim', 'bias', ...WEIGHT_ARRAYS]);
// multiHeadAttention's argument: the inputs and their options, and the weights (or prepared ones).
const MHA_KEYS = new Set<string>([
  ...WEIGHT_KEYS,
  'query',
  'key',
  'value',
  'batch',
  'querySeq',
  'keySeq',
  'heads',
  'keyPaddingMask',
  'causal',
  'attnMask',
  'scale',
  'weights',
  'needWeights',
  'averageAttnWeights',
]);

function checkWeightArrays(input: Partial<AttentionWeights>, e: number): CheckedWeights {
  const kdim = input.kdim === undefined ? e : checkInteger('kdim', input.kdim, 1, 8192);
  const vdim = input.vdim === undefined ? e : checkInteger('vdim', input.vdim, 1, 8192);
  const bias = checkBoolean('bias', input.bias, true);
  const separate = kdim !== e || vdim !== e;
  const absent = (name: (typeof WEIGHT_ARRAYS)[number], why: string) => {
    if (input[name] !== undefined) fail(`${name} is not used ${why}`, name);
    return null;
  };
  const f32 = (name: (typeof WEIGHT_ARRAYS)[number], n: number, shape: string) =>
    checkArray(name, input[name], Float32Array, n, shape);
  return {
    embedDim: e,
    kdim,
    vdim,
    inProjWeight: separate
      ? absent(
          'inProjWeight',
          `when kdim (${kdim}) or vdim (${vdim}) differ from embedDim (${e}): give qProjWeight, kProjWeight and vProjWeight`,
        )
      : f32('inProjWeight', 3 * e * e, `(3E, E) = (${3 * e}, ${e})`),
    qProjWeight: separate
      ? f32('qProjWeight', e * e, `(E, E) = (${e}, ${e})`)
      : absent('qProjWeight', 'when kdim = vdim = embedDim: give inProjWeight'),
    kProjWeight: separate
      ? f32('kProjWeight', e * kdim, `(E, kdim) = (${e}, ${kdim})`)
      : absent('kProjWeight', 'when kdim = vdim = embedDim: give inProjWeight'),
    vProjWeight: separate
      ? f32('vProjWeight', e * vdim, `(E, vdim) = (${e}, ${vdim})`)
      : absent('vProjWeight', 'when kdim = vdim = embedDim: give inProjWeight'),
    inProjBias: bias ? f32('inProjBias', 3 * e, `(3E) = (${3 * e})`) : absent('inProjBias', 'with bias: false'),
    outProjWeight: f32('outProjWeight', e * e, `(E, E) = (${e}, ${e})`),
    outProjBias: bias ? f32('outProjBias', e, `(E) = (${e})`) : absent('outProjBias', 'with bias: false'),
  };
}

/** The argument of engine.prepareWeights(). */
export function checkAttentionWeights(raw: unknown): CheckedWeights {
  const input = checkObject('prepareWeights input', raw) as Partial<AttentionWeights>;
  rejectUnknownKeys('prepareWeights argument', input, WEIGHT_KEYS);
  const embedDim = checkInteger('embedDim', input.embedDim, 1, 8192);
  return checkWeightArrays(input, embedDim);
}

export function checkMultiHeadInput(raw: unknown, resolvePrepared: PreparedResolver): CheckedMultiHeadInput {
  const input = checkObject('multiHeadAttention input', raw) as Partial<MultiHeadAttentionInput>;
  rejectUnknownKeys('multiHeadAttention argument', input, MHA_KEYS);
  const batch = checkInteger('batch', input.batch, 1, 65536);
  const querySeq = checkInteger('querySeq', input.querySeq, 1, 65536);
  const embedDim = checkInteger('embedDim', input.embedDim, 1, 8192);
  const heads = checkInteger('heads', input.heads, 1, embedDim);
  if (embedDim % heads !== 0)
    fail(`heads (${heads}) must divide embedDim (${embedDim})`, 'heads', heads, 'not_divisible');
  if (input.key === undefined && input.keySeq !== undefined && input.keySeq !== querySeq)
    fail(
      `keySeq (${describeValue(input.keySeq)}) differs from querySeq (${querySeq}) but no key was given`,
      'keySeq',
      input.keySeq,
    );
  const keySeq = input.keySeq === undefined ? querySeq : checkInteger('keySeq', input.keySeq, 1, 65536);

  let weights: CheckedWeights;
  if (input.weights !== undefined) {
    const given = [...WEIGHT_ARRAYS, 'kdim', 'vdim', 'bias'].filter(
      (k) => input[k as keyof typeof input] !== undefined,
    );
    if (given.length)
      fail(`give either weights (prepared) or the weight arrays, not both (also given: ${given.join(', ')})`, given[0]);
    const prepared = resolvePrepared(input.weights);
    if (prepared.embedDim !== embedDim)
      fail(
        `weights were prepared for embedDim ${prepared.embedDim}, but embedDim is ${embedDim}`,
        'embedDim',
        embedDim,
        'shape_mismatch',
      );
    weights = {
      embedDim,
      kdim: prepared.kdim,
      vdim: prepared.vdim,
      inProjWeight: null,
      qProjWeight: null,
      kProjWeight: null,
      vProjWeight: null,
      inProjBias: null,
      outProjWeight: new Float32Array(0),
      outProjBias: null,
    };
  } else {
    weights = checkWeightArrays(input, embedDim);
  }
  const { kdim, vdim } = weights;
  const [b, sq, sk, e, h] = [batch, querySeq, keySeq, embedDim, heads];
  const floats = 5 * b * h * sq * sk + 12 * b * (sq + sk) * e + 4 * e * e + b * sk * (kdim + vdim);
  if (floats * 4 > LIMITS.workingMemoryBytes)
    fail(
      `this call needs about ${Math.ceil((floats * 4) / 2 ** 20)} MiB of working memory; ` +
        `the limit is ${LIMITS.workingMemoryBytes / 2 ** 20} MiB (batch ${b}, querySeq ${sq}, keySeq ${sk}, embedDim ${e}, heads ${h})`,
      'batch',
      b,
      'limit_exceeded',
    );

  const query = checkArray('query', input.query, Float32Array, b * sq * e, `(B, Sq, E) = (${b}, ${sq}, ${e})`);
  if (input.key === undefined && kdim !== e)
    fail(`key is required when kdim (${kdim}) differs from embedDim (${e})`, 'key');
  const key =
    input.key === undefined
      ? query
      : checkArray('key', input.key, Float32Array, b * sk * kdim, `(B, Sk, kdim) = (${b}, ${sk}, ${kdim})`);
  if (input.value === undefined && vdim !== kdim)
    fail(`value is required when vdim (${vdim}) differs from kdim (${kdim})`, 'value');
  const value =
    input.value === undefined
      ? key
      : checkArray('value', input.value, Float32Array, b * sk * vdim, `(B, Sk, vdim) = (${b}, ${sk}, ${vdim})`);
  const mask = input.attnMask;
  const maskShape = `(Sq, Sk) = (${sq}, ${sk})`;
  return {
    query,
    key,
    value,
    selfAttention: key === query && value === query,
    batch,
    querySeq,
    keySeq,
    heads,
    ...weights,
    keyPaddingMask:
      input.keyPaddingMask === undefined || input.keyPaddingMask === null
        ? null
        : checkArray('keyPaddingMask', input.keyPaddingMask, Uint8Array, b * sk, `(B, Sk) = (${b}, ${sk})`),
    attnMask:
      mask === undefined || mask === null || mask instanceof Float32Array
        ? null
        : checkArray('attnMask', mask, Uint8Array, sq * sk, maskShape),
    attnMaskFloat: mask instanceof Float32Array ? checkArray('attnMask', mask, Float32Array, sq * sk, maskShape) : null,
    causal: checkBoolean('causal', input.causal, false),
    scale: checkBoolean('scale', input.scale, true),
    needWeights: checkBoolean('needWeights', input.needWeights, true),
    averageAttnWeights: checkBoolean('averageAttnWeights', input.averageAttnWeights, false),
  };
}

// Lone UTF-16 surrogates cannot be encoded as UTF-8: replace them with U+FFFD.
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

function checkTexts(name: string, value: unknown): string[] {
  if (!Array.isArray(value))
    fail(`${name} must be an array of strings, got ${describeValue(value)}`, name, describeValue(value));
  if (value.length === 0) fail(`${name} is empty: give at least one sentence`, name);
  if (value.length > LIMITS.texts)
    fail(
      `${name} has ${value.length} sentences; the maximum batch is ${LIMITS.texts}`,
      name,
      value.length,
      'limit_exceeded',
    );
  return value.map((text, i) => {
    if (typeof text !== 'string')
      fail(`${name}[${i}] must be a string, got ${describeValue(text)}`, name, describeValue(text));
    if (text.length > LIMITS.bytesPerText)
      // UTF-16 units never outnumber UTF-8 bytes
      fail(
        `${name}[${i}] is ${text.length} characters long; the limit is ${LIMITS.bytesPerText} bytes of UTF-8`,
        name,
        text.length,
        'limit_exceeded',
      );
    return text.replace(LONE_SURROGATE, '\uFFFD');
  });
}

const RUN_KEYS = new Set(['texts', 'mode', 'source', 'config']);

export function checkRunInput(raw: unknown): CheckedRunInput {
  const input = checkObject('run input', raw) as Partial<RunInput>;
  rejectUnknownKeys('run argument', input, RUN_KEYS);
  const mode = input.mode === undefined ? 'encoder' : input.mode;
  if (!MODES.includes(mode))
    fail(`mode must be one of ${MODES.map((m) => `'${m}'`).join(', ')}, got ${describeValue(mode)}`, 'mode', mode);
  const texts = checkTexts('texts', input.texts);
  let source: string[] = [];
  if (mode === 'cross') {
    if (input.source === undefined) fail(`mode 'cross' needs source: one source sentence per text`, 'source');
    source = checkTexts('source', input.source);
    if (source.length !== texts.length)
      fail(
        `source has ${source.length} sentences but texts has ${texts.length}: cross mode pairs them one to one`,
        'source',
        source.length,
        'shape_mismatch',
      );
  }
  return { texts, source, mode, config: checkConfig(input.config) };
}

/** What the binding's forward receives. */
export interface CheckedForwardInput {
  ids: Int32Array;
  batch: number;
  seq: number;
  lengths: Int32Array | null;
  tokenTypes: Int32Array | null;
  sourceIds: Int32Array | null;
  sourceSeq: number;
  sourceLengths: Int32Array | null;
  record: { stages: string[]; layers: number[] } | null;
  ablate: HeadRef[];
  /** Layers whose MLP is ablated. */
  ablateMlps: number[];
  ablation: AblationKind;
  /** With 'mean': the reference ids (N, S), row-major, and N. */
  meanOver: Int32Array | null;
  meanCount: number;
  logits: 'all' | 'last' | 'none';
}

const FORWARD_KEYS = new Set([
  'logits',
  'ids',
  'batch',
  'seq',
  'lengths',
  'tokenTypes',
  'sourceIds',
  'sourceSeq',
  'sourceLengths',
  'record',
  'ablate',
  'ablateMlps',
  'ablation',
  'meanOver',
]);

function checkLengths(name: string, value: unknown, batch: number, seq: number): Int32Array | null {
  if (value === undefined || value === null) return null;
  const array = Array.isArray(value) ? Int32Array.from(value as number[]) : value;
  const lengths = checkArray(name, array, Int32Array, batch, `(B) = (${batch})`);
  lengths.forEach((n, i) => {
    if (n < 0 || n > seq) fail(`${name}[${i}] is ${n}, outside 0..${seq}`, name, n, 'out_of_range');
  });
  return lengths;
}

function checkRecord(value: unknown): CheckedForwardInput['record'] {
  if (value === undefined || value === false) return null;
  if (value === true) return { stages: [], layers: [] };
  const r = checkObject('record', value) as RecordOptions;
  rejectUnknownKeys('record option', r as Record<string, unknown>, new Set(['stages', 'layers']));
  const stages = r.stages ?? [];
  if (!Array.isArray(stages) || stages.some((s) => typeof s !== 'string' || s.length > 200))
    fail('record.stages must be an array of stage-name patterns (strings)', 'record.stages');
  const layers = r.layers ?? [];
  if (!Array.isArray(layers)) fail('record.layers must be an array of layer numbers', 'record.layers');
  return { stages, layers: layers.map((l) => checkInteger('record.layers', l, 0, 1024)) };
}

/** Heads to switch off: [{ layer, head }] within the spec's layers and heads, for a single stack. */
function checkAblate(value: unknown, spec: ModelSpec): HeadRef[] {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    fail(`ablate must be an array of { layer, head }, got ${describeValue(value)}`, 'ablate', describeValue(value));
  if (value.length > 0 && spec.encoderLayers > 0)
    fail(
      "head ablation switches off heads of a single stack's self-attention; this model is an encoder–decoder (encoderLayers > 0)",
      'ablate',
      value.length,
    );
  return value.map((entry) => {
    const e = checkObject('ablate', entry);
    rejectUnknownKeys('ablate entry key', e, new Set(['layer', 'head']));
    return {
      layer: checkInteger('ablate.layer', e.layer, 0, spec.layers - 1),
      head: checkInteger('ablate.head', e.head, 0, spec.heads - 1),
    };
  });
}

/** MLPs to switch off: layers within the spec's, for a single stack. */
function checkAblateMlps(value: unknown, spec: ModelSpec): number[] {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    fail(`ablateMlps must be an array of layers, got ${describeValue(value)}`, 'ablateMlps', describeValue(value));
  if (value.length > 0 && spec.encoderLayers > 0)
    fail(
      'MLP ablation switches off layers of a single stack; this model is an encoder–decoder (encoderLayers > 0)',
      'ablateMlps',
      value.length,
    );
  return value.map((layer) => checkInteger('ablateMlps', layer, 0, spec.layers - 1));
}

/** Most reference sequences of a mean ablation (the core's kMaxMeanOver). */
export const MAX_MEAN_OVER = 64;

/**
 * What ablated parts write, and the reference batch of 'mean': `meanOver` sequences of exactly
 * `seq` ids each (ids in the vocabulary), given with 'mean' only.
 */
export function checkAblationKind(
  ablation: unknown,
  meanOver: unknown,
  seq: number,
  spec: ModelSpec,
): { ablation: AblationKind; meanOver: Int32Array | null; meanCount: number } {
  const kind = ablation === undefined ? 'zero' : ablation;
  if (kind !== 'zero' && kind !== 'mean')
    fail(`ablation must be 'zero' or 'mean', got ${describeValue(kind)}`, 'ablation', describeValue(kind));
  if (kind === 'zero') {
    if (meanOver !== undefined) fail("meanOver is only for ablation: 'mean'", 'meanOver', describeValue(meanOver));
    return { ablation: kind, meanOver: null, meanCount: 0 };
  }
  if (!Array.isArray(meanOver))
    fail(
      `ablation 'mean' needs meanOver: an array of reference sequences of ${seq} token ids, got ${describeValue(meanOver)}`,
      'meanOver',
      describeValue(meanOver),
    );
  if (meanOver.length < 1 || meanOver.length > MAX_MEAN_OVER)
    fail(
      `meanOver must hold 1..${MAX_MEAN_OVER} reference sequences, got ${meanOver.length}`,
      'meanOver',
      meanOver.length,
      'out_of_range',
    );
  const flat = new Int32Array(meanOver.length * seq);
  meanOver.forEach((row: unknown, n) => {
    if (!(Array.isArray(row) || ArrayBuffer.isView(row)))
      fail(`meanOver[${n}] must be an array of token ids, got ${describeValue(row)}`, 'meanOver', describeValue(row));
    const ids = row as ArrayLike<unknown>;
    if (ids.length !== seq)
      fail(
        `meanOver[${n}] has ${ids.length} tokens; every reference sequence needs the ${seq} of the input`,
        'meanOver',
        ids.length,
        'shape_mismatch',
      );
    for (let i = 0; i < seq; i++) flat[n * seq + i] = checkInteger('meanOver', ids[i], 0, spec.vocabSize - 1);
  });
  return { ablation: kind, meanOver: flat, meanCount: meanOver.length };
}

/** The argument of model.forward(): sizes and types here; ids against the vocabulary in the engine. */
export function checkForwardInput(raw: unknown, spec: ModelSpec): CheckedForwardInput {
  const input = checkObject('forward input', raw) as Partial<ForwardInput>;
  rejectUnknownKeys('forward argument', input, FORWARD_KEYS);
  const batch = checkInteger('batch', input.batch, 1, 65536);
  const seq = checkInteger('seq', input.seq, 1, spec.maxSeq);
  const ids = checkArray('ids', input.ids, Int32Array, batch * seq, `(B, S) = (${batch}, ${seq})`);
  const encoderDecoder = spec.encoderLayers > 0;
  if (encoderDecoder && input.sourceIds === undefined)
    fail('this encoder–decoder model needs sourceIds and sourceSeq', 'sourceIds');
  if (!encoderDecoder && input.sourceIds !== undefined)
    fail('sourceIds is only for encoder–decoder models (encoderLayers > 0)', 'sourceIds');
  const sourceSeq = encoderDecoder ? checkInteger('sourceSeq', input.sourceSeq, 1, spec.maxSeq) : 0;
  const typed = input.tokenTypes !== undefined && input.tokenTypes !== null;
  if (typed && !spec.typeVocabSize)
    fail('this model has no token types (typeVocabSize 0): leave tokenTypes out', 'tokenTypes');
  return {
    ids,
    batch,
    seq,
    lengths: checkLengths('lengths', input.lengths, batch, seq),
    // values are checked against typeVocabSize by the engine
    tokenTypes: typed
      ? checkArray('tokenTypes', input.tokenTypes, Int32Array, batch * seq, `(B, S) = (${batch}, ${seq})`)
      : null,
    sourceIds: encoderDecoder
      ? checkArray(
          'sourceIds',
          input.sourceIds,
          Int32Array,
          batch * sourceSeq,
          `(B, sourceSeq) = (${batch}, ${sourceSeq})`,
        )
      : null,
    sourceSeq,
    sourceLengths: encoderDecoder ? checkLengths('sourceLengths', input.sourceLengths, batch, sourceSeq) : null,
    record: checkRecord(input.record),
    ablate: checkAblate(input.ablate, spec),
    ablateMlps: checkAblateMlps(input.ablateMlps, spec),
    ...checkAblationKind(input.ablation, input.meanOver, seq, spec),
    logits: checkLogitRows(input.logits),
  };
}

const LOGIT_ROWS = ['all', 'last', 'none'] as const;
function checkLogitRows(value: unknown): CheckedForwardInput['logits'] {
  if (value === undefined) return 'all';
  if (!(LOGIT_ROWS as readonly unknown[]).includes(value))
    fail(`logits must be 'all', 'last' or 'none', got ${describeValue(value)}`, 'logits', describeValue(value));
  return value as CheckedForwardInput['logits'];
}

/** The argument of trainer.evaluate(): the heads to switch off. */
export function checkEvaluateOptions(raw: unknown, spec: ModelSpec): HeadRef[] {
  const o = checkObject('evaluate options', raw) as EvaluateOptions;
  rejectUnknownKeys('evaluate option', o as Record<string, unknown>, new Set(['ablate']));
  return checkAblate(o.ablate, spec);
}

/** A training batch: a forward input plus targets (B, S), -100 or an id of the vocabulary (checked by the engine). */
export type CheckedTrainingBatch = CheckedForwardInput & { targets: Int32Array };

export function checkTrainingBatch(raw: unknown, spec: ModelSpec): CheckedTrainingBatch {
  const input = checkObject('batch', raw) as Partial<TrainingBatch>;
  if ('ablate' in input) fail('a training batch trains every head: ablate is for forward() and evaluate()', 'ablate');
  for (const key of ['ablateMlps', 'ablation', 'meanOver'])
    if (key in input) fail(`a training batch trains every part: ${key} is for forward()`, key);
  if ('logits' in input) fail('a training batch scores every position: logits is for forward()', 'logits');
  const { targets, ...rest } = input;
  const checked = checkForwardInput(rest, spec);
  return {
    ...checked,
    record: null,
    targets: checkArray(
      'targets',
      targets,
      Int32Array,
      checked.batch * checked.seq,
      `(B, S) = (${checked.batch}, ${checked.seq})`,
    ),
  };
}

const TRAINER_KEYS = new Set(['model', 'spec', 'init', 'optimizer', 'task', 'data', 'batchSize', 'seed', 'evalSize']);

/** createTrainer's options as the engine takes them (checked again there against its schemas). */
export function checkTrainerOptions(raw: unknown): { json: string; data: CreateTrainerOptions['data'] | null } {
  const o = checkObject('createTrainer options', raw) as CreateTrainerOptions;
  rejectUnknownKeys('createTrainer option', o as Record<string, unknown>, TRAINER_KEYS);
  if (o.task !== undefined && o.data !== undefined) fail('give a task or data, not both', 'data');
  const optimizer = { ...(o.optimizer === undefined ? {} : checkObject('optimizer', o.optimizer)) } as Record<
    string,
    unknown
  >;
  if (optimizer.betas !== undefined) {
    const betas = optimizer.betas;
    if (!Array.isArray(betas) || betas.length !== 2)
      fail('optimizer.betas must be two numbers [beta1, beta2]', 'betas', describeValue(betas));
    [optimizer.beta1, optimizer.beta2] = betas;
    delete optimizer.betas;
  }
  const settings: Record<string, unknown> = {};
  for (const key of ['batchSize', 'seed', 'evalSize'] as const) if (o[key] !== undefined) settings[key] = o[key];
  let data: CreateTrainerOptions['data'] | null = null;
  if (o.data !== undefined) {
    const d = checkObject('data', o.data) as NonNullable<CreateTrainerOptions['data']>;
    const batch = checkInteger('data.batch', d.batch, 1, 1 << 20);
    const seq = checkInteger('data.seq', d.seq, 1, 8192);
    data = {
      batch,
      seq,
      ids: checkArray('data.ids', d.ids, Int32Array, batch * seq, `(batch, seq) = (${batch}, ${seq})`),
      targets: checkArray('data.targets', d.targets, Int32Array, batch * seq, `(batch, seq) = (${batch}, ${seq})`),
    };
  }
  const task = o.task === undefined ? null : checkObject('task', o.task);
  return { json: JSON.stringify({ optimizer, settings, task }), data };
}
