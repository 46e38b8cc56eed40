// Hostile input through the public API, one table: each entry is a call and its
// expected result, either an AttentionError whose message names the problem or a
// defined output. After every entry the engine must still answer a normal call
// exactly as before.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  AttentionError,
  ERROR_CODES,
  type AttentionEngine,
  type MultiHeadAttentionInput,
  type RunInput,
  type Trace,
} from '../../dist/node.js';
import { BUILDS, MHA_EMBED, engineFor, smallAttentionInput } from './helpers.js';

const E = MHA_EMBED;
const mha = smallAttentionInput;
const withValue = (array: Float32Array, index: number, value: number) => {
  const copy = array.slice();
  copy[index] = value;
  return copy;
};
const run = (input: unknown) => (engine: AttentionEngine) => engine.run(input as RunInput);
const attend = (override: Record<string, unknown>) => (engine: AttentionEngine) =>
  engine.multiHeadAttention({ ...mha(), ...override } as MultiHeadAttentionInput);
const tokensOf = (result: unknown) => (result as Trace).tokens;
const allFinite = (trace: Trace) =>
  trace.stages.every((s) => s.name.endsWith('.masked') || s.data.every(Number.isFinite));

function expectDistribution(result: unknown) {
  const { output, weights } = result as { output: Float32Array; weights: Float32Array };
  expect(output.every(Number.isFinite)).toBe(true);
  for (let row = 0; row < weights.length / 3; row++)
    expect(weights[row * 3] + weights[row * 3 + 1] + weights[row * 3 + 2]).toBeCloseTo(1, 6);
}

type Case = [string, (engine: AttentionEngine) => unknown, RegExp | ((result: unknown) => void)];

