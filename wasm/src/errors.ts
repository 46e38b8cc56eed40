/**
 * Thrown for every invalid argument or configuration. The message names the
 * argument and the bad value, e.g. `heads (3) must divide embedDim (8)`.
 * The engine stays usable after it is thrown.
 */
export class AttentionError extends Error {
  override readonly name = 'AttentionError';
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
