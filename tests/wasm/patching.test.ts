// model.patch() through the package, both builds: exact and attribution patching against the
// PyTorch reference (forward hooks and autograd: tests/reference/fixtures/patching.json) on
// GPT-2, BERT, Llama, Gemma 3, a post-LN encoder and the trained induction model; progress,
// cancelling through an AbortSignal, and bad options as coded errors.
import { describe, expect, it } from 'vitest';
import type { AttentionEngine, Model } from '../../dist/node.js';
import { checkpoint, referenceModel } from './analysis-models.js';
import { BUILDS, engineFor, expectClose, fixture, rejection } from './helpers.js';

const load = (engine: AttentionEngine, source: string): Promise<Model> =>
  source.startsWith('checkpoint/')
    ? Promise.resolve(checkpoint(engine, source.slice('checkpoint/'.length)))
    : referenceModel(engine, source);

describe.each(BUILDS)('patch (%s)', (build) => {
  it('matches PyTorch hooks (exact) and autograd (attribution)', async () => {
    const engine = await engineFor(build);
    for (const c of fixture('patching.json').cases) {
      const model = await load(engine, c.source);
      for (const over of ['resid', 'heads'] as const)
        for (const method of ['exact', 'attribution'] as const) {
          const r = await model.patch({
            clean: c.clean,
            corrupted: c.corrupted,
            position: c.position,
            tokens: [c.good, c.bad],
            over,
            method,
          });
          const want: number[][] = c[method][over];
          expect([c.name, r.over, r.method, r.shape]).toEqual([c.name, over, method, [want.length, want[0].length]]);
          expectClose(r.recovered, want.flat(), 1e-4);
          expectClose([r.cleanDiff, r.corruptedDiff], [c.cleanDiff, c.corruptedDiff], 1e-4);
        }
      model.dispose();
    }
  });

  it('reports progress, stops on its signal, and refuses bad options', async () => {
    const engine = await engineFor(build);
    const model = checkpoint(engine, 'induction');
    const c = fixture('patching.json').cases[5];
    const base = { clean: c.clean, corrupted: c.corrupted, tokens: [c.good, c.bad] as [number, number] };
    const seen: [number, number][] = [];
    const r = await model.patch({ ...base, over: 'heads', onProgress: (p) => seen.push([p.done, p.total]) });
    expect(seen).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(r.recovered[2]).toBeGreaterThan(0.95); // layer 1, head 0: the induction head

    const controller = new AbortController();
    const stopped = model.patch({ ...base, onProgress: () => controller.abort(), signal: controller.signal });
    let e = await rejection(stopped);
    expect([e.code, e.field]).toEqual(['aborted', 'signal']);
    // The model is as it was: the same run again gives the same numbers.
    const again = await model.patch({ ...base, over: 'heads' });
    expect(Array.from(again.recovered)).toEqual(Array.from(r.recovered));

    e = await rejection(model.patch({ ...base, corrupted: c.corrupted.slice(1) }));
    expect([e.code, e.field]).toEqual(['shape_mismatch', 'corrupted']);
    e = await rejection(model.patch({ ...base, position: c.clean.length }));
    expect([e.code, e.field, e.value]).toEqual(['out_of_range', 'position', c.clean.length]);
    e = await rejection(model.patch({ ...base, tokens: [c.good, 10] }));
    expect([e.code, e.field, e.value]).toEqual(['out_of_range', 'tokens', 10]);
    e = await rejection(model.patch({ ...base, clean: [...c.clean.slice(1), 99] }));
    expect([e.code, e.field, e.value]).toEqual(['out_of_range', 'clean', 99]);
    e = await rejection(model.patch({ ...base, over: 'layers' as never }));
    expect([e.code, e.field, e.value]).toEqual(['invalid_argument', 'over', 'layers']);
    e = await rejection(model.patch({ ...base, method: 'fast' as never }));
    expect([e.code, e.field, e.value]).toEqual(['invalid_argument', 'method', 'fast']);
    e = await rejection(model.patch({ ...base, corrupted: c.clean }));
    expect([e.code, e.field]).toEqual(['invalid_argument', 'tokens']); // nothing to recover
    model.dispose();
  });
});
