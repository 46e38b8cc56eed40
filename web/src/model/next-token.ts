// The next-token distribution as the Generate panel draws it while its sliders move: the
// step's candidates (the distribution the engine drew from, top TOP_CANDIDATES) with the
// sampler's filters applied again for other settings, in transformers' order as the
// engine's sampler does it (core/src/sampler.cpp): temperature, top-k (ties with the k-th
// kept), top-p (ascending, out what adds up to at most 1 - p, never the largest), min-p,
// then the softmax. The repetition penalty is not re-applied (it is in the candidates'
// logits already). For tokens beyond the candidates, "the rest", only their total mass is
// known: it is spread evenly over the vocabulary's other tokens, an approximation the
// result says it made (`exact` false). It is exact when the candidates hold every token the
// new filters weigh: the draw kept the whole vocabulary and every token is a candidate (a
// small vocabulary), or the new top-k keeps no more tokens than the draw's candidates hold
// (a draw with top-k). Tokens the draw filtered out are unknown and stay out. Vitest checks
// it against the engine's own probabilities (tests/web/generation-run.test.ts). No DOM.

/** Candidates a step reports (the worker asks the engine for these many). */
export const TOP_CANDIDATES = 64;
/** Bars drawn; the other candidates and the tokens beyond them make "the rest". */
export const SHOWN_CANDIDATES = 10;

export interface Filters {
  temperature: number;
  topK: number;
  topP: number;
  minP: number;
}

export interface Candidate {
  token: number;
  probability: number;
  text: string;
}

export interface Bar extends Candidate {
  /** Still possible under the settings (false: filtered out, probability 0). */
  kept: boolean;
}

export interface ShownDistribution {
  /** The most likely candidates under the settings, descending (SHOWN_CANDIDATES at most). */
  bars: Bar[];
  /** Everything else: 1 - the bars' mass. */
  rest: number;
  /** Tokens with a probability above 0. */
  kept: number;
  /** False when the spread of the tokens beyond the candidates had to be guessed. */
  exact: boolean;
  /** The distribution's entropy in nats (approximate unless `exact`: the tokens beyond the candidates spread evenly). */
  entropy: number;
}

/** A group of tokens sharing one score (the rest is one group of many tokens). */
interface Group {
  score: number;
  count: number;
  candidate: Candidate | null;
}

const NEG_INF = -Infinity;

function sameFilters(a: Filters, b: Filters): boolean {
  return a.temperature === b.temperature && a.topK === b.topK && a.topP === b.topP && a.minP === b.minP;
}

function softmaxGroups(groups: Group[]): number[] {
  let top = NEG_INF;
  for (const g of groups) if (g.count > 0 && g.score > top) top = g.score;
  const each = groups.map((g) => (g.count > 0 && g.score !== NEG_INF ? Math.exp(g.score - top) : 0));
  const sum = each.reduce((s, v, i) => s + v * groups[i].count, 0);
  return each.map((v) => v / sum); // the probability of one token of the group
}

/**
 * The distribution under `next`, from `candidates` drawn under `drawn` (probabilities of one step, descending) and
 * the vocabulary's size; `drawnEntropy` is the drawn distribution's entropy (the engine's, over every token), which the
 * result keeps when the filters are the same. Greedy (temperature 0) is shown as the engine shows it: the filters at
 * temperature 1.
 */
