// The read-only head tools through the package on BERT, the hub families and the shipped toy
// models, both builds, against PyTorch (tests/reference/fixtures/heads-coverage.json): the head
// detectors, the logit lens (BERT's through its MLM head), attention rollout, and direct logit
// attribution where it applies; BERT and Gemma 3 refuse attribution with a coded error.
import { describe, expect, it } from 'vitest';
import type { Model } from '../../dist/node.js';
import { checkpoint, referenceModel } from './analysis-models.js';
import { BUILDS, engineFor, expectClose, fixture, thrown } from './helpers.js';

describe.each(BUILDS)('head tools on more models (%s)', (build) => {
  it('match PyTorch on BERT, the hub families and the toy models', async () => {
    const engine = await engineFor(build);
    const cases = fixture('heads-coverage.json').cases;
    expect(cases.length).toBe(10);
    for (const c of cases) {
      const model: Model = c.source.includes('/')
        ? await referenceModel(engine, c.source)
        : checkpoint(engine, c.source);
      const { seed, length, batch, scores } = c.headScores;
      for (const kind of ['previous', 'duplicate', 'induction'] as const)
        expectClose(model.headScores({ kind, seed, length, batch }), scores[kind].flat(), 1e-4);
      const lens = model.logitLens({ ids: c.ids, topK: c.lens.topK });
      expect(Array.from(lens.topIds), c.name).toEqual(c.lens.topIds.flat(2));
      expectClose(lens.topProbs, c.lens.topProbs.flat(2), 1e-4);
      expectClose(lens.predictionProbs, c.lens.predictionProbs.flat(), 1e-4);
      expect(Array.from(lens.prediction)).toEqual(c.lens.prediction);
      expectClose(model.attentionRollout({ ids: c.ids }), c.rollout.flat(), 1e-4);
      if (c.attribution) {
        const a = c.attribution;
        const got = model.logitAttribution({
          ids: c.ids,
          position: a.position,
          token: a.token,
          ...(a.against >= 0 ? { against: a.against } : {}),
        });
        expectClose(got.heads, a.heads.flat(), 1e-4);
        expectClose(got.mlps, a.mlps, 1e-4);
        expectClose([got.embed, got.biases, got.logit], [a.embed, a.biases, a.logit], 1e-4);
      } else {
        const e = thrown(() => model.logitAttribution({ ids: c.ids, token: 1 }));
        expect([e.code, e.field], c.name).toEqual(['invalid_argument', 'model']);
      }
      model.dispose();
    }
  });
});
