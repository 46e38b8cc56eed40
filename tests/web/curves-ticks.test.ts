// Walk item 12: a log axis labels 1-2-5 steps or powers of ten, in one format per axis,
// never d3's thinned 1-9 run ("8, 3, 0.7, 0.2, 0.06, 0.01").
import { describe, expect, it } from 'vitest';
import { logTicks, tickFormat } from '../../web/src/ui/curves.js';

const labels = (ticks: number[]) => ticks.map(tickFormat(ticks));

/** Every tick is 1, 2 or 5 times a power of ten. */
const oneTwoFive = (t: number) =>
  ['1', '2', '5'].includes(t.toExponential().charAt(0)) && /^\de/.test(t.toExponential());

describe('log-axis ticks', () => {
  it('one decade or two: 1-2-5 steps', () => {
    expect(labels(logTicks(0.1, 1))).toEqual(['0.1', '0.2', '0.5', '1']);
    expect(labels(logTicks(0.01, 1))).toEqual(['0.01', '0.02', '0.05', '0.1', '0.2', '0.5', '1']);
    expect(labels(logTicks(1, 100))).toEqual(['1', '2', '5', '10', '20', '50', '100']);
  });

  it('many decades: powers of ten, thinned evenly, one format', () => {
    expect(labels(logTicks(0.001, 10))).toEqual(['0.001', '0.01', '0.1', '1', '10']);
    expect(labels(logTicks(1e-6, 10))).toEqual(['1e-6', '1e-4', '1e-2', '1e0']); // 8 decades: every second
    const many = logTicks(1e-12, 1e3);
    expect(many.length).toBeLessThanOrEqual(7);
    expect(many.length).toBeGreaterThanOrEqual(3);
    const ratios = many.slice(1).map((t, i) => Math.round(Math.log10(t / many[i])));
    expect(new Set(ratios).size).toBe(1); // evenly spaced
  });

  it('the walk\u2019s axes: no 8, 3, 0.7 runs; every tick a 1-2-5 value inside the axis', () => {
    for (const [lo, hi] of [
      [0.01, 10],
      [0.001, 10],
      [1, 100],
      [0.01, 1],
      [0.003, 0.04],
    ]) {
      const ticks = logTicks(lo, hi);
      expect(ticks.length, `${lo}..${hi}`).toBeGreaterThanOrEqual(2);
      for (const t of ticks) {
        expect(oneTwoFive(t), `${t} on ${lo}..${hi}`).toBe(true);
        expect(t).toBeGreaterThanOrEqual(lo * (1 - 1e-9));
        expect(t).toBeLessThanOrEqual(hi * (1 + 1e-9));
      }
      expect([...ticks].sort((a, b) => a - b)).toEqual(ticks);
    }
    expect(logTicks(0, 1)).toEqual([]);
  });
});
