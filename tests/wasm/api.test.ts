// The public API in Node, both builds: what run() returns, every documented error,
// and that the module keeps working and does not leak.
import { describe, expect, it } from 'vitest';
import { AttentionError, DEFAULT_CONFIG, findStage, type MultiHeadAttentionInput } from '../../dist/node.js';
import { BUILDS, engineFor } from './helpers.js';

const E = 8;
function validInput(): MultiHeadAttentionInput {
  const ramp = (n: number, k: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * k) * 0.3);
  return {
    query: ramp(2 * 3 * E, 0.7), batch: 2, querySeq: 3, embedDim: E, heads: 2,
    inProjWeight: ramp(3 * E * E, 1.3), inProjBias: ramp(3 * E, 0.1),
    outProjWeight: ramp(E * E, 2.1), outProjBias: ramp(E, 0.4),
  };
}

// [what, input override, message pattern]
const BAD_MHA: [string, Partial<Record<keyof MultiHeadAttentionInput, unknown>>, RegExp][] = [
  ['heads not dividing embedDim', { heads: 3 }, /heads \(3\) must divide embedDim \(8\)/],
  ['zero heads', { heads: 0 }, /heads must be between 1 and 8, got 0/],
  ['fractional batch', { batch: 1.5 }, /batch must be a whole number, got 1\.5/],
  ['NaN querySeq', { querySeq: NaN }, /querySeq must be a whole number, got NaN/],
  ['negative embedDim', { embedDim: -8 }, /embedDim must be between 1 and 8192, got -8/],
  ['string size', { batch: '2' }, /batch must be a whole number, got "2"/],
  ['query too short', { query: new Float32Array(5) }, /query has 5 elements, expected \(B, Sq, E\) = \(2, 3, 8\) = 48/],
  ['query as a plain array', { query: [1, 2, 3] }, /query must be a Float32Array, got Array\(3\)/],
  ['query as Float64Array', { query: new Float64Array(48) }, /query must be a Float32Array, got Float64Array\(48\)/],
  ['in-proj weight of the wrong size', { inProjWeight: new Float32Array(10) }, /inProjWeight has 10 elements, expected \(3E, E\) = \(24, 8\) = 192/],
  ['missing out-proj bias', { outProjBias: undefined }, /outProjBias must be a Float32Array, got undefined/],
  ['key padding mask of the wrong length', { keyPaddingMask: new Uint8Array(2) }, /keyPaddingMask has 2 elements, expected \(B, Sk\) = \(2, 3\) = 6/],
  ['key padding mask as floats', { keyPaddingMask: new Float32Array(6) }, /keyPaddingMask must be a Uint8Array/],
  ['attn mask of the wrong shape', { attnMask: new Uint8Array(4) }, /attnMask has 4 elements, expected \(Sq, Sk\) = \(3, 3\) = 9/],
  ['keySeq without key', { keySeq: 5 }, /keySeq \(5\) differs from querySeq \(3\) but no key was given/],
  ['causal as a string', { causal: 'yes' }, /causal must be true or false, got "yes"/],
  ['unknown argument', { quary: new Float32Array(1) } as never, /unknown multiHeadAttention argument 'quary'/],
  ['huge sizes', { batch: 65536, querySeq: 65536 }, /needs about \d+ MiB of working memory; the limit is 256 MiB/],
];

