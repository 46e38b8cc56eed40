// The arguments of the read-only analysis tools (issue 29): checked here with coded
// AttentionErrors (field and value) before the engine sees them; the core checks again.
import { AttentionError, describeValue } from './errors.js';
import type {
  AblationEffect,
  AblationRankingOptions,
  AblationRankingResult,
  HeadScoreKind,
  HeadScoreOptions,
  LogitAttributionOptions,
  LogitLensOptions,
  ModelSpec,
} from './types.js';
import { checkAblationKind, checkInteger } from './validate.js';

/** The detection patterns of `model.headScores()` (TransformerLens's head_detector.py names, shortened). */
export const HEAD_SCORE_KINDS: readonly HeadScoreKind[] = ['previous', 'duplicate', 'induction'];

export interface CheckedHeadScoreOptions {
  kind: HeadScoreKind;
  seed: number;
  length: number;
  batch: number;
}

export function checkHeadScoreOptions(raw: unknown, spec: ModelSpec): CheckedHeadScoreOptions {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new AttentionError(`headScores takes { kind, seed?, length?, batch? }, got ${describeValue(raw)}`, {
      field: 'options',
      value: describeValue(raw),
    });
  const o = raw as Partial<HeadScoreOptions> & Record<string, unknown>;
  for (const key of Object.keys(o))
    if (!['kind', 'seed', 'length', 'batch'].includes(key))
      throw new AttentionError(`unknown headScores option '${key}'`, { field: key, value: key });
  if (!HEAD_SCORE_KINDS.includes(o.kind as HeadScoreKind))
    throw new AttentionError(`kind must be one of ${HEAD_SCORE_KINDS.join(', ')}, got ${describeValue(o.kind)}`, {
      field: 'kind',
      value: o.kind,
    });
  if (spec.encoderLayers > 0)
    throw new AttentionError('head scores need a single stack; this model is an encoder–decoder (encoderLayers > 0)', {
      field: 'model',
      value: spec.encoderLayers,
    });
  const longest = Math.floor(spec.maxSeq / 2);
  return {
    kind: o.kind as HeadScoreKind,
    seed: o.seed === undefined ? 0 : checkInteger('seed', o.seed, 0, Number.MAX_SAFE_INTEGER),
    length: o.length === undefined ? Math.min(10, longest) : checkInteger('length', o.length, 1, longest),
    // The upper limit is the core's (64 sequences): its out_of_range error names 'batch'.
    batch: o.batch === undefined ? 4 : checkInteger('batch', o.batch, 1, Number.MAX_SAFE_INTEGER),
  };
}

function checkOptionsObject(what: string, raw: unknown, keys: readonly string[]): Record<string, unknown> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new AttentionError(`${what} takes { ${keys.join(', ')} }, got ${describeValue(raw)}`, {
      field: 'options',
      value: describeValue(raw),
    });
  const o = raw as Record<string, unknown>;
  for (const key of Object.keys(o))
    if (!keys.includes(key)) throw new AttentionError(`unknown ${what} option '${key}'`, { field: key, value: key });
  return o;
}

/** One sequence of ids: a non-empty array of whole numbers (the vocabulary is checked by the engine). */
function checkIds(value: unknown, spec: ModelSpec): Int32Array {
  if (!(Array.isArray(value) || value instanceof Int32Array))
    throw new AttentionError(`ids must be an array of token ids, got ${describeValue(value)}`, {
      field: 'ids',
      value: describeValue(value),
    });
  if (value.length < 1 || value.length > spec.maxSeq)
    throw new AttentionError(`ids must hold 1..${spec.maxSeq} tokens (maxSeq), got ${value.length}`, {
      code: 'out_of_range',
      field: 'ids',
      value: value.length,
    });
  return Int32Array.from(value, (id) => checkInteger('ids', id, 0, spec.vocabSize - 1));
}

export interface CheckedLogitLensOptions {
  ids: Int32Array;
  topK: number;
}

