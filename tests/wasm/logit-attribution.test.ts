// model.logitAttribution() through the package, both builds: the PyTorch reference (hooks,
// apply_ln_to_stack's frozen scale: tests/reference/fixtures/heads.json) on GPT-2, Llama and
// Qwen 2; the parts add up to the logit; the induction head carries the copied token; bad
// options and post-LN models are coded errors.
import { describe, expect, it } from 'vitest';
import { checkpoint, referenceModel } from './analysis-models.js';
import { BUILDS, engineFor, expectClose, fixture, thrown } from './helpers.js';

const sum = (a: ArrayLike<number>) => Array.from(a).reduce((s, v) => s + v, 0);

describe.each(BUILDS)('logitAttribution (%s)', (build) => {
  it('matches the PyTorch reference and adds up to the logit', async () => {
    const engine = await engineFor(build);
    for (const c of fixture('heads.json').cases) {
      const model = await referenceModel(engine, c.source);
      const want = c.attribution;
      const a = model.logitAttribution({
        ids: want.ids,
        position: want.position,
        token: want.token,
        ...(want.against >= 0 ? { against: want.against } : {}),
      });
      expect(a.heads.length).toBe(model.spec.layers * model.spec.heads);
      expectClose(a.heads, want.heads.flat(), 1e-4);
      expectClose(a.mlps, want.mlps, 1e-4);
      expectClose([a.embed, a.biases, a.logit], [want.embed, want.biases, want.logit], 1e-4);
      expectClose([a.embed + a.biases + sum(a.heads) + sum(a.mlps)], [a.logit], 1e-4);
      model.dispose();
    }
  });

  it('credits the induction head, and refuses bad options', async () => {
    const engine = await engineFor(build);
    const model = checkpoint(engine, 'induction');
    const a = model.logitAttribution({ ids: [3, 5, 7, 2, 6, 3, 5, 7, 2, 6], position: 6, token: 7 });
    expect(a.heads.indexOf(Math.max(...a.heads))).toBe(2); // layer 1, head 0
    let e = thrown(() => model.logitAttribution({ ids: [1, 2], position: 2, token: 1 }));
    expect([e.code, e.field, e.value]).toEqual(['out_of_range', 'position', 2]);
    e = thrown(() => model.logitAttribution({ ids: [1, 2], token: 99 }));
    expect([e.code, e.field, e.value]).toEqual(['out_of_range', 'token', 99]);
    e = thrown(() => model.logitAttribution({ ids: [1, 2], token: 1, against: -1 }));
    expect([e.code, e.field, e.value]).toEqual(['out_of_range', 'against', -1]);
    const post = engine.createModel({ ...model.spec, norm: 'post' });
    e = thrown(() => post.logitAttribution({ ids: [1, 2], token: 1 }));
    expect([e.code, e.field]).toEqual(['invalid_argument', 'model']);
    post.dispose();
    model.dispose();
  });
});
