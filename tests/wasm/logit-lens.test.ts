// model.logitLens() through the package, both builds: the PyTorch reference (forward hooks on
// each block, final norm, unembedding: tests/reference/fixtures/heads.json) on GPT-2, Llama
// and Qwen 2; the last layer is the model's own prediction; bad options are coded errors.
import { describe, expect, it } from 'vitest';
import { checkpoint, referenceModel } from './analysis-models.js';
import { BUILDS, engineFor, expectClose, fixture, thrown } from './helpers.js';

describe.each(BUILDS)('logitLens (%s)', (build) => {
  it('matches the PyTorch reference on GPT-2, Llama and Qwen 2', async () => {
    const engine = await engineFor(build);
    const cases = fixture('heads.json').cases;
    expect(cases.length).toBe(3);
    for (const c of cases) {
      const model = await referenceModel(engine, c.source);
      const want = c.lens;
      const lens = model.logitLens({ ids: want.ids, topK: want.topK });
      expect([lens.layers, lens.seq, lens.topK]).toEqual([model.spec.layers, want.ids.length, want.topK]);
      expect(Array.from(lens.topIds)).toEqual(want.topIds.flat(2));
      expectClose(lens.topProbs, want.topProbs.flat(2), 1e-4);
      expect(Array.from(lens.prediction)).toEqual(want.prediction);
      expectClose(lens.predictionProbs, want.predictionProbs.flat(), 1e-4);
      model.dispose();
    }
  });

  it("ends in the model's own prediction, and refuses bad options", async () => {
    const model = checkpoint(await engineFor(build), 'induction');
    const ids = [3, 5, 7, 2, 3, 5, 7, 2];
    const lens = model.logitLens({ ids, topK: 2 });
    const logits = model.forward({ ids: Int32Array.from(ids), batch: 1, seq: ids.length }).logits!;
    const V = model.spec.vocabSize;
    for (let p = 0; p < ids.length; p++) {
      const row = logits.subarray(p * V, (p + 1) * V);
      expect(lens.prediction[p]).toBe(row.indexOf(Math.max(...row)));
    }
    let e = thrown(() => model.logitLens({ ids: [], topK: 1 }));
    expect([e.code, e.field, e.value]).toEqual(['out_of_range', 'ids', 0]);
    e = thrown(() => model.logitLens({ ids: [1, V] }));
    expect([e.code, e.field, e.value]).toEqual(['out_of_range', 'ids', V]);
    e = thrown(() => model.logitLens({ ids: [1, 2], topK: 0 }));
    expect([e.code, e.field, e.value]).toEqual(['out_of_range', 'topK', 0]);
    e = thrown(() => model.logitLens({ ids: [1, 2], top: 3 } as never));
    expect(e.field).toBe('top');
    expect(Array.from(model.logitLens({ ids, topK: 2 }).topIds)).toEqual(Array.from(lens.topIds));
    model.dispose();
  });
});
