// model.generate through the package, both builds: greedy steps equal the argmax of a full
// forward over the same tokens, the same seed gives the same tokens, steps report candidates,
// entropy, attention rows (L x H over every earlier position) and cache bytes; fork keeps the
// prefix and shares nothing; stop ids, stop strings (with a decoder) and maxNewTokens end it;
// bad settings are coded AttentionErrors with the field; dispose leaves the heap where it was;
// a tokenizer decodes each id's piece once, for every generation it serves.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AttentionError, type Model } from '../../dist/node.js';
import { BUILDS, ROOT, engineFor } from './helpers.js';

const GPT2_TINY = `${ROOT}tests/reference/fixtures/pretrained/gpt2-tiny/`;
const gpt2TinyFiles = (): Record<string, Uint8Array> =>
  Object.fromEntries(
    readdirSync(GPT2_TINY)
      .filter((f) => f !== 'expected.json')
      .map((f) => [f, new Uint8Array(readFileSync(GPT2_TINY + f))]),
  );
// tests/reference/generate_greedy_fixtures.py: PyTorch's 20 greedy tokens of gpt2-tiny.
const greedyGpt2 = JSON.parse(readFileSync(`${ROOT}tests/reference/fixtures/generation/gpt2.json`, 'utf8')) as {
  prompt: number[];
  continuation: number[];
};

const SPEC = {
  vocabSize: 40,
  dModel: 16,
  heads: 4,
  layers: 2,
  ffnDim: 32,
  maxSeq: 24,
  positions: 'learned',
  causal: true,
  norm: 'pre',
  finalNorm: true,
  activation: 'gelu_tanh',
  head: 'tied',
} as const;

function argmaxOfFullForward(model: Model, ids: number[]): number {
  const out = model.forward({ ids: Int32Array.from(ids), batch: 1, seq: ids.length, logits: 'last' });
  const logits = out.logits!;
  let best = 0;
  for (let i = 1; i < logits.length; i++) if (logits[i] > logits[best]) best = i;
  return best;
}

function errorOf(f: () => unknown): AttentionError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(AttentionError);
    return e as AttentionError;
  }
  throw new Error('expected an AttentionError');
}

