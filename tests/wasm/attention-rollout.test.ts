// model.attentionRollout() through the package, both builds: the PyTorch reference
// (tests/reference/fixtures/heads.json) on GPT-2, Llama and Qwen 2; bad ids are coded errors.
import { describe, expect, it } from 'vitest';
import { AttentionError } from '../../dist/node.js';
import { checkpoint, referenceModel } from './analysis-models.js';
import { BUILDS, engineFor, expectClose, fixture } from './helpers.js';

describe.each(BUILDS)('attentionRollout (%s)', (build) => {
  it('matches the PyTorch reference, rows summing to 1', async () => {
    const engine = await engineFor(build);
    for (const c of fixture('heads.json').cases) {
      const model = await referenceModel(engine, c.source);
      const r = model.attentionRollout({ ids: c.rollout.ids });
      const s = c.rollout.ids.length;
      expect(r.length).toBe(s * s);
      expectClose(r, c.rollout.rollout.flat(), 1e-4);
      for (let q = 0; q < s; q++) expectClose([r.subarray(q * s, (q + 1) * s).reduce((a, v) => a + v, 0)], [1], 1e-5);
      model.dispose();
    }
  });

  it('refuses bad ids', async () => {
    const model = checkpoint(await engineFor(build), 'induction');
    try {
      model.attentionRollout({ ids: [1, 'a' as unknown as number] });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(AttentionError);
      expect([(e as AttentionError).field, (e as AttentionError).value]).toEqual(['ids', 'a']);
    }
    model.dispose();
  });
});
