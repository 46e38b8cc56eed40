import type { ErrorCode } from './schema.js';

/** What an {@link AttentionError} concerns, beside its message. */
export interface ErrorDetails {
  /** A stable code to branch on, e.g. 'out_of_range' or 'missing_tensor' (the engine's list: `ERROR_CODES`). */
  code?: ErrorCode;
  /** The setting, argument or tensor concerned, e.g. 'heads' or 'layers.0.norm1.weight'; '' if none. */
  field?: string;
  /** The bad value, where there is one small enough to keep. */
  value?: unknown;
}

/**
 * Thrown for every invalid argument, setting, input or file. The message names the
 * argument and the bad value, e.g. `heads (3) must divide embedDim (8)`; `code` and
 * `field` say the same for programs. The engine and any model stay as they were.
 */
export class AttentionError extends Error {
  override readonly name = 'AttentionError';
  readonly code: ErrorCode;
  readonly field: string;
  readonly value: unknown;

  constructor(message: string, details: ErrorDetails = {}) {
    super(message);
    this.code = details.code ?? 'invalid_argument';
    this.field = details.field ?? '';
    this.value = details.value;
  }
}

/** The engine's error value ({ message, code, field }) as an AttentionError. */
export function fromEngine(
  raw: { message: string; code: string; field: string },
  rename?: (field: string) => string,
): AttentionError {
  const field = rename ? rename(raw.field) : raw.field;
  return new AttentionError(raw.message, { code: raw.code as ErrorCode, field });
}

/** Describes a value for an error message without dumping large arrays. */
export function describeValue(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'number') return Number.isNaN(value) ? 'NaN' : String(value);
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value);
  if (ArrayBuffer.isView(value)) return `${value.constructor.name}(${(value as Float32Array).length})`;
  if (Array.isArray(value)) return `Array(${value.length})`;
  return typeof value;
}