const CASES: Case[] = [
  // Text
  ['empty text', run({ texts: [''] }), /the text is empty: type at least one word/],
  ['whitespace only', run({ texts: [' \t\n\u00a0\u3000'] }), /the text is empty/],
  ['no texts at all', run({ texts: [] }), /texts is empty/],
  [
    '100,000 characters',
    run({ texts: ['a'.repeat(100_000)] }),
    /texts\[0\] is 100000 characters long; the limit is 8192 bytes/,
  ],
  ['more tokens than the maximum', run({ texts: ['w '.repeat(129)] }), /more than 128 tokens/],
  [
    'exactly the maximum of tokens',
    run({ texts: ['w '.repeat(128)] }),
    (r) => expect(tokensOf(r)[0]).toHaveLength(128),
  ],
  ['17 sentences', run({ texts: Array(17).fill('a') }), /maximum batch is 16/],
  ['emoji', run({ texts: ['I ❤️ 🐈‍⬛ 👍🏽'] }), (r) => expect(tokensOf(r)).toEqual([['I', '❤️', '🐈‍⬛', '👍🏽']])],
  ['CJK', run({ texts: ['我爱你。猫'] }), (r) => expect(tokensOf(r)).toEqual([['我', '爱', '你', '。', '猫']])],
  [
    'right-to-left',
    run({ texts: ['שלום עולם مرحبا'] }),
    (r) => expect(tokensOf(r)).toEqual([['שלום', 'עולם', 'مرحبا']]),
  ],
  [
    'zero-width characters',
    run({ texts: ['a\u200bb\u200dc\ufeffd'] }),
    (r) => expect(tokensOf(r)).toEqual([['a', 'b\u200dc', 'd']]),
  ],
  ['NUL characters', run({ texts: ['a\u0000b\u0000'] }), (r) => expect(tokensOf(r)).toEqual([['a', 'b']])],
  [
    'lone surrogates',
    run({ texts: ['x \ud800 y \udc00'] }),
    (r) => expect(tokensOf(r)).toEqual([['x', '\ufffd', 'y', '\ufffd']]),
  ],
  [
    'HTML and script text',
    run({ texts: ['<script>alert(1)</script><img src=x onerror=alert(2)>'] }),
    (r) => expect(tokensOf(r)[0].slice(0, 6)).toEqual(['<', 'script', '>', 'alert', '(', '1']),
  ],
  ['a non-string text', run({ texts: ['ok', { toString: () => 'x' }] }), /texts\[1\] must be a string, got object/],
  ['texts as a string', run({ texts: 'the cat' }), /texts must be an array of strings, got "the cat"/],
  ['input not an object', run(null), /run input must be an object, got null/],
  // Model settings
  ['huge d_model', run({ texts: ['a'], config: { dModel: 1e9 } }), /dModel must be between 1 and 1024, got 1000000000/],
  ['negative heads', run({ texts: ['a'], config: { heads: -4 } }), /heads must be between 1 and 64, got -4/],
  ['fractional layers', run({ texts: ['a'], config: { layers: 1.5 } }), /layers must be a whole number, got 1\.5/],
  ['NaN seed', run({ texts: ['a'], config: { seed: NaN } }), /seed must be a whole number, got NaN/],
  [
    'Infinity d_model',
    run({ texts: ['a'], config: { dModel: Infinity } }),
    /dModel must be a whole number, got Infinity/,
  ],
  [
    'heads not dividing d_model',
    run({ texts: ['a'], config: { dModel: 10, heads: 4 } }),
    /heads \(4\) must divide dModel \(10\)/,
  ],
  [
    'unknown mode',
    run({ texts: ['a'], mode: 'sideways' }),
    /mode must be one of 'encoder', 'decoder', 'cross', got "sideways"/,
  ],
  ['misspelt setting', run({ texts: ['a'], config: { dmodel: 32 } }), /unknown config setting 'dmodel'/],
  [
    'a trace too large for memory',
    run({ texts: Array(16).fill('w '.repeat(128)), config: { dModel: 1024, heads: 64, layers: 12 } }),
    /this forward pass would need about \d+ MiB; the limit is 256 MiB/,
  ],
  // Multi-head attention sizes and arrays
  [
    'huge batch and length',
    attend({ batch: 65536, querySeq: 65536 }),
    /needs about \d+ MiB of working memory; the limit is 256 MiB/,
  ],
  ['negative embedDim', attend({ embedDim: -8 }), /embedDim must be between 1 and 8192, got -8/],
  ['fractional batch', attend({ batch: 1.5 }), /batch must be a whole number, got 1\.5/],
  ['NaN querySeq', attend({ querySeq: NaN }), /querySeq must be a whole number, got NaN/],
  ['heads not dividing embedDim', attend({ heads: 3 }), /heads \(3\) must divide embedDim \(8\)/],
  [
    'query of the wrong length',
    attend({ query: new Float32Array(5) }),
    /query has 5 elements, expected \(B, Sq, E\) = \(2, 3, 8\) = 48/,
  ],
  ['query as a plain array', attend({ query: [1, 2, 3] }), /query must be a Float32Array, got Array\(3\)/],
  [
    'query as Float64Array',
    attend({ query: new Float64Array(48) }),
    /query must be a Float32Array, got Float64Array\(48\)/,
  ],
  [
    'weights of the wrong length',
    attend({ inProjWeight: new Float32Array(10) }),
    /inProjWeight has 10 elements, expected \(3E, E\) = \(24, 8\) = 192/,
  ],
  [
    'mask of the wrong type',
    attend({ keyPaddingMask: new Float32Array(6) }),
    /keyPaddingMask must be a Uint8Array, got Float32Array\(6\)/,
  ],
  [
    'mask of the wrong shape',
    attend({ attnMask: new Uint8Array(4) }),
    /attnMask has 4 elements, expected \(Sq, Sk\) = \(3, 3\) = 9/,
  ],
  [
    'a mask that blocks every key',
    attend({ keyPaddingMask: new Uint8Array(6).fill(1) }),
    (r) => {
      const { output, weights } = r as { output: Float32Array; weights: Float32Array };
      expect(weights.every((w) => w === 0)).toBe(true); // no NaN: zero weights, output = out_proj bias
      const bias = mha().outProjBias!;
      for (let row = 0; row < 6; row++)
        expect(Array.from(output.subarray(row * E, row * E + E))).toEqual(Array.from(bias));
    },
  ],
  [
    'causal plus a mask blocking the diagonal',
    attend({ causal: true, attnMask: Uint8Array.from([1, 0, 0, 0, 1, 0, 0, 0, 1]) }),
    (r) => {
      const { weights, output } = r as { output: Float32Array; weights: Float32Array };
      expect(Array.from(weights.subarray(0, 3))).toEqual([0, 0, 0]); // row 0 sees nothing
      expect(weights[3]).toBe(1); // row 1 sees only key 0
      expect(output.every(Number.isFinite)).toBe(true);
    },
  ],
  // q.k of ~1e30-sized vectors is ~1e60: float32 overflows, and that is said, not hidden.
  [
    '1e30 inside the query',
    attend({ query: withValue(mha().query, 5, 1e30) }),
    /numeric overflow: .* not finite in float32/,
  ],
  [
    '-1e30 inside the query',
    attend({ query: withValue(mha().query, 5, -1e30) }),
    /numeric overflow: .* not finite in float32/,
  ],
  [
    '3e38 everywhere in the query',
    attend({ query: new Float32Array(48).fill(3e38) }),
    /numeric overflow: .* not finite in float32/,
  ],
  // A query bias of 1e29 makes scores of ~1e28: huge but finite, and the softmax stays stable.
  [
    'scores near 1e29',
    attend({ inProjBias: withValue(withValue(mha().inProjBias!, 0, 1e29), 4, -1e29) }),
    (r) => expectDistribution(r),
  ],
  [
    'NaN inside the query',
    attend({ query: withValue(mha().query!, 7, NaN) }),
    /query\[7\] is NaN; inputs must be finite numbers/,
  ],
  [
    'Infinity inside the value',
    attend({ value: withValue(mha().query!, 2, Infinity) }),
    /value\[2\] is Infinity; inputs must be finite numbers/,
  ],
  [
    '-Infinity inside a weight',
    attend({ outProjWeight: withValue(mha().outProjWeight!, 0, -Infinity) }),
    /outProjWeight\[0\] is -Infinity/,
  ],
  ['unknown argument', attend({ quary: new Float32Array(1) }), /unknown multiHeadAttention argument 'quary'/],
];

