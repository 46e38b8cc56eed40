// model.headScores() through the package, both builds: the PyTorch reference scores
// (tests/reference/fixtures/heads.json: GPT-2 through loadPretrained, Llama and Qwen 2 with
// grouped K/V heads through createModel + loadWeights), the shipped induction checkpoint's
// induction head, and bad options as coded AttentionErrors with field and value.
import { describe, expect, it } from 'vitest';
import { checkpoint, referenceModel } from './analysis-models.js';
import { BUILDS, engineFor, expectClose, fixture, thrown } from './helpers.js';

describe.each(BUILDS)('headScores (%s)', (build) => {
  it('matches the PyTorch reference (TransformerLens definitions) on GPT-2, Llama and Qwen 2', async () => {
    const engine = await engineFor(build);
    for (const c of fixture('heads.json').cases) {
      const model = await referenceModel(engine, c.source);
      for (const kind of ['previous', 'duplicate', 'induction'] as const) {
        const scores = model.headScores({ kind, seed: c.seed, length: c.length, batch: c.batch });
        expect(scores).toBeInstanceOf(Float32Array);
        expect(scores.length).toBe(model.spec.layers * model.spec.heads);
        expectClose(scores, c.scores[kind].flat(), 1e-4);
      }
      model.dispose();
    }
  });

  it("finds the shipped induction model's induction head (layer 1, head 0)", async () => {
    const model = checkpoint(await engineFor(build), 'induction');
    const induction = model.headScores({ kind: 'induction', seed: 1, length: 7, batch: 16 });
    const best = induction.indexOf(Math.max(...induction));
    expect(best).toBe(1 * model.spec.heads + 0);
    expect(induction[best]).toBeGreaterThan(0.5);
    const previous = model.headScores({ kind: 'previous', seed: 1, length: 7, batch: 16 });
    expect(Math.max(previous[0], previous[1])).toBeGreaterThan(0.5);
    model.dispose();
  });

  it('refuses bad options with coded errors, and the model still works', async () => {
    const model = checkpoint(await engineFor(build), 'induction');
    const before = model.headScores({ kind: 'previous', seed: 2, length: 4, batch: 2 });
    let e = thrown(() => model.headScores({ kind: 'copying' as 'previous' }));
    expect([e.code, e.field, e.value]).toEqual(['invalid_argument', 'kind', 'copying']);
    e = thrown(() => model.headScores({ kind: 'induction', length: model.spec.maxSeq }));
    expect([e.code, e.field, e.value]).toEqual(['out_of_range', 'length', model.spec.maxSeq]);
    e = thrown(() => model.headScores({ kind: 'induction', batch: 1.5 }));
    expect([e.code, e.field]).toEqual(['invalid_argument', 'batch']);
    e = thrown(() => model.headScores({ kind: 'induction', batch: 65 }));
    expect([e.code, e.field]).toEqual(['out_of_range', 'batch']);
    e = thrown(() => model.headScores({ kind: 'induction', seed: -1 }));
    expect([e.code, e.field]).toEqual(['out_of_range', 'seed']);
    e = thrown(() => model.headScores({ kind: 'induction', heads: 2 } as never));
    expect(e.field).toBe('heads');
    expect(model.headScores({ kind: 'previous', seed: 2, length: 4, batch: 2 })).toEqual(before);
    model.dispose();
  });
});