export function checkLogitLensOptions(raw: unknown, spec: ModelSpec): CheckedLogitLensOptions {
  const o = checkOptionsObject('logitLens', raw, ['ids', 'topK']) as Partial<LogitLensOptions>;
  // The upper limit of topK is the core's (min(V, 100)): its out_of_range error names 'topK'.
  return {
    ids: checkIds(o.ids, spec),
    topK: o.topK === undefined ? Math.min(5, spec.vocabSize) : checkInteger('topK', o.topK, 1, spec.vocabSize),
  };
}

export interface CheckedLogitAttributionOptions {
  ids: Int32Array;
  position: number;
  token: number;
  against: number;
}

export function checkLogitAttributionOptions(raw: unknown, spec: ModelSpec): CheckedLogitAttributionOptions {
  const o = checkOptionsObject('logitAttribution', raw, [
    'ids',
    'position',
    'token',
    'against',
  ]) as Partial<LogitAttributionOptions>;
  const ids = checkIds(o.ids, spec);
  return {
    ids,
    position: o.position === undefined ? ids.length - 1 : checkInteger('position', o.position, 0, ids.length - 1),
    token: checkInteger('token', o.token, 0, spec.vocabSize - 1),
    against: o.against === undefined ? -1 : checkInteger('against', o.against, 0, spec.vocabSize - 1),
  };
}

export function checkRolloutOptions(raw: unknown, spec: ModelSpec): { ids: Int32Array } {
  const o = checkOptionsObject('attentionRollout', raw, ['ids']);
  return { ids: checkIds(o.ids, spec) };
}

export interface CheckedAblationRankingOptions extends CheckedLogitAttributionOptions {
  mean: boolean;
  meanOver: Int32Array | null;
  meanCount: number;
}

export function checkAblationRankingOptions(raw: unknown, spec: ModelSpec): CheckedAblationRankingOptions {
  const o = checkOptionsObject('ablationRanking', raw, [
    'ids',
    'position',
    'token',
    'against',
    'ablation',
    'meanOver',
  ]) as Partial<AblationRankingOptions>;
  if (spec.encoderLayers > 0)
    throw new AttentionError(
      'the ablation ranking needs a single stack; this model is an encoder–decoder (encoderLayers > 0)',
      { field: 'model', value: spec.encoderLayers },
    );
  const { ids, position, token, against } = checkLogitAttributionOptions(
    { ids: o.ids, position: o.position, token: o.token, against: o.against },
    spec,
  );
  const kind = checkAblationKind(o.ablation, o.meanOver, ids.length, spec);
  return {
    ids,
    position,
    token,
    against,
    mean: kind.ablation === 'mean',
    meanOver: kind.meanOver,
    meanCount: kind.meanCount,
  };
}

/** What the engine's ablationRanking returns. */
export interface RawAblationRanking {
  probability: number;
  logitDiff: number;
  headProbabilityChange: Float32Array;
  headLogitDiffChange: Float32Array;
  mlpProbabilityChange: Float32Array;
  mlpLogitDiffChange: Float32Array;
  /** Parts ranked: i < L H is head (i / H, i % H), else the MLP of layer i - L H. */
  order: Int32Array;
}

/** The package's result: the engine's changes, and every part as an entry in the engine's order. */
export function ablationRankingResult(raw: RawAblationRanking, heads: number): AblationRankingResult {
  const headCount = raw.headProbabilityChange.length;
  const ranked: AblationEffect[] = Array.from(raw.order, (i) => {
    const head = i < headCount;
    const probabilityChange = head ? raw.headProbabilityChange[i] : raw.mlpProbabilityChange[i - headCount];
    const logitDiffChange = head ? raw.headLogitDiffChange[i] : raw.mlpLogitDiffChange[i - headCount];
    return {
      kind: head ? 'head' : 'mlp',
      layer: head ? Math.floor(i / heads) : i - headCount,
      head: head ? i % heads : -1,
      probability: raw.probability + probabilityChange,
      probabilityChange,
      logitDiff: raw.logitDiff + logitDiffChange,
      logitDiffChange,
    };
  });
  return {
    probability: raw.probability,
    logitDiff: raw.logitDiff,
    heads: { probabilityChange: raw.headProbabilityChange, logitDiffChange: raw.headLogitDiffChange },
    mlps: { probabilityChange: raw.mlpProbabilityChange, logitDiffChange: raw.mlpLogitDiffChange },
    ranked,
  };
}
