// The one-tag element's engine (dist/element-engine.js, wasm/src/element-engine.ts) in
// Node: the SIMD build linked without the pretrained loaders, its .wasm gzip-compressed in
// the script. It computes what the package's SIMD build computes, trains, and refuses a
// runtime without wasm SIMD (or without DecompressionStream) with a sentence; the full
// engine its on-demand script hands over (a factory) loads pretrained checkpoints.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  AttentionError,
  elementEngineProblem,
  findStage,
  loadAttention,
  type Factory,
} from '../../dist/element-engine.js';
import { loadAttention as loadPackage } from '../../dist/node.js';
// @ts-ignore -- emcc glue with the gzip-compressed .wasm built in (what the on-demand script holds), typed by Factory
import createFull from '../../dist/wasm/attention-simd-gzip-inline.mjs';
import { ROOT } from './helpers.js';

const texts = ['the cat sat on the mat', 'a dog'];

describe("the element's engine", () => {
  it("computes what the package's SIMD build computes, bit for bit", async () => {
    const element = await loadAttention();
    const simd = await loadPackage({ build: 'simd', relaxedSimd: false });
    expect(element.build).toBe('simd');
    expect(element.kernels.gemm).toBe('gemm_f32_5x8_wasmsimd');
    const config = { dModel: 32, heads: 4, layers: 2 };
    const a = element.run({ texts, mode: 'decoder', config });
    const b = simd.run({ texts, mode: 'decoder', config });
    for (const stage of ['decoder.self_attn.weights', 'decoder.output']) {
      const x = findStage(a, stage, 1)!;
      expect(x.shape).toEqual(findStage(b, stage, 1)!.shape);
      expect(Array.from(x.data)).toEqual(Array.from(findStage(b, stage, 1)!.data));
    }
  });

  it('trains (the element trains live on the page)', async () => {
    const engine = await loadAttention();
    const trainer = engine.createTrainer({
      spec: { dModel: 32, heads: 2, layers: 1, ffnDim: 64, vocabSize: 8, maxSeq: 9, causal: true },
      task: { name: 'reverse', length: 4, symbols: 6 },
      optimizer: { lr: 3e-3, weightDecay: 0, warmup: 10 },
      seed: 1,
    });
    const before = trainer.evaluate().loss;
    expect(trainer.step(60).step).toBe(60);
    expect(trainer.evaluate().loss).toBeLessThan(before);
    trainer.dispose();
  });

  it('leaves out the head tools: model.patch rejects with a coded error naming the missing method', async () => {
    const engine = await loadAttention();
    const model = engine.createModel({ vocabSize: 8, dModel: 16, heads: 2, layers: 1, ffnDim: 16, maxSeq: 8 });
    const patched = model.patch({ clean: [1, 2], corrupted: [1, 3], tokens: [2, 3] });
    await expect(patched).rejects.toBeInstanceOf(AttentionError);
    await expect(patched).rejects.toMatchObject({ code: 'invalid_argument', field: 'startPatching' });
    model.dispose();
  });

  it('with the full engine (the on-demand script hands over its factory), loads a pretrained checkpoint', async () => {
    const dir = `${ROOT}tests/reference/fixtures/pretrained/gpt2-tiny/`;
    const files = Object.fromEntries(
      readdirSync(dir)
        .filter((f) => f !== 'expected.json')
        .map((f) => [f, new Uint8Array(readFileSync(dir + f))]),
    );
    const full = await loadAttention({ factory: createFull as Factory });
    const model = await full.loadPretrained({ files });
    expect([model.spec.layers, model.spec.heads]).toEqual([2, 4]);
    model.dispose();
  });

  it('says why a runtime without wasm SIMD, or without DecompressionStream, cannot run it: an AttentionError, not a trap', async () => {
    expect(elementEngineProblem()).toBeNull();
    const validate = WebAssembly.validate;
    WebAssembly.validate = () => false;
    try {
      const problem = elementEngineProblem();
      expect(problem).toMatch(/^This attention playground needs WebAssembly SIMD, which this browser does not support/);
      const error = await loadAttention().then(
        () => null,
        (e: unknown) => e as AttentionError,
      );
      expect(error).toBeInstanceOf(AttentionError);
      expect([error!.message, error!.field, error!.value]).toEqual([problem, 'build', 'simd']);
    } finally {
      WebAssembly.validate = validate;
    }
    const stream = globalThis.DecompressionStream;
    // @ts-expect-error -- a runtime without it (Firefox before 113)
    delete globalThis.DecompressionStream;
    try {
      expect(elementEngineProblem()).toMatch(/needs DecompressionStream to unpack its engine/);
    } finally {
      globalThis.DecompressionStream = stream;
    }
  });

  it('ablates heads by zero, and leaves MLP and mean ablation and the ablation ranking to the full engine', async () => {
    const engine = await loadAttention();
    const model = engine.createModel({ vocabSize: 8, dModel: 16, heads: 2, layers: 1, ffnDim: 16, maxSeq: 8 });
    const input = { ids: Int32Array.from([1, 2, 3]), batch: 1, seq: 3 };
    const off = model.forward({ ...input, ablate: [{ layer: 0, head: 1 }] }).logits!;
    expect(off.some((v, i) => v !== model.forward(input).logits![i])).toBe(true);
    for (const [call, field] of [
      [() => model.forward({ ...input, ablateMlps: [0] }), 'forwardAblated'],
      [() => model.forward({ ...input, ablation: 'mean', meanOver: [[1, 2, 3]] }), 'forwardAblated'],
      [() => model.ablationRanking({ ids: [1, 2, 3], token: 2 }), 'ablationRanking'],
    ] as const) {
      let error: unknown = null;
      try {
        call();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(AttentionError);
      expect(error).toMatchObject({ code: 'invalid_argument', field });
    }
    model.dispose();
  });
});