export function redistribute(
  candidates: readonly Candidate[],
  drawn: Filters,
  next: Filters,
  vocabSize: number,
  drawnEntropy = NaN,
): ShownDistribution {
  const known = candidates.filter((c) => c.probability > 0);
  if (known.length === 0) return { bars: [], rest: 1, kept: 0, exact: false, entropy: drawnEntropy };
  const restMass = Math.max(0, 1 - known.reduce((s, c) => s + c.probability, 0));
  if (sameFilters(drawn, next))
    return {
      bars: candidates.slice(0, SHOWN_CANDIDATES).map((c) => ({ ...c, kept: c.probability > 0 })),
      rest: Math.max(0, 1 - candidates.slice(0, SHOWN_CANDIDATES).reduce((s, c) => s + c.probability, 0)),
      kept: restMass < 1e-9 ? known.length : vocabSize,
      exact: true,
      entropy: drawnEntropy,
    };
  // Logits up to one constant: p = softmax(z / T) over the kept tokens, so z = T log p (+ c).
  const drawnT = drawn.temperature > 0 ? drawn.temperature : 1;
  const groups: Group[] = known.map((c) => ({ score: drawnT * Math.log(c.probability), count: 1, candidate: c }));
  const others = vocabSize - known.length;
  const whole = restMass < 1e-9 || others === 0; // the candidates hold every token the draw kept
  // Exact when every token the new filters weigh (top-p and min-p renormalise over what top-k keeps) is known: the
  // draw kept the whole vocabulary, or the new top-k keeps no more than the known, most likely, tokens.
  const exact = whole && (known.length >= vocabSize || (next.topK > 0 && next.topK <= known.length));
  if (!whole) groups.push({ score: drawnT * Math.log(restMass / others), count: others, candidate: null });
  const T = next.temperature > 0 ? next.temperature : 1;
  for (const g of groups) g.score /= T;
  const total = groups.reduce((s, g) => s + g.count, 0);
  if (next.topK > 0 && next.topK < total) {
    const sorted = [...groups].sort((a, b) => b.score - a.score);
    let seen = 0,
      kth = NEG_INF;
    for (const g of sorted) {
      seen += g.count;
      if (seen >= next.topK) {
        kth = g.score;
        break;
      }
    }
    for (const g of groups) if (g.score < kth) g.score = NEG_INF;
  }
  if (next.topP < 1) {
    const p = softmaxGroups(groups);
    // ascending, ties in token order as the engine's stable sort of the vocabulary (the rest first: its ids are unknown)
    const tokenOf = (i: number) => groups[i].candidate?.token ?? -1;
    const order = groups.map((_, i) => i);
    order.sort((a, b) => {
      const x = groups[a].score,
        y = groups[b].score;
      return x < y ? -1 : x > y ? 1 : tokenOf(a) - tokenOf(b);
    });
    const kept = groups.reduce((s, g) => s + (g.score === NEG_INF ? 0 : g.count), 0);
    let cumulative = 0,
      passed = 0;
    for (const i of order) {
      const g = groups[i];
      if (g.score === NEG_INF) continue;
      // the last (largest) token never goes
      const room = Math.min(g.count, kept - 1 - passed);
      let out = 0;
      while (out < room && cumulative + p[i] <= 1 - next.topP) {
        cumulative += p[i];
        out++;
      }
      if (out < g.count) cumulative += p[i] * (g.count - out);
      passed += g.count;
      if (out === g.count) g.score = NEG_INF;
      else g.count -= out;
    }
  }
  if (next.minP > 0) {
    const p = softmaxGroups(groups);
    const top = Math.max(...p.map((v, i) => (groups[i].count > 0 ? v : 0)));
    groups.forEach((g, i) => {
      if (p[i] < next.minP * top) g.score = NEG_INF;
    });
  }
  const p = softmaxGroups(groups);
  const bars: Bar[] = groups
    .map((g, i) => ({ g, p: p[i] }))
    .filter(({ g }) => g.candidate !== null)
    .sort((a, b) => b.p - a.p)
    .slice(0, SHOWN_CANDIDATES)
    .map(({ g, p }) => ({ ...g.candidate!, probability: p, kept: p > 0 }));
  // candidates the draw had filtered out (probability 0) stay out: their logits are unknown
  const rest = Math.max(0, 1 - bars.reduce((s, b) => s + b.probability, 0));
  const kept = groups.reduce((s, g, i) => s + (p[i] > 0 ? g.count : 0), 0);
  const entropy = groups.reduce((s, g, i) => s - (p[i] > 0 ? g.count * p[i] * Math.log(p[i]) : 0), 0);
  return { bars, rest, kept, exact, entropy };
}