describe.each(BUILDS)('generate (%s)', (build) => {
  it('greedy steps are the argmax of a full forward; steps report their parts', async () => {
    const engine = await engineFor(build);
    const model = engine.createModel(SPEC, { seed: 3 });
    const gen = model.generate({ ids: [1, 2, 3], maxNewTokens: 6, temperature: 0, topCandidates: 4 });
    expect(gen.promptLength).toBe(3);
    while (!gen.done) {
      const before = gen.tokens;
      const step = gen.step();
      expect(step.token).toBe(argmaxOfFullForward(model, before));
      expect(step.position).toBe(before.length);
      expect(step.piece).toBeNull();
      expect(step.candidates).toHaveLength(4);
      expect(step.candidates[0].probability).toBeGreaterThanOrEqual(step.candidates[1].probability);
      expect(step.entropy).toBeGreaterThan(0);
      expect(step.attention).toHaveLength(2);
      expect(step.attention[0]).toHaveLength(4);
      expect(step.attention[1][3]).toHaveLength(before.length + 1);
      const sum = step.attention[1][3].reduce((a, b) => a + b, 0);
      expect(sum).toBeCloseTo(1, 5);
      // learned positions, H_kv = H = 4, d_h = 4: 2 (K, V) x 4 x 4 x 4 bytes per position
      expect(step.cacheBytes).toEqual([128 * (before.length + 1), 128 * (before.length + 1)]);
      expect(step.ms).toBeGreaterThanOrEqual(0);
    }
    expect(gen.tokens).toHaveLength(9);
    gen.dispose();
    model.dispose();
  });

  it('the same seed gives the same tokens; fork keeps the prefix and shares nothing', async () => {
    const engine = await engineFor(build);
    const model = engine.createModel(SPEC, { seed: 4 });
    const settings = { ids: [5, 6], maxNewTokens: 8, temperature: 1.2, topK: 12, topP: 0.95, minP: 0.01, seed: 9 };
    const run = (seed: number) => {
      const g = model.generate({ ...settings, seed });
      while (!g.done) g.step();
      const tokens = g.tokens;
      g.dispose();
      return tokens;
    };
    expect(run(9)).toEqual(run(9));
    expect(run(9)).not.toEqual(run(10));

    const parent = model.generate({ ...settings, temperature: 0 });
    parent.step();
    parent.step();
    const tokens = parent.tokens;
    const child = parent.fork(3, 7);
    expect(child.tokens).toEqual([...tokens.slice(0, 3), 7]);
    child.step();
    parent.dispose(); // the child lives on
    expect(child.step().position).toBe(5);
    expect(() => parent.tokens).toThrow(AttentionError);
    child.dispose();
    model.dispose();
  });

  it('stops at a stop id, a stop string and maxNewTokens', async () => {
    const engine = await engineFor(build);
    const model = engine.createModel(SPEC, { seed: 3 });
    const greedy = model.generate({ ids: [1, 2, 3], maxNewTokens: 6, temperature: 0 });
    const first = greedy.step().token;
    greedy.dispose();
    const byId = model.generate({ ids: [1, 2, 3], maxNewTokens: 6, temperature: 0, stop: [first] });
    expect(byId.step().done).toBe(true);
    expect(byId.done).toBe(true);
    expect(errorOf(() => byId.step()).field).toBe('generation');
    byId.dispose();
    const tokenizer = { decode: (ids: ArrayLike<number>) => Array.from(ids, (i) => `<${i}>`).join('') };
    const byText = model.generate({ ids: [1, 2, 3], maxNewTokens: 6, temperature: 0, stop: [`<${first}>`], tokenizer });
    const step = byText.step();
    expect(step.piece).toBe(`<${first}>`);
    expect(step.done).toBe(true);
    byText.dispose();
    model.dispose();
  });

  it("decodes each id's piece once per tokenizer, across generations and forks", async () => {
    const engine = await engineFor(build);
    const model = engine.createModel(SPEC, { seed: 3 });
    const decoded: number[] = [];
    const tokenizer = {
      decode: (ids: ArrayLike<number>) => {
        decoded.push(...Array.from(ids));
        return Array.from(ids, (i) => `<${i}>`).join('');
      },
    };
    const run = (gen: ReturnType<Model['generate']>) =>
      Array.from({ length: 3 }, () => gen.step()).flatMap((s) => [
        [s.token, s.piece],
        ...s.candidates.map((c) => [c.token, c.piece]),
      ]);
    const first = model.generate({ ids: [1, 2, 3], maxNewTokens: 6, temperature: 0, tokenizer });
    const pieces = run(first);
    for (const [token, piece] of pieces) expect(piece).toBe(`<${token}>`);
    expect(new Set(decoded).size).toBe(decoded.length); // each id decoded once
    expect(decoded.length).toBe(new Set(pieces.map(([token]) => token)).size);
    const before = decoded.length;
    const again = model.generate({ ids: [1, 2, 3], maxNewTokens: 6, temperature: 0, tokenizer });
    expect(run(again)).toEqual(pieces); // the same steps, no id decoded again
    const fork = first.fork(3, pieces[0][0] as number);
    fork.step();
    expect(decoded.length).toBe(before);
    // Another decoder's pieces are its own.
    const other = model.generate({ ids: [1, 2, 3], maxNewTokens: 6, temperature: 0, tokenizer: { decode: () => 'x' } });
    expect(other.step().piece).toBe('x');
    [first, again, fork, other].forEach((g) => g.dispose());
    model.dispose();
  });

  it('bad settings are coded errors naming the field', async () => {
    const engine = await engineFor(build);
    const model = engine.createModel(SPEC, { seed: 3 });
    const bad = (options: object) => errorOf(() => model.generate({ ids: [1, 2], ...options }));
    expect(bad({ temperature: -1 })).toMatchObject({ code: 'out_of_range', field: 'temperature', value: -1 });
    expect(bad({ topP: 0 })).toMatchObject({ code: 'out_of_range', field: 'topP', value: 0 });
    expect(bad({ topP: 1.5 })).toMatchObject({ field: 'topP' });
    expect(bad({ topK: -2 })).toMatchObject({ field: 'topK', value: -2 });
    expect(bad({ minP: 2 })).toMatchObject({ field: 'minP' });
    expect(bad({ maxNewTokens: 23 })).toMatchObject({ code: 'out_of_range', field: 'maxNewTokens', value: 23 });
    expect(bad({ ids: [40] })).toMatchObject({ field: 'ids' });
    expect(bad({ stop: ['x'] })).toMatchObject({ field: 'stop' }); // a stop string needs a tokenizer
    const gen = model.generate({ ids: [1, 2], maxNewTokens: 3, temperature: 0 });
    expect(errorOf(() => gen.fork(2, 1))).toMatchObject({ code: 'out_of_range', field: 'position', value: 2 });
    expect(errorOf(() => gen.fork(-1, 1))).toMatchObject({ field: 'position' });
    expect(errorOf(() => gen.fork(0, 40))).toMatchObject({ field: 'token' });
    gen.dispose();
    expect(errorOf(() => gen.step())).toMatchObject({ code: 'disposed', field: 'generation' });
    const encoder = engine.createModel({ ...SPEC, causal: false });
    expect(errorOf(() => encoder.generate({ ids: [1] })).field).toBe('model');
    encoder.dispose();
    model.dispose();
  });

  it("a checkpoint generates PyTorch's greedy tokens, with their pieces, and stops at a stop string", async () => {
    const engine = await engineFor(build);
    const m = await engine.loadPretrained({ files: gpt2TinyFiles() });
    // A fresh model's first step and later ones give the same bits: a weight is packed on its
    // second use, and the packed path must not change a row's sums.
    const firstCandidates = () => {
      const g = m.generate({ ids: greedyGpt2.prompt, maxNewTokens: 1, topK: 40 });
      const { candidates, entropy } = g.step();
      g.dispose();
      return { candidates, entropy };
    };
    const fresh = firstCandidates();
    expect(firstCandidates()).toEqual(fresh);
    expect(firstCandidates()).toEqual(fresh);
    const gen = m.generate({ ids: greedyGpt2.prompt, maxNewTokens: 20, temperature: 0 });
    const pieces: string[] = [];
    while (!gen.done) pieces.push(gen.step().piece!);
    expect(gen.tokens.slice(greedyGpt2.prompt.length)).toEqual(greedyGpt2.continuation);
    expect(pieces.join('')).toBe(m.tokenizer.decode(greedyGpt2.continuation));
    gen.dispose();
    // A stop string: the text of the first three new tokens ends the generation there.
    const stop = m.tokenizer.decode(greedyGpt2.continuation.slice(0, 3));
    const stopped = m.generate({ ids: greedyGpt2.prompt, maxNewTokens: 20, temperature: 0, stop: [stop] });
    let steps = 0;
    while (!stopped.done) {
      stopped.step();
      steps++;
    }
    expect(steps).toBeLessThanOrEqual(3);
    expect(m.tokenizer.decode(stopped.tokens.slice(greedyGpt2.prompt.length))).toContain(stop);
    stopped.dispose();
    m.dispose();
  });

  it('a disposed generation leaves the heap where it was', async () => {
    const engine = await engineFor(build);
    const model = engine.createModel(SPEC, { seed: 3 });
    // Weights are packed for the fast GEMM on their second use: two passes first.
    for (let i = 0; i < 2; i++) model.forward({ ids: Int32Array.from([1, 2]), batch: 1, seq: 2 });
    const heap = engine.heapBytesInUse();
    const gen = model.generate({ ids: [1, 2, 3], maxNewTokens: 10, temperature: 0.8, seed: 1 });
    for (let i = 0; i < 5; i++) gen.step();
    const fork = gen.fork(4, 2);
    fork.step();
    expect(engine.heapBytesInUse()).toBeGreaterThan(heap);
    gen.dispose();
    fork.dispose();
    expect(engine.heapBytesInUse()).toBe(heap);
    expect(() => model.generate({ ids: [1], temperature: -1 })).toThrow(AttentionError);
    expect(engine.heapBytesInUse()).toBe(heap);
    model.dispose();
  });
});