const BAD_RUN: [string, unknown, RegExp][] = [
  ['unknown mode', { texts: ['a'], mode: 'bidirectional' }, /mode must be one of 'encoder', 'decoder', 'cross', got "bidirectional"/],
  ['texts not an array', { texts: 'the cat' }, /texts must be an array of strings, got "the cat"/],
  ['no texts', { texts: [] }, /texts is empty/],
  ['a number among texts', { texts: ['a', 3] }, /texts\[1\] must be a string, got 3/],
  ['only whitespace', { texts: ['   \t'] }, /the text is empty: type at least one word/],
  ['too many tokens', { texts: ['w '.repeat(129)] }, /more than 128 tokens/],
  ['too many texts', { texts: Array(17).fill('a') }, /maximum batch is 16/],
  ['100,000 characters', { texts: ['a'.repeat(100_000)] }, /texts\[0\] is 100000 characters long; the limit is 8192 bytes/],
  ['heads not dividing dModel', { texts: ['a'], config: { dModel: 10, heads: 4 } }, /heads \(4\) must divide dModel \(10\)/],
  ['NaN in config', { texts: ['a'], config: { layers: NaN } }, /layers must be a whole number, got NaN/],
  ['too many layers', { texts: ['a'], config: { layers: 13 } }, /layers must be between 1 and 12, got 13/],
  ['unknown preset', { texts: ['a'], config: { preset: 'trained' } }, /preset must be one of 'random', 'identity', 'positional'/],
  ['misspelt setting', { texts: ['a'], config: { dmodel: 32 } }, /unknown config setting 'dmodel'/],
  ['cross without source', { texts: ['a'], mode: 'cross' }, /mode 'cross' needs source/],
  ['cross with unpaired source', { texts: ['a', 'b'], mode: 'cross', source: ['x'] }, /source has 1 sentences but texts has 2/],
  ['positional preset with d_k 1', { texts: ['a'], config: { preset: 'positional', dModel: 8, heads: 8 } }, /positional preset needs d_k/],
  ['too large a trace', { texts: Array(16).fill('w '.repeat(128)), config: { dModel: 1024, heads: 64, layers: 12 } }, /the limit is 256 MiB/],
];

describe.each(BUILDS)('%s build', (build) => {
  it('runs the playground model with the documented defaults', async () => {
    const engine = await engineFor(build);
    const trace = engine.run({ texts: ['the cat sat on the mat', 'a dog'] });
    expect(trace.config).toEqual(DEFAULT_CONFIG);
    expect(trace.mode).toBe('encoder');
    expect(trace.tokens).toEqual([['the', 'cat', 'sat', 'on', 'the', 'mat'], ['a', 'dog']]);
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
    expect(masked.data[((1 * 4) * 6) * 6 + 5]).toBe(-Infinity);
  });

  it('runs decoder mode with a causal triangle and cross mode with Sq x Sk', async () => {
    const engine = await engineFor(build);
    const dec = engine.run({ texts: ['one two three'], mode: 'decoder', config: { dModel: 16, heads: 2 } });
    const w = findStage(dec, 'decoder.self_attn.weights', 0)!;
    for (let i = 0; i < 3; i++) for (let j = i + 1; j < 3; j++) expect(w.data[i * 3 + j]).toBe(0);
    const cross = engine.run({ texts: ['le chat'], mode: 'cross', source: ['the black cat sat'], config: { dModel: 16, heads: 2 } });
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

  it.each(BAD_MHA)('multiHeadAttention rejects %s with a clear error', async (_, override, message) => {
    const engine = await engineFor(build);
    const input = { ...validInput(), ...override } as MultiHeadAttentionInput;
    expect(() => engine.multiHeadAttention(input)).toThrow(AttentionError);
    expect(() => engine.multiHeadAttention(input)).toThrow(message);
    const ok = engine.multiHeadAttention(validInput());  // still usable
    expect(ok.output.length).toBe(48);
    expect(Array.from(ok.output).every(Number.isFinite)).toBe(true);
  });

  it.each(BAD_RUN)('run rejects %s with a clear error', async (_, input, message) => {
    const engine = await engineFor(build);
    expect(() => engine.run(input as never)).toThrow(message);
    expect(engine.run({ texts: ['still works'] }).tokens).toEqual([['still', 'works']]);
  });

  it('does not leak: 10,000 calls leave the heap where it started', async () => {
    const engine = await engineFor(build);
    const input = validInput();
    const texts = { texts: ['the cat sat'], config: { dModel: 16, heads: 2, layers: 1 } };
    engine.multiHeadAttention(input);
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
