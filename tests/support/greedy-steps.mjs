// A model's greedy continuation as plain data, step by step: the token, the top candidates' ids
// and probabilities. No Node or browser API, so a Node test and a page (which imports it from the
// test server, the repository's root) compare the same record.
export function greedySteps(model, ids, maxNewTokens) {
  const gen = model.generate({ ids, maxNewTokens, temperature: 0 });
  const steps = [];
  try {
    while (!gen.done) {
      const s = gen.step();
      steps.push({
        token: s.token,
        ids: s.candidates.map((c) => c.token),
        probabilities: s.candidates.map((c) => c.probability),
      });
    }
  } finally {
    gen.dispose();
  }
  return steps;
}
