// The public API in Node, both builds: what run() returns in each mode, and that
// the module does not leak. Bad input is in hostile.test.ts.
import { describe, expect, it } from 'vitest';
import { DEFAULT_CONFIG, findStage, loadAttention } from '../../dist/node.js';
import { BUILDS, engineFor, smallAttentionInput } from './helpers.js';

const validInput = smallAttentionInput;

describe.each(BUILDS)('%s build', (build) => {
  it('runs the playground model with the documented defaults', async () => {
    const engine = await engineFor(build);
    const trace = engine.run({ texts: ['the cat sat on the mat', 'a dog'] });
    expect(trace.config).toEqual(DEFAULT_CONFIG);
    expect(trace.mode).toBe('encoder');
    expect(trace.tokens).toEqual([
      ['the', 'cat', 'sat', 'on', 'the', 'mat'],
      ['a', 'dog'],
    ]);
    const weights = findStage(trace, 'encoder.self_attn.weights', 1)!;
    expect(weights.axes).toEqual(['B', 'H', 'Sq', 'Sk']);
    expect(weights.shape).toEqual([2, 4, 6, 6]);
    expect(weights.data).toBeInstanceOf(Float32Array);
    // Sequence 1 has 2 tokens: keys 2..5 are padding, weight exactly 0; rows sum to 1.
    for (let h = 0; h < 4; h++)
      for (let i = 0; i < 6; i++) {
        const row = weights.data.subarray(((1 * 4 + h) * 6 + i) * 6, ((1 * 4 + h) * 6 + i + 1) * 6);
        expect(Array.from(row.subarray(2))).toEqual([0, 0, 0, 0]);
        expect(row[0] + row[1]).toBeCloseTo(1, 6);
      }
    const masked = findStage(trace, 'encoder.self_attn.masked', 0)!;
    expect(masked.data[1 * 4 * 6 * 6 + 5]).toBe(-Infinity);
  });

  it('runs decoder mode with a causal triangle and cross mode with Sq x Sk', async () => {
    const engine = await engineFor(build);
    const dec = engine.run({ texts: ['one two three'], mode: 'decoder', config: { dModel: 16, heads: 2 } });
    const w = findStage(dec, 'decoder.self_attn.weights', 0)!;
    for (let i = 0; i < 3; i++) for (let j = i + 1; j < 3; j++) expect(w.data[i * 3 + j]).toBe(0);
    const cross = engine.run({
      texts: ['le chat'],
      mode: 'cross',
      source: ['the black cat sat'],
      config: { dModel: 16, heads: 2 },
    });
    expect(cross.sourceTokens).toEqual([['the', 'black', 'cat', 'sat']]);
    expect(findStage(cross, 'decoder.cross_attn.weights', 0)!.shape).toEqual([1, 2, 2, 4]);
  });

  it('treats any text as data: HTML, emoji, RTL, NUL and lone surrogates', async () => {
    const engine = await engineFor(build);
    const trace = engine.run({ texts: ['<img src=x onerror=alert(1)>', '👩‍💻 שלום 猫\u0000x', 'bad \uD800 half'] });
    expect(trace.tokens[0]).toContain('onerror');
    expect(trace.tokens[1]).toEqual(['👩‍💻', 'שלום', '猫', 'x']);
    expect(trace.tokens[2]).toEqual(['bad', '\uFFFD', 'half']);
  });

  it('prepared weights give exactly the same result, and are disposed cleanly', async () => {
    const engine = await engineFor(build);
    const { inProjWeight, inProjBias, outProjWeight, outProjBias, ...rest } = validInput();
    const arrays = {
      inProjWeight: inProjWeight!,
      inProjBias: inProjBias!,
      outProjWeight: outProjWeight!,
      outProjBias: outProjBias!,
    };
    const prepared = engine.prepareWeights({ embedDim: 8, ...arrays });
    expect(prepared.embedDim).toBe(8);
    const direct = engine.multiHeadAttention(validInput());
    const viaPrepared = engine.multiHeadAttention({ ...rest, weights: prepared });
    expect(Array.from(viaPrepared.output)).toEqual(Array.from(direct.output));
    expect(Array.from(viaPrepared.weights!)).toEqual(Array.from(direct.weights!));
    expect(() => engine.multiHeadAttention({ ...rest, weights: prepared, inProjBias: arrays.inProjBias })).toThrow(
      /give either weights \(prepared\) or the weight arrays, not both \(also given: inProjBias\)/,
    );
    expect(() =>
      engine.multiHeadAttention({ ...rest, embedDim: 4, query: new Float32Array(24), heads: 2, weights: prepared }),
    ).toThrow(/weights were prepared for embedDim 8, but embedDim is 4/);
    const other = await loadAttention({ build });
    expect(() => other.multiHeadAttention({ ...rest, weights: prepared })).toThrow(/must come from this engine/);
    expect(() => engine.prepareWeights({ embedDim: 8, ...arrays, inProjBias: new Float32Array(3) })).toThrow(
      /inProjBias has 3 elements, expected \(3E\) = \(24\) = 24/,
    );
    prepared.dispose();
    expect(prepared.disposed).toBe(true);
    expect(() => engine.multiHeadAttention({ ...rest, weights: prepared })).toThrow(
      /these prepared weights were disposed/,
    );
    prepared.dispose(); // twice is harmless
    const before = engine.heapBytesInUse();
    for (let i = 0; i < 1000; i++) {
      const p = engine.prepareWeights({ embedDim: 8, ...arrays });
      engine.multiHeadAttention({ ...rest, weights: p });
      p.dispose();
    }
    expect(engine.heapBytesInUse()).toBe(before);
  });

  it('does not leak: 10,000 calls leave the heap where it started', async () => {
    const engine = await engineFor(build);
    const input = validInput();
    const texts = { texts: ['the cat sat'], config: { dModel: 16, heads: 2, layers: 1 } };
    engine.multiHeadAttention(input);
    // A model's weights are packed for the fast GEMM on their second use (param.hpp):
    // the baseline is taken once that cache exists; after it, nothing may grow.
    engine.run(texts);
    engine.run(texts);
    const inUse = engine.heapBytesInUse();
    const memory = engine.memoryBytes();
    for (let i = 0; i < 10_000; i++) {
      engine.multiHeadAttention(input);
      if (i % 10 === 0) engine.run(texts);
      if (i % 100 === 0) expect(() => engine.run({ texts: ['a'], config: { heads: 3 } })).toThrow();
    }
    expect(engine.heapBytesInUse()).toBe(inUse);
    expect(engine.memoryBytes()).toBe(memory);
  });
});