describe.each(BUILDS)('%s build', (build) => {
  let engine: AttentionEngine;
  let baseline: { output: number[]; tokens: string[][]; weights: number[] };
  const normal = () => {
    const r = engine.multiHeadAttention(mha());
    const trace = engine.run({ texts: ['the cat sat', 'a dog'], config: { dModel: 16, heads: 2 } });
    return {
      output: Array.from(r.output),
      tokens: trace.tokens,
      weights: Array.from(trace.stages.find((s) => s.name === 'encoder.self_attn.weights')!.data),
    };
  };

  beforeAll(async () => {
    engine = await engineFor(build);
    baseline = normal();
  });

  it('has at least 30 hostile cases', () => expect(CASES.length).toBeGreaterThanOrEqual(30));

  it.each(CASES)('%s', (_, call, expected) => {
    if (expected instanceof RegExp) {
      let thrown: unknown;
      try {
        call(engine);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(AttentionError);
      expect((thrown as Error).message).toMatch(expected);
      // A code from the engine's list and the field as a string, from the error value (not the message).
      expect(ERROR_CODES).toContain((thrown as AttentionError).code);
      expect(typeof (thrown as AttentionError).field).toBe('string');
    } else {
      const result = call(engine);
      expected(result);
      if ((result as Trace).stages) expect(allFinite(result as Trace)).toBe(true);
    }
    expect(normal()).toEqual(baseline);
  });
});
