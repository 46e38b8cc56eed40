// Names what an attention head does on one example: how much of each query's weight
// falls where a known pattern puts it (previous token, itself, the first token, the
// token after an earlier copy of itself = induction, the mirrored position = reverse
// diagonal), or how close its rows are to spreading evenly (broad). Scores are in
// [0, 1]; a head is labelled with its best pattern. A sharp head that no pattern
// explains (a sort model's "smallest item not yet written") attends by what the
// tokens are, not where: 'content', scored by how much weight each row's top key gets.
// Only the rows that matter are scored when the caller says which (a trained model's
// scored positions: elsewhere its attention is unconstrained and says little).

export type PatternName =
  'previous token' | 'self' | 'first token' | 'induction' | 'reverse diagonal' | 'broad' | 'content';

/** Below this, a pattern does not explain the head. */
const EXPLAINS = 0.5;

export interface PatternScore {
  name: PatternName;
  score: number;
}

/** For query i, the keys a pattern attends to, or null when the pattern says nothing about row i. */
type Target = (i: number) => number[] | null;
type Positional = Exclude<PatternName, 'broad' | 'content'>;

function targets(seq: number, tokens: readonly string[]): Record<Positional, Target> {
  return {
    'previous token': (i) => (i >= 1 ? [i - 1] : null),
    self: (i) => [i],
    'first token': (i) => (i >= 1 ? [0] : null),
    // Prefix matching: every key right after an earlier occurrence of this query's token
    // (where the next token was last time), as induction heads are identified.
    induction: (i) => {
      const keys: number[] = [];
      for (let j = 1; j <= i; j++) if (tokens[j - 1] === tokens[i]) keys.push(j); // j - 1 < i: an earlier copy
      return keys.length ? keys : null;
    },
    // The anti-diagonal i + j = seq - 2, where causality allows it (the second half): a
    // next-token model reversing "x1..xn | xn..x1" at query i writes the token at seq-2-i.
    'reverse diagonal': (i) => (seq - 2 - i < i && seq - 2 - i >= 0 ? [seq - 2 - i] : null),
  };
}

/**
 * Scores of every pattern for one head's weights (Sq = Sk = seq, row-major, rows summing
 * to 1 over the keys a causal query sees), best first. scored: (seq) which query rows
 * count (all when absent).
 */
export function headPatterns(
  weights: ArrayLike<number>,
  seq: number,
  tokens: readonly string[],
  scored?: readonly boolean[],
): PatternScore[] {
  const counts = (i: number) => !scored || scored[i];
  const scores: PatternScore[] = [];
  for (const [name, target] of Object.entries(targets(seq, tokens)) as [PatternName, Target][]) {
    let mass = 0,
      rows = 0;
    for (let i = 0; i < seq; i++) {
      const keys = counts(i) ? target(i) : null;
      if (keys === null) continue;
      for (const j of keys) mass += weights[i * seq + j];
      rows += 1;
    }
    // A pattern that applies to fewer than two rows (e.g. induction with no repeats) says nothing.
    if (rows >= 2) scores.push({ name, score: mass / rows });
  }
  // Broad: 1 - total variation distance to the even spread over the keys each query sees.
  // Content: the mean weight of each row's top key, the same rows as broad.
  let closeness = 0,
    top = 0,
    rows = 0;
  for (let i = 1; i < seq; i++) {
    if (!counts(i)) continue;
    let distance = 0,
      best = 0;
    for (let j = 0; j <= i; j++) {
      distance += Math.abs(weights[i * seq + j] - 1 / (i + 1));
      best = Math.max(best, weights[i * seq + j]);
    }
    closeness += 1 - distance / 2;
    top += best;
    rows += 1;
  }
  if (rows > 0) scores.push({ name: 'broad', score: closeness / rows });
  scores.sort((a, b) => b.score - a.score);
  // Only when nothing else explains it: a previous-token head is sharp too.
  const content = rows > 0 ? top / rows : 0;
  if ((scores[0]?.score ?? 0) < EXPLAINS && content >= EXPLAINS) scores.unshift({ name: 'content', score: content });
  return scores;
}
