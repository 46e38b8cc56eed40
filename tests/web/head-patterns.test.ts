// Head labels: each synthetic head is named by the pattern it was built with.
import { describe, expect, it } from 'vitest';
import { headPatterns } from '../../web/src/model/head-patterns.js';

/** A causal (seq, seq) head putting weight `w` on target(i) and the rest evenly on the other visible keys. */
function head(seq: number, target: (i: number) => number | null, w = 0.9): Float32Array {
  const out = new Float32Array(seq * seq);
  for (let i = 0; i < seq; i++) {
    const j = target(i);
    for (let k = 0; k <= i; k++) out[i * seq + k] = j === null ? 1 / (i + 1) : i === 0 ? 1 : k === j ? w : (1 - w) / i;
  }
  return out;
}

const TOKENS = ['a', 'b', 'c', 'd', 'a', 'b', 'c', 'd'];

describe('head patterns', () => {
  it('name each pattern the head was built with, with its mass as the score', () => {
    const cases: [string, (i: number) => number | null][] = [
      ['previous token', (i) => Math.max(0, i - 1)],
      ['self', (i) => i],
      ['first token', () => 0],
      ['induction', (i) => (i >= 4 ? i - 3 : i)], // after the earlier copy of the same token; else itself
      ['reverse diagonal', (i) => (6 - i < i ? 6 - i : 0)], // i + j = seq - 2: where a reversing model reads
    ];
    for (const [name, target] of cases) {
      const best = headPatterns(head(8, target), 8, TOKENS)[0];
      expect(best.name, name).toBe(name);
      expect(best.score).toBeGreaterThan(0.6);
    }
  });

  it('call an even spread broad, with a score of 1', () => {
    const best = headPatterns(
      head(8, () => null),
      8,
      TOKENS,
    )[0];
    expect(best).toEqual({ name: 'broad', score: expect.closeTo(1, 6) });
  });

  it('call a sharp head that no position pattern explains content-based', () => {
    // Each query's weight on one key chosen by content (a fixed, pattern-free choice), the rest spread.
    const chosen = [0, 0, 1, 0, 3, 2, 5, 3];
    const scores = headPatterns(
      head(8, (i) => chosen[i], 0.8),
      8,
      ['h', 'g', 'f', 'e', 'd', 'c', 'b', 'a'],
    );
    expect(scores[0].name).toBe('content');
    expect(scores[0].score).toBeGreaterThan(0.7);
    // A head a pattern explains keeps that pattern's name, though it is sharp too.
    expect(
      headPatterns(
        head(8, (i) => Math.max(0, i - 1)),
        8,
        TOKENS,
      )[0].name,
    ).toBe('previous token');
  });

  it('skip induction when no token repeats', () => {
    const names = headPatterns(
      head(5, (i) => i),
      5,
      ['a', 'b', 'c', 'd', 'e'],
    ).map((p) => p.name);
    expect(names).not.toContain('induction');
    expect(names[0]).toBe('self');
  });

  it('score induction by prefix matching: every key after an earlier copy of the query token counts', () => {
    // 'x' occurs at 0, 2 and 4: query 4 ('x') may attend to 1 or 3 (what followed x before).
    const tokens = ['x', 'a', 'x', 'b', 'x'];
    const weights = new Float32Array(25);
    for (let i = 0; i < 5; i++) weights[i * 5 + i] = 1; // self everywhere ...
    weights[4 * 5 + 4] = 0;
    weights[4 * 5 + 1] = 0.5;
    weights[4 * 5 + 3] = 0.5; // ... but query 4 splits over 1 and 3
    weights[2 * 5 + 2] = 0;
    weights[2 * 5 + 1] = 1; // query 2 ('x') on 1, after the x at 0
    const scored = [false, false, true, false, true]; // judge only queries 2 and 4
    const best = headPatterns(weights, 5, tokens, scored)[0];
    expect(best).toEqual({ name: 'induction', score: expect.closeTo(1, 6) });
    // Judged on rows 0, 1, 3 only (self there), the same head is a self head.
    expect(headPatterns(weights, 5, tokens, [true, true, false, true, false])[0].name).toBe('self');
  });
});
