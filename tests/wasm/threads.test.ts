// The threaded build ('simd-threads', Emscripten pthreads) in Node: the same numbers as
// the single-threaded SIMD build, bit for bit, with any thread count (parallel loops
// split only work whose results do not depend on the split); its workers stop on
// dispose() so Node can exit; bad thread counts are refused by name.
import { afterAll, describe, expect, it } from 'vitest';
import { loadAttention, type AttentionEngine, type CreateTrainerOptions } from '../../dist/node.js';
import { engineFor } from './helpers.js';

const engines: AttentionEngine[] = [];
afterAll(() => {
  for (const e of engines) e.dispose();
});

async function threaded(threads: number): Promise<AttentionEngine> {
  const engine = await loadAttention({ build: 'simd-threads', threads });
  engines.push(engine);
  return engine;
}

const SORT: CreateTrainerOptions = {
  spec: {
    dModel: 64,
    heads: 4,
    layers: 2,
    ffnDim: 256,
    causal: true,
    norm: 'pre',
    finalNorm: true,
    positions: 'learned',
  },
  task: { name: 'sort', length: 8 },
  batchSize: 32,
  seed: 4,
  optimizer: { lr: 3e-3, warmup: 5 },
};

function losses(engine: AttentionEngine, steps: number): number[] {
  const trainer = engine.createTrainer(SORT);
  const out = Array.from({ length: steps }, () => trainer.step().loss);
  out.push(trainer.evaluate().loss);
  trainer.dispose();
  return out;
}

describe('the threaded build', () => {
  it('loads with the threads asked for', async () => {
    const engine = await threaded(2);
    expect(engine.build).toBe('simd-threads');
    expect(engine.threads).toBe(2);
  });

  it('trains to the same losses as the SIMD build, bit for bit, with 1, 2 and 3 threads', async () => {
    const reference = losses(await engineFor('simd'), 6);
    for (const threads of [1, 2, 3])
      expect(losses(await threaded(threads), 6), `${threads} threads`).toEqual(reference);
  }, 120_000);

  it('runs the playground model to the same trace', async () => {
    const input = {
      texts: ['the cat sat on the mat', 'a dog'],
      mode: 'decoder' as const,
      config: { layers: 2, heads: 4 },
    };
    const a = (await engineFor('simd')).run(input);
    const b = (await threaded(2)).run(input);
    expect(b.stages.map((s) => s.name)).toEqual(a.stages.map((s) => s.name));
    b.stages.forEach((s, i) => expect(s.data, s.name).toEqual(a.stages[i].data));
  });

  it('decodes to the same steps as the SIMD build, bit for bit, with 2 and 3 threads (the GEMV split by columns, the attention by heads)', async () => {
    // Big enough that the one-row GEMVs with enough of W to split (the core's split_gemv) are split
    // across threads
    // and so is the attention over the cache: a head (d_h 64) reads 2 x 4 x 261+ x 64 bytes of
    // K and V a step, over the core's 128 KB a part (kMinParallelBytes).
    const spec = {
      vocabSize: 3000,
      dModel: 384,
      heads: 6,
      kvHeads: 2,
      layers: 2,
      ffnDim: 1536,
      maxSeq: 272,
      positions: 'rope',
      causal: true,
      norm: 'pre',
      finalNorm: true,
      activation: 'silu',
      ffn: 'gated',
      normType: 'rmsnorm',
      head: 'tied',
    } as const;
    const steps = (engine: AttentionEngine) => {
      const model = engine.createModel(spec, { seed: 5 });
      const ids = Array.from({ length: 260 }, (_, i) => (i * 37 + 5) % 3000);
      const gen = model.generate({ ids, maxNewTokens: 8, temperature: 0, topCandidates: 5 });
      const out = [];
      while (!gen.done) {
        const s = gen.step();
        out.push({ token: s.token, candidates: s.candidates, attention: s.attention });
      }
      gen.dispose();
      model.dispose();
      return out;
    };
    const reference = steps(await engineFor('simd'));
    for (const threads of [2, 3]) expect(steps(await threaded(threads)), `${threads} threads`).toEqual(reference);
  }, 120_000);

  it('after dispose() the engine still answers, on one thread', async () => {
    const engine = await loadAttention({ build: 'simd-threads', threads: 2 });
    const input = { texts: ['after dispose'] };
    const before = engine.run(input).stages.at(-1)!.data;
    engine.dispose();
    expect(engine.run(input).stages.at(-1)!.data).toEqual(before);
  });

  it('refuses a bad thread count with the field', async () => {
    for (const threads of [0, 1.5, 17, '2'])
      await expect(loadAttention({ build: 'simd-threads', threads: threads as number })).rejects.toMatchObject({
        field: 'threads',
      });
  });
});
