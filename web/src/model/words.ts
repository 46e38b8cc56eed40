// How the page writes numbers: a number of things ("1 head", "4 heads"), and a value of a
// tensor (3 decimals, −∞ for a blocked score, exponents for the very small and very large).

export const count = (n: unknown, noun: string) => `${String(n)} ${noun}${n === 1 ? '' : 's'}`;

export function formatValue(value: number): string {
  if (value === -Infinity) return '−∞';
  if (Number.isNaN(value)) return 'NaN';
  const abs = Math.abs(value);
  if (abs !== 0 && (abs < 0.001 || abs >= 10000)) return value.toExponential(2);
  return value.toFixed(abs >= 100 ? 1 : 3);
}
