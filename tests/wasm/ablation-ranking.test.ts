// Zero and mean ablation of heads and MLPs (model.forward({ ablate, ablateMlps, ablation, meanOver }))
// and model.ablationRanking() through the package, both builds: PyTorch forward hooks
// (tests/reference/fixtures/ablation.json) on GPT-2, BERT, the hub families and the shipped toy
// models; the mean over the input itself changes nothing; bad options are coded AttentionErrors
// and leave the model as it was.
import { describe, expect, it } from 'vitest';
import { checkpoint, referenceModel } from './analysis-models.js';
import { BUILDS, engineFor, expectClose, fixture, thrown, uncheckedForwardInput } from './helpers.js';
import type { Model } from '../../dist/node.js';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
async function modelOf(build: (typeof BUILDS)[number], c: any): Promise<Model> {
  const engine = await engineFor(build);
  return c.source.includes('/') ? referenceModel(engine, c.source) : checkpoint(engine, c.source);
}

describe.each(BUILDS)('ablation (%s)', (build) => {
  it('matches PyTorch hooks: heads and MLPs together, and every part alone, zero and mean', async () => {
    const cases = fixture('ablation.json').cases;
    expect(cases.map((c) => c.name)).toEqual(
      expect.arrayContaining(['gpt2-tiny', 'bert-tiny-mlm', 'llama-tiny', 'gemma3-text-tiny', 'sort', 'induction']),
    );
    for (const c of cases) {
      const model = await modelOf(build, c);
      const { layers, heads, vocabSize } = model.spec;
      const S = c.ids.length;
      for (const ablation of ['zero', 'mean'] as const) {
        const mean = ablation === 'mean' ? { ablation, meanOver: c.meanOver } : {};
        const out = model.forward({
          ids: Int32Array.from(c.ids),
          batch: 1,
          seq: S,
          ablate: c.combined.heads.map(([layer, head]: number[]) => ({ layer, head })),
          ablateMlps: c.combined.mlps,
          ...mean,
        });
        expectClose(
          out.logits!.subarray(c.position * vocabSize, (c.position + 1) * vocabSize),
          c[ablation].combinedLogits,
          1e-4,
        );

        const r = model.ablationRanking({
          ids: c.ids,
          position: c.position,
          token: c.token,
          ...(c.against >= 0 ? { against: c.against } : {}),
          ...mean,
        });
        const want = c[ablation].ranking;
        expect(Math.abs(r.probability - want.probability)).toBeLessThanOrEqual(1e-4 * want.probability + 1e-9);
        expectClose([r.logitDiff], [want.logitDiff], 1e-4);
        expect(r.heads.logitDiffChange.length).toBe(layers * heads);
        expect(r.mlps.probabilityChange.length).toBe(layers);
        // ranked: every head and MLP once, the largest |logitDiffChange| first, values as PyTorch's
        expect(r.ranked.length).toBe(layers * heads + layers);
        for (let k = 1; k < r.ranked.length; k++)
          expect(Math.abs(r.ranked[k - 1].logitDiffChange)).toBeGreaterThanOrEqual(
            Math.abs(r.ranked[k].logitDiffChange),
          );
        const seen = new Set(r.ranked.map((e) => `${e.kind} ${e.layer} ${e.head}`));
        expect(seen.size).toBe(r.ranked.length);
        for (const e of r.ranked) {
          const w = e.kind === 'head' ? want.heads[e.layer][e.head] : want.mlps[e.layer];
          expect(
            Math.abs(e.probability - w.probability),
            `${c.name} ${ablation} ${e.kind} ${e.layer}.${e.head}`,
          ).toBeLessThanOrEqual(1e-4 * w.probability + 1e-7);
          expectClose([e.logitDiff], [w.logitDiff], 1e-4);
          const i = e.kind === 'head' ? e.layer * heads + e.head : e.layer;
          expect((e.kind === 'head' ? r.heads : r.mlps).logitDiffChange[i]).toBe(e.logitDiffChange);
          expect(e.logitDiffChange).toBeCloseTo(e.logitDiff - r.logitDiff, 4);
        }
      }
      model.dispose();
    }
  });

  it('mean over the input itself changes nothing; bad options are coded errors that change nothing', async () => {
    const engine = await engineFor(build);
    const model = checkpoint(engine, 'induction');
    const ids = Int32Array.from([3, 5, 7, 2, 6, 3, 5, 7]);
    const input = { ids, batch: 1, seq: 8 };
    const clean = model.forward(input).logits!;
    const everything = {
      ablate: [0, 1].flatMap((layer) => [0, 1].map((head) => ({ layer, head }))),
      ablateMlps: [0, 1],
    };
    expectClose(model.forward({ ...input, ...everything, ablation: 'mean', meanOver: [ids] }).logits!, clean, 1e-5);
    const zeroed = model.forward({ ...input, ...everything }).logits!;
    expect(zeroed.some((v, i) => Math.abs(v - clean[i]) > 1e-2)).toBe(true);

    const bad: [unknown, string, string, unknown][] = [
      [{ ablateMlps: [2] }, 'out_of_range', 'ablateMlps', 2],
      [{ ablateMlps: [0.5] }, 'invalid_argument', 'ablateMlps', 0.5],
      [{ ablateMlps: 1 }, 'invalid_argument', 'ablateMlps', '1'],
      [{ ablation: 'half' }, 'invalid_argument', 'ablation', '"half"'],
      [{ ablation: 'mean' }, 'invalid_argument', 'meanOver', 'undefined'],
      [{ ablation: 'mean', meanOver: [] }, 'out_of_range', 'meanOver', 0],
      [{ ablation: 'mean', meanOver: Array(65).fill(ids) }, 'out_of_range', 'meanOver', 65],
      [{ ablation: 'mean', meanOver: [[1, 2, 3]] }, 'shape_mismatch', 'meanOver', 3],
      [{ ablation: 'mean', meanOver: [Array(8).fill(999)] }, 'out_of_range', 'meanOver', 999],
      [{ meanOver: [ids] }, 'invalid_argument', 'meanOver', undefined],
    ];
    for (const [options, code, field, value] of bad) {
      const e = thrown(() => model.forward({ ...input, ...(options as object) }));
      expect([e.code, e.field], JSON.stringify(options)).toEqual([code, field]);
      if (value !== undefined) expect(e.value, JSON.stringify(options)).toEqual(value);
    }
    let e = thrown(() => model.ablationRanking({ ids, token: 99 }));
    expect([e.code, e.field, e.value]).toEqual(['out_of_range', 'token', 99]);
    e = thrown(() => model.ablationRanking({ ids, position: 8, token: 1 }));
    expect([e.code, e.field, e.value]).toEqual(['out_of_range', 'position', 8]);
    e = thrown(() => model.ablationRanking({ ids, token: 1, ablation: 'mean', meanOver: [[1]] }));
    expect([e.code, e.field, e.value]).toEqual(['shape_mismatch', 'meanOver', 1]);
    e = thrown(() => model.ablationRanking({ ids, token: 1, mean: true } as never));
    expect([e.code, e.field]).toEqual(['invalid_argument', 'mean']);
    // The engine checks again, whatever reaches it.
    const unchecked = uncheckedForwardInput(input);
    let raw = model.raw().forwardAblated({ ...unchecked, ablateMlps: [9] });
    expect([raw.error?.code, raw.error?.field]).toEqual(['out_of_range', 'ablateMlps']);
    raw = model.raw().forwardAblated({ ...unchecked, ablateMlps: [0], ablation: 'mean', meanOver: ids, meanCount: 2 });
    expect([raw.error?.code, raw.error?.field]).toEqual(['shape_mismatch', 'meanOver']);
    const headless = engine.createModel({ ...model.spec, head: 'none' });
    e = thrown(() => headless.ablationRanking({ ids, token: 1 }));
    expect([e.code, e.field]).toEqual(['invalid_argument', 'model']);
    headless.dispose();
    expectClose(model.forward(input).logits!, clean, 0);
    model.dispose();
  });
});
