// How the page writes numbers (web/src/model/words.ts): rounding never shows a signed zero or
// drops the leading digit, the one minus sign is '-', and no other file of web/src rounds a
// number for display its own way.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { MINUS_INFINITY, count, fixed, formatBytes, formatValue } from '../../web/src/model/words.js';

const WEB_SRC = fileURLToPath(new URL('../../web/src/', import.meta.url));

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? sources(path) : path.endsWith('.ts') ? [path] : [];
  });
}

/** A file's code without its comments (a comment may write a formula's − as typeset). */
const code = (path: string) =>
  readFileSync(path, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');

describe('fixed', () => {
  it('rounds as toFixed does', () => {
    expect(fixed(0.125, 2)).toBe((0.125).toFixed(2));
    expect(fixed(3.14159, 3)).toBe('3.142');
    expect(fixed(-2.5, 1)).toBe('-2.5');
    expect(fixed(1234.5, 0)).toBe((1234.5).toFixed(0));
    expect(fixed(-0.25, 2)).toBe('-0.25');
  });

  it('never writes a signed zero, whatever the places', () => {
    expect(fixed(-0.001, 2)).toBe('0.00');
    expect(fixed(-0.004999, 2)).toBe('0.00');
    expect(fixed(-0, 0)).toBe('0');
    expect(fixed(-0.4, 0)).toBe('0');
    expect(fixed(-1e-9, 3)).toBe('0.000');
    // A negative that rounds to something nonzero keeps its sign.
    expect(fixed(-0.005, 1)).toBe('0.0');
    expect(fixed(-0.06, 1)).toBe('-0.1');
  });

  it('keeps the leading digit', () => {
    for (const v of [0.5, -0.5, 0.049, -0.049, -0.999]) expect(fixed(v, 2)).toMatch(/^-?\d+\.\d\d$/);
  });
});

describe('formatValue', () => {
  it('writes three decimals, one from 100, exponents for the very small and very large', () => {
    expect(formatValue(0.12345)).toBe('0.123');
    expect(formatValue(-0.12345)).toBe('-0.123');
    expect(formatValue(123.456)).toBe('123.5');
    expect(formatValue(0.0001234)).toBe('1.23e-4');
    expect(formatValue(-12345)).toBe('-1.23e+4');
    expect(formatValue(0)).toBe('0.000');
    expect(formatValue(-0)).toBe('0.000');
  });

  it('writes infinities and NaN as words the page states once', () => {
    expect(formatValue(-Infinity)).toBe(MINUS_INFINITY);
    expect(MINUS_INFINITY).toBe('-\u221e');
    expect(formatValue(Infinity)).toBe('\u221e');
    expect(formatValue(NaN)).toBe('NaN');
  });

  it('writes a number a copy can parse back', () => {
    for (const v of [-0.25, -3.5, -123.4]) expect(Number(formatValue(v))).toBeCloseTo(v, 3);
  });
});

describe('count', () => {
  it('says one head, two heads', () => {
    expect(count(1, 'head')).toBe('1 head');
    expect(count(4, 'head')).toBe('4 heads');
  });
});

describe('formatBytes', () => {
  it('writes a size in decimal units, one decimal from a kB', () => {
    expect(formatBytes(512)).toBe('512 B');
    expect(formatBytes(999)).toBe('999 B');
    expect(formatBytes(1000)).toBe('1.0 kB');
    expect(formatBytes(2048)).toBe('2.0 kB');
    expect(formatBytes(36_864)).toBe('36.9 kB'); // a KV cache: 2 x 4 K/V heads x 9 positions x 128 x 4 bytes
    expect(formatBytes(1_234_567)).toBe('1.2 MB');
    expect(formatBytes(2_480_800_000)).toBe('2.5 GB');
  });

  it('writes a part of a total in the total\u2019s unit', () => {
    expect(formatBytes(12_300_000, 497_800_000)).toBe('12.3 / 497.8 MB');
    expect(formatBytes(719, 719)).toBe('719 / 719 B');
    expect(formatBytes(0, 2_000)).toBe('0.0 / 2.0 kB');
    expect(formatBytes(2048, null)).toBe('2.0 kB');
  });
});

describe('every number on the page goes through words.ts', () => {
  const files = sources(WEB_SRC).filter((f) => !f.endsWith(join('model', 'words.ts')));

  it('finds the page sources', () => {
    expect(files.length).toBeGreaterThan(50);
  });

  it('no file rounds with toFixed itself (it would write -0.00)', () => {
    const offenders = files.filter((f) => /\.toFixed\(/.test(code(f))).map((f) => f.slice(WEB_SRC.length));
    expect(offenders).toEqual([]);
  });

  // A signed value: the typeset minus right before a number, ∞ or an interpolated value. A formula's
  // operator ('i − 3', 'θ^−2i') may stay typeset: it is no number a reader copies.
  it('no file writes the typeset minus (U+2212) as the sign of a shown number or ∞', () => {
    const offenders = files
      .filter((f) => /\u2212(\d[\d.]*(?![\w(])|\u221e|\$\{)/.test(code(f)))
      .map((f) => f.slice(WEB_SRC.length));
    expect(offenders).toEqual([]);
  });
});
