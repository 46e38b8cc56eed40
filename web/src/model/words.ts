// How the page writes numbers: a number of things ("1 head", "4 heads"), and a value of a
// tensor (3 decimals, -∞ for a blocked score, exponents for the very small and very large).
// Every number the page shows is written through `fixed` (or formatValue, which uses it), so
// two rules hold everywhere: rounding never shows a signed zero or drops the leading digit
// ('0.00', not '-0.00' or '-.00'), and the one minus sign is the hyphen-minus '-' (what
// JavaScript writes, and what a copied number parses back from: Number('-0.25')), '-∞' too.
// tests/web/words.test.ts checks both rules, and that web/src writes no number another way.

/** A blocked score as the page writes it (a value in a cell, a tooltip, a legend). */
export const MINUS_INFINITY = '-\u221e';

export const count = (n: unknown, noun: string) => `${String(n)} ${noun}${n === 1 ? '' : 's'}`;

/** `value` rounded to `digits` decimals, as toFixed writes it, but never a signed zero: -0.001 to 2 decimals is '0.00'. */
export function fixed(value: number, digits: number): string {
  const text = value.toFixed(digits);
  return /^-0(\.0*)?$/.test(text) ? text.slice(1) : text;
}

export function formatValue(value: number): string {
  if (value === -Infinity) return MINUS_INFINITY;
  if (value === Infinity) return '\u221e';
  if (Number.isNaN(value)) return 'NaN';
  const abs = Math.abs(value);
  if (abs !== 0 && (abs < 0.001 || abs >= 10000)) return value.toExponential(2);
  return fixed(value, abs >= 100 ? 1 : 3);
}

/**
 * A size in bytes ('512 B', '36.9 kB', '1.2 MB', '2.5 GB'), or with `total` a part of it in the total's unit
 * ('12.3 / 497.8 MB'): decimal units, as the hub writes sizes.
 */
export function formatBytes(bytes: number, total: number | null = null): string {
  const size = total ?? bytes;
  const [unit, div] = size >= 1e9 ? ['GB', 1e9] : size >= 1e6 ? ['MB', 1e6] : size >= 1e3 ? ['kB', 1e3] : ['B', 1];
  const f = (n: number) => (div === 1 ? String(n) : fixed(n / div, 1));
  return total === null ? `${f(bytes)} ${unit}` : `${f(bytes)} / ${f(total)} ${unit}`;
}
