// Names what an attention head does on one example: how much of each query's weight
// falls where a known pattern puts it (previous token, itself, the first token, a fixed
// distance back, the token after an earlier copy of itself = induction, the mirrored
// position = reverse diagonal), or how close its rows are to spreading evenly (broad).
// Scores are in [0, 1]; a head is labelled with its best pattern. A sharp head that no
// pattern explains (a sort model's "smallest item not yet written") attends by what the
// tokens are, not where: 'content', scored by how much weight each row's top key gets.
// A head nothing explains and that is not sharp either is 'unclear'.
// Only the rows that matter are scored when the caller says which (a trained model's
// scored positions: elsewhere its attention is unconstrained and says little).
//
// A head whose scored rows show only a vague spread ('broad', 'unclear') may do its work on the
// other rows: an induction model's previous-token head writes, on the earlier copy's rows, which
// token came before, for the induction head to read as keys. headLabel then names the position
// pattern it has there (previous token, self, first token, a fixed offset), and says so.
//
// Induction is judged strictly: on one example every copy may sit the same distance back,
// and a head that always looks that far back (a fixed-offset head, which position alone
// gives) then lands on the same keys. So induction also requires that the head does not
// look that far back on the rows where that distance does not reach the token after an
// earlier copy of the query's token.

export type PatternName =
  | 'previous token'
  | 'self'
  | 'first token'
  | 'fixed offset'
  | 'induction'
  | 'reverse diagonal'
  | 'broad'
  | 'content'
  | 'unclear';

/** Below this, a pattern does not explain the head. */
const EXPLAINS = 0.5;

export interface PatternScore {
  name: PatternName;
  score: number;
}

/** For query i, the keys a pattern attends to, or null when the pattern says nothing about row i. */
type Target = (i: number) => number[] | null;
type Positional = Exclude<PatternName, 'broad' | 'content' | 'unclear' | 'fixed offset'>;

/**
 * Prefix matching: every key right after an earlier occurrence of query i's token (where the
 * next token was last time), as induction heads are identified; null when it has none.
 */
function inductionKeys(tokens: readonly string[], i: number): number[] | null {
  const keys: number[] = [];
  for (let j = 1; j <= i; j++) if (tokens[j - 1] === tokens[i]) keys.push(j); // j - 1 < i: an earlier copy
  return keys.length ? keys : null;
}

/**
 * How much weight the head puts `distance` keys back on the rows where that key is not an
 * induction key (the control rows), the most over the distances given; null when no row
 * is a control for any of them (then the example cannot tell the two apart).
 */
function offsetControl(
  weights: ArrayLike<number>,
  seq: number,
  tokens: readonly string[],
  distances: Iterable<number>,
): number | null {
  let most: number | null = null;
  for (const d of distances) {
    let mass = 0,
      rows = 0;
    for (let i = d; i < seq; i++) {
      if (inductionKeys(tokens, i)?.includes(i - d)) continue;
      mass += weights[i * seq + i - d];
      rows += 1;
    }
    if (rows > 0) most = Math.max(most ?? 0, mass / rows);
  }
  return most;
}

/** The best fixed distance back (2 or more; 1 is the previous token) over the counted rows, with its mean weight. */
function fixedOffset(weights: ArrayLike<number>, seq: number, counts: (i: number) => boolean): PatternScore | null {
  let best: PatternScore | null = null;
  for (let d = 2; d < seq; d++) {
    let mass = 0,
      rows = 0;
    for (let i = d; i < seq; i++) {
      if (!counts(i)) continue;
      mass += weights[i * seq + i - d];
      rows += 1;
    }
    if (rows >= 2 && mass / rows > (best?.score ?? -1)) best = { name: 'fixed offset', score: mass / rows };
  }
  return best;
}

function targets(seq: number, tokens: readonly string[]): Record<Positional, Target> {
  return {
    'previous token': (i) => (i >= 1 ? [i - 1] : null),
    self: (i) => [i],
    'first token': (i) => (i >= 1 ? [0] : null),
    induction: (i) => inductionKeys(tokens, i),
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
    const distances = new Set<number>();
    for (let i = 0; i < seq; i++) {
      const keys = counts(i) ? target(i) : null;
      if (keys === null) continue;
      for (const j of keys) {
        mass += weights[i * seq + j];
        distances.add(i - j);
      }
      rows += 1;
    }
    // A pattern that applies to fewer than two rows (e.g. induction with no repeats) says nothing.
    if (rows < 2) continue;
    const score = mass / rows;
    if (name === 'induction') {
      // Not induction if looking a fixed distance back explains it as well (or the example cannot tell).
      const control = offsetControl(weights, seq, tokens, distances);
      if (control === null || control >= score / 2) continue;
    }
    scores.push({ name, score });
  }
  const offset = fixedOffset(weights, seq, counts);
  if (offset) scores.push(offset);
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
  // Best first; on a tie the pattern that says more wins (induction over the fixed offset it
  // coincides with on one example, any position pattern over broad).
  const order: PatternName[] = [
    'induction',
    'reverse diagonal',
    'previous token',
    'first token',
    'self',
    'fixed offset',
  ];
  const rank = (name: PatternName) => (order.includes(name) ? order.indexOf(name) : order.length);
  scores.sort((a, b) => b.score - a.score || rank(a.name) - rank(b.name));
  // Only when nothing else explains it: a previous-token head is sharp too.
  const content = rows > 0 ? top / rows : 0;
  const best = scores[0]?.score ?? 0;
  if (best < EXPLAINS)
    scores.unshift(content >= EXPLAINS ? { name: 'content', score: content } : { name: 'unclear', score: best });
  return scores;
}

/** A head's label: its best pattern, and where it was found when that is not on the scored rows. */
export interface HeadLabel extends PatternScore {
  /** 'unscored': found on the rows outside the scored ones, the scored rows showing only a vague spread. */
  rows?: 'unscored';
}

/** Labels that name no pattern the head learned. */
export const VAGUE: readonly PatternName[] = ['broad', 'unclear'];
/** Patterns of position alone: a head may do such work on any row (induction and the reverse diagonal apply where scored). */
const POSITION_ONLY: readonly PatternName[] = ['previous token', 'self', 'first token', 'fixed offset'];

/**
 * The label of one head: its best pattern on the scored rows; or, when that is only a vague spread, a position
 * pattern that explains the head on the other rows better than a spread does there (marked rows: 'unscored').
 */
export function headLabel(
  weights: ArrayLike<number>,
  seq: number,
  tokens: readonly string[],
  scored?: readonly boolean[],
): HeadLabel {
  const best = headPatterns(weights, seq, tokens, scored)[0];
  if (!scored || !VAGUE.includes(best.name)) return best;
  const others = scored.map((s) => !s);
  if (others.filter(Boolean).length < 2) return best;
  const elsewhere = headPatterns(weights, seq, tokens, others);
  const spread = elsewhere.find((p) => p.name === 'broad')?.score ?? 0;
  const found = elsewhere.find((p) => POSITION_ONLY.includes(p.name));
  return found && found.score >= EXPLAINS && found.score > spread ? { ...found, rows: 'unscored' } : best;
}
