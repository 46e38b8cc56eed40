// model.patch (issue 29): activation patching and attribution patching. The options are
// checked here with coded AttentionErrors before the engine sees them (the core checks
// again); the engine's run is stepped a chunk at a time so progress and cancelling happen
// between chunks. The math is in core/src/analysis/patching.cpp.
import { AttentionError, describeValue, fromEngine } from './errors.js';
import type { ModelSpec, PatchMethod, PatchOptions, PatchOver, PatchProgress, PatchResult } from './types.js';
import { checkInteger } from './validate.js';

/** What `model.patch()` can patch (`over`). */
export const PATCH_OVER: readonly PatchOver[] = ['resid', 'heads'];
/** How `model.patch()` measures (`method`). */
export const PATCH_METHODS: readonly PatchMethod[] = ['exact', 'attribution'];

const KEYS = ['clean', 'corrupted', 'position', 'tokens', 'over', 'method', 'onProgress', 'signal'];

type RawError = { error?: { message: string; code: string; field: string } };

/** The options as the engine reads them. */
export interface CheckedPatchOptions {
  clean: Int32Array;
  corrupted: Int32Array;
  position: number;
  good: number;
  bad: number;
  over: PatchOver;
  method: PatchMethod;
}

/** The raw Embind patching run (private: only this file and model.ts talk to it). */
export interface RawPatching {
  error(): RawError | undefined;
  step(): RawError & { done?: number; total?: number };
  result(): { rows: number; columns: number; recovered: Float32Array; cleanDiff: number; corruptedDiff: number };
  delete(): void;
}

function checkPrompt(field: 'clean' | 'corrupted', value: unknown, spec: ModelSpec): Int32Array {
  if (!(Array.isArray(value) || ArrayBuffer.isView(value)))
    throw new AttentionError(`${field} must be an array of token ids, got ${describeValue(value)}`, {
      field,
      value: describeValue(value),
    });
  const ids = value as ArrayLike<unknown>;
  if (ids.length < 1 || ids.length > spec.maxSeq)
    throw new AttentionError(`${field} must hold 1..${spec.maxSeq} tokens (maxSeq), got ${ids.length}`, {
      code: 'out_of_range',
      field,
      value: ids.length,
    });
  return Int32Array.from(Array.from(ids), (id) => checkInteger(field, id, 0, spec.vocabSize - 1));
}

function oneOf<T extends string>(field: string, value: unknown, choices: readonly T[], fallback: T): T {
  if (value === undefined) return fallback;
  if (!choices.includes(value as T))
    throw new AttentionError(`${field} must be one of ${choices.join(', ')}, got ${describeValue(value)}`, {
      field,
      value,
    });
  return value as T;
}

/** Checks `model.patch()`'s options; the callbacks are returned beside what the engine reads. */
export function checkPatchOptions(
  raw: unknown,
  spec: ModelSpec,
): { checked: CheckedPatchOptions; onProgress?: (p: PatchProgress) => void; signal?: AbortSignal } {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw))
    throw new AttentionError(`patch takes { ${KEYS.join(', ')} }, got ${describeValue(raw)}`, {
      field: 'options',
      value: describeValue(raw),
    });
  const o = raw as Partial<PatchOptions> & Record<string, unknown>;
  for (const key of Object.keys(o))
    if (!KEYS.includes(key)) throw new AttentionError(`unknown patch option '${key}'`, { field: key, value: key });
  const clean = checkPrompt('clean', o.clean, spec);
  const corrupted = checkPrompt('corrupted', o.corrupted, spec);
  if (corrupted.length !== clean.length)
    throw new AttentionError(
      `corrupted has ${corrupted.length} tokens, clean ${clean.length}: patching needs prompts of the same length`,
      { code: 'shape_mismatch', field: 'corrupted', value: corrupted.length },
    );
  const position =
    o.position === undefined ? clean.length - 1 : checkInteger('position', o.position, 0, clean.length - 1);
  const tokens: unknown = o.tokens;
  if (!Array.isArray(tokens) || tokens.length !== 2)
    throw new AttentionError(`tokens must be [good, bad], two token ids, got ${describeValue(tokens)}`, {
      field: 'tokens',
      value: describeValue(tokens),
    });
  const [good, bad] = tokens.map((id: unknown) => checkInteger('tokens', id, 0, spec.vocabSize - 1)) as [
    number,
    number,
  ];
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function')
    throw new AttentionError(`onProgress must be a function, got ${describeValue(o.onProgress)}`, {
      field: 'onProgress',
    });
  const signal: unknown = o.signal;
  if (signal !== undefined && (typeof signal !== 'object' || signal === null || !('aborted' in signal)))
    throw new AttentionError(`signal must be an AbortSignal, got ${describeValue(signal)}`, { field: 'signal' });
  return {
    checked: {
      clean,
      corrupted,
      position,
      good,
      bad,
      over: oneOf('over', o.over, PATCH_OVER, 'resid'),
      method: oneOf('method', o.method, PATCH_METHODS, 'exact'),
    },
    onProgress: o.onProgress,
    signal: signal as AbortSignal | undefined,
  };
}

function aborted(): AttentionError {
  return new AttentionError('patching was stopped by its AbortSignal', { code: 'aborted', field: 'signal' });
}

/** Lets the event loop run (a message, a click, an abort) between two chunks. */
function nextTask(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}

/**
 * Runs a started engine run chunk by chunk, reporting progress and stopping on the signal;
 * the run is freed on every way out.
 */
export async function runPatching(
  start: () => RawPatching,
  checked: CheckedPatchOptions,
  onProgress?: (p: PatchProgress) => void,
  signal?: AbortSignal,
): Promise<PatchResult> {
  if (signal?.aborted) throw aborted();
  const raw = start();
  try {
    const failure = raw.error();
    if (failure?.error) throw fromEngine(failure.error);
    for (;;) {
      await nextTask();
      if (signal?.aborted) throw aborted();
      const step = raw.step();
      if (step.error) throw fromEngine(step.error);
      onProgress?.({ done: step.done!, total: step.total! });
      if (step.done === step.total) break;
    }
    const r = raw.result();
    return {
      over: checked.over,
      method: checked.method,
      shape: [r.rows, r.columns],
      recovered: r.recovered,
      cleanDiff: r.cleanDiff,
      corruptedDiff: r.corruptedDiff,
    };
  } finally {
    raw.delete();
  }
}
