// Head labels: each synthetic head is named by the pattern it was built with.
import { describe, expect, it } from 'vitest';
import { headLabel, headPatterns } from '../../web/src/model/head-patterns.js';

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

  it('do not call a fixed-offset head induction, though on a repeat of fixed period it lands on the same keys', () => {
    // 'abcd' then 'abcd' again (the old induction task: the earlier copy always 4 back). A head looking 3 back on
    // every row reaches the token after the earlier copy on the repeat's rows, like an induction head, but it also
    // looks 3 back where that is no such token (row 3): position, not the repeat, explains it.
    const offset = headPatterns(
      head(8, (i) => (i >= 3 ? i - 3 : i)),
      8,
      TOKENS,
    );
    expect(offset.map((p) => p.name)).not.toContain('induction');
    expect(offset[0].name).toBe('fixed offset');
    expect(offset[0].score).toBeGreaterThan(0.8);
    // Scored on the repeat's rows only (where both explanations coincide), it is still not induction.
    const repeatRows = TOKENS.map((_, i) => i >= 4);
    expect(
      headPatterns(
        head(8, (i) => (i >= 3 ? i - 3 : i)),
        8,
        TOKENS,
        repeatRows,
      )[0].name,
    ).not.toBe('induction');
    // An induction head on the same example attends 3 back only where that is the token after the earlier copy.
    expect(
      headPatterns(
        head(8, (i) => (i >= 4 ? i - 3 : i)),
        8,
        TOKENS,
        repeatRows,
      )[0].name,
    ).toBe('induction');
  });

  it('call a head induction when the distance to the earlier copy varies and it follows it', () => {
    // Two repeats at different distances: 'p q' repeated 3 back, then 'r s' repeated 8 back.
    const tokens = ['r', 's', 'p', 'q', 'x', 'p', 'q', 'y', 'r', 's'];
    const target = (i: number) => {
      const keys: number[] = [];
      for (let j = 1; j <= i; j++) if (tokens[j - 1] === tokens[i]) keys.push(j);
      return keys.length ? keys[0] : i; // else itself
    };
    const best = headPatterns(head(10, target), 10, tokens)[0];
    expect(best.name).toBe('induction');
    expect(best.score).toBeGreaterThan(0.8);
  });

  it('call a head that nothing explains and that is not sharp unclear, not content', () => {
    // Each row spreads its weight over two keys chosen by no pattern: not broad, not sharp.
    const seq = 8;
    const weights = new Float32Array(seq * seq);
    weights[0] = 1;
    for (let i = 1; i < seq; i++) {
      const [a, b] = [
        [0, 1],
        [1, 0],
        [0, 2],
        [3, 1],
        [1, 4],
        [5, 2],
        [3, 6],
      ][i - 1]; // two keys per row, by no rule
      for (let j = 0; j <= i; j++) weights[i * seq + j] = 0.1 / (i + 1);
      weights[i * seq + a] += 0.45;
      weights[i * seq + b] += 0.45;
    }
    const rows = Array.from({ length: seq }, (_, i) => i >= 3); // the rows with room to be neither even nor sharp
    const best = headPatterns(weights, seq, ['h', 'g', 'f', 'e', 'd', 'c', 'b', 'a'], rows)[0];
    expect(best.name).toBe('unclear');
    expect(best.score).toBeLessThan(0.5);
  });

  it('a head vague on the scored rows is named by the position pattern it has on the other rows, and says so', () => {
    // Walk item 4: an induction model's previous-token head works on the earlier copy's rows (0-7), and spreads
    // its weight on the scored rows (8-15), where the induction head does the work.
    const seq = 16;
    const tokens = [...'abcdefgh', ...'abcdefgh'];
    const scored = Array.from({ length: seq }, (_, i) => i >= 8);
    const weights = head(seq, (i) => (i < 8 ? Math.max(0, i - 1) : null), 0.8);
    expect(headPatterns(weights, seq, tokens, scored)[0].name).toBe('broad');
    const label = headLabel(weights, seq, tokens, scored);
    expect(label.name).toBe('previous token');
    expect(label.rows).toBe('unscored');
    expect(label.score).toBeCloseTo(0.8, 5); // rows 1-7, 0.8 each on the previous token
    // A head that spreads everywhere stays broad; a specific label on the scored rows is kept as it is.
    expect(
      headLabel(
        head(seq, () => null),
        seq,
        tokens,
        scored,
      ),
    ).toMatchObject({ name: 'broad' });
    expect(
      headLabel(
        head(seq, () => null),
        seq,
        tokens,
        scored,
      ).rows,
    ).toBeUndefined();
    const induction = head(seq, (i) => (i >= 8 ? i - 7 : Math.max(0, i - 1)));
    expect(headLabel(induction, seq, tokens, scored)).toMatchObject({ name: 'induction' });
    // Without scored rows every row counts already: nothing more to look at.
    expect(headLabel(weights, seq, tokens).rows).toBeUndefined();
  });
});
