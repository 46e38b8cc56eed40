// Names what an attention head does on one example: how much of each query's weight
// falls where a known pattern puts it (previous token, itself, the first token, the
// token after an earlier copy of itself = induction, the mirrored position = reverse
// diagonal), or how close its rows are to spreading evenly (broad). Scores are in
// [0, 1]; a head is labelled with its best pattern.

export type PatternName = 'previous token' | 'self' | 'first token' | 'induction' | 'reverse diagonal' | 'broad';

export interface PatternScore { name: PatternName; score: number }

/** For query i, the key a pattern attends to, or null when the pattern says nothing about row i. */
type Target = (i: number) => number | null;

function targets(seq: number, tokens: readonly string[]): Record<Exclude<PatternName, 'broad'>, Target> {
  return {
    'previous token': (i) => (i >= 1 ? i - 1 : null),
    self: (i) => i,
    'first token': (i) => (i >= 1 ? 0 : null),
    // The key right after the latest earlier occurrence of this query's token.
    induction: (i) => {
      for (let j = i - 1; j >= 0; j--) if (tokens[j] === tokens[i]) return j + 1 <= i ? j + 1 : null;
      return null;
    },
    // Query i reads position seq-1-i, where causality allows it (the second half).
    'reverse diagonal': (i) => (seq - 1 - i < i ? seq - 1 - i : null),
  };
}

/**
 * Scores of every pattern for one head's weights (Sq = Sk = seq, row-major, rows summing
 * to 1 over the keys a causal query sees), best first.
 */
export function headPatterns(weights: ArrayLike<number>, seq: number, tokens: readonly string[]): PatternScore[] {
  const scores: PatternScore[] = [];
  for (const [name, target] of Object.entries(targets(seq, tokens)) as [PatternName, Target][]) {
    let mass = 0, rows = 0;
    for (let i = 0; i < seq; i++) {
      const j = target(i);
      if (j === null) continue;
      mass += weights[i * seq + j];
      rows += 1;
    }
    // A pattern that applies to fewer than two rows (e.g. induction with no repeats) says nothing.
    if (rows >= 2) scores.push({ name, score: mass / rows });
  }
  // Broad: 1 - total variation distance to the even spread over the keys each query sees.
  let closeness = 0, rows = 0;
  for (let i = 1; i < seq; i++) {
    let distance = 0;
    for (let j = 0; j <= i; j++) distance += Math.abs(weights[i * seq + j] - 1 / (i + 1));
    closeness += 1 - distance / 2;
    rows += 1;
  }
  if (rows > 0) scores.push({ name: 'broad', score: closeness / rows });
  return scores.sort((a, b) => b.score - a.score);
}