describe('loading', () => {
  // A runtime without wasm SIMD, as WebKit with JSC_useWasmSIMD=0 (tests/browsers/ checks that engine itself):
  // the feature probe fails. Asking for a SIMD build there must say so, not abort on a CompileError.
  it.each([
    ['attention-playground', 'simd'],
    ['attention-playground', 'simd-threads'],
    ['attention-playground/inline', 'simd'],
  ])(
    "%s: build '%s' is refused with an AttentionError where the runtime has no wasm SIMD; 'auto' falls back to scalar",
    async (entry, build) => {
      const api = await import(entry === 'attention-playground' ? '../../dist/node.js' : '../../dist/inline.js');
      const validate = WebAssembly.validate;
      WebAssembly.validate = () => false;
      try {
        const error = (await api.loadAttention({ build }).then(
          () => null,
          (e: unknown) => e,
        )) as InstanceType<typeof api.AttentionError>;
        expect(error).toBeInstanceOf(api.AttentionError);
        expect({ code: error.code, field: error.field, value: error.value }).toEqual({
          code: 'invalid_argument',
          field: 'build',
          value: build,
        });
        expect(error.message).toBe(
          `build '${build}' needs WebAssembly SIMD, which this runtime does not support: use build 'auto' or 'scalar'`,
        );
        const fallback = await api.loadAttention();
        expect(fallback.build).toBe('scalar');
        fallback.dispose();
      } finally {
        WebAssembly.validate = validate;
      }
    },
  );

  it('loads the relaxed-SIMD twin exactly where the runtime has relaxed SIMD, and says which kernels run', async () => {
    const { supportsRelaxedSimd } = await import('../../dist/node.js');
    const engine = await loadAttention({ build: 'simd' });
    expect(engine.kernels.relaxedSimd).toBe(supportsRelaxedSimd());
    expect(engine.kernels.gemm).toBe(supportsRelaxedSimd() ? 'gemm_f32_5x8_wasmrelaxed' : 'gemm_f32_5x8_wasmsimd');
    expect(engine.kernels).toMatchObject({ softmax: 'softmax_rows_wasmsimd', geluTanh: 'gelu_tanh_wasmsimd' });
    const plain = await loadAttention({ build: 'simd', relaxedSimd: false });
    expect(plain.kernels).toMatchObject({ gemm: 'gemm_f32_5x8_wasmsimd', relaxedSimd: false });
    const scalar = await loadAttention({ build: 'scalar' });
    expect(scalar.kernels).toMatchObject({ gemm: 'gemm_f32_eigen', relaxedSimd: false });
  });

  it("caps the int8 GEMV's dot at int8Dot and refuses another value naming the field", async () => {
    const { AttentionError } = await import('../../dist/node.js');
    // Without relaxed SIMD the plain dot runs whatever the cap (the relaxed dots: relaxed-engine.test.ts, e2e int8-dot)
    const plain = await loadAttention({ build: 'simd', relaxedSimd: false, int8Dot: 'unsigned' });
    expect(plain.kernels.int8Dot).toBe('plain');
    const capped = await loadAttention({ build: 'simd', int8Dot: 'plain' });
    expect(capped.kernels.int8Dot).toBe('plain');
    for (const int8Dot of ['vnni', 1, null]) {
      const error = await loadAttention({ build: 'simd', int8Dot } as never).then(
        () => null,
        (e: unknown) => e as InstanceType<typeof AttentionError>,
      );
      expect(error).toBeInstanceOf(AttentionError);
      expect(error).toMatchObject({ field: 'int8Dot', value: int8Dot });
      expect(error!.message).toMatch(/int8Dot must be one of 'unsigned', 'split', 'plain'/);
    }
  });

  it('refuses a bad relaxedSimd option, and relaxedSimd: true where it cannot be had, with an AttentionError', async () => {
    const { AttentionError, supportsRelaxedSimd } = await import('../../dist/node.js');
    const refusal = (options: object) =>
      loadAttention(options).then(
        () => null,
        (e: unknown) => e as InstanceType<typeof AttentionError>,
      );
    for (const options of [{ relaxedSimd: 'yes' }, { build: 'scalar', relaxedSimd: true }]) {
      const error = await refusal(options);
      expect(error).toBeInstanceOf(AttentionError);
      expect(error!.field).toBe('relaxedSimd');
    }
    const validate = WebAssembly.validate;
    WebAssembly.validate = (bytes) => !new Uint8Array(bytes as ArrayBuffer).includes(0x85) && validate(bytes); // SIMD, no relaxed SIMD
    try {
      expect(supportsRelaxedSimd()).toBe(false);
      const error = await refusal({ build: 'simd', relaxedSimd: true });
      expect(error).toBeInstanceOf(AttentionError);
      expect(error!.message).toMatch(/does not support WebAssembly relaxed SIMD/);
    } finally {
      WebAssembly.validate = validate;
    }
  });
});
