// The arguments of the read-only analysis tools (issue 29): checked here with coded
// AttentionErrors (field and value) before the engine sees them; the core checks again.
import { AttentionError, describeValue } from './errors.js';
import type { HeadScoreKind, HeadScoreOptions, ModelSpec } from './types.js';
import { checkInteger } from './validate.js';

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
