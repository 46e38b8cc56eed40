// The wasm engine (both builds) against PyTorch's nn.MultiheadAttention fixtures
// and against the native core's own trace.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { BUILDS, ROOT, engineFor, expectClose, f32, fixture } from './helpers.js';

const NATIVE_TRACE = `${ROOT}build/native-asan/attention_trace`;

describe.each(BUILDS)('%s build', (build) => {
  it('loads the build it was asked for', async () => {
    expect((await engineFor(build)).build).toBe(build);
  });

  it('matches PyTorch nn.MultiheadAttention on every fixture (1e-5)', async () => {
    const engine = await engineFor(build);
    const { cases } = fixture('mha.json');
    expect(cases.length).toBeGreaterThanOrEqual(7);
    for (const c of cases) {
      const r = engine.multiHeadAttention({
        query: f32(c.query),
        key: f32(c.key),
        value: f32(c.value),
        batch: c.batch,
        querySeq: c.query_len,
        keySeq: c.key_len,
        embedDim: c.embed_dim,
        heads: c.heads,
        inProjWeight: f32(c.in_proj_weight),
        inProjBias: f32(c.in_proj_bias),
        outProjWeight: f32(c.out_proj_weight),
        outProjBias: f32(c.out_proj_bias),
        keyPaddingMask: c.key_padding_mask ? Uint8Array.from(c.key_padding_mask) : undefined,
        attnMask: c.attn_mask ? Uint8Array.from(c.attn_mask) : undefined,
        causal: c.causal,
      });
      expect(r.shapes.weights).toEqual([c.batch, c.heads, c.query_len, c.key_len]);
      expectClose(r.output, c.expected_output);
      expectClose(r.weights!, c.expected_weights);
    }
  });

  const configurations: [string, string[], object, string[]?][] = [
    ['encoder, random', ['--d-model', '16', '--heads', '4', '--layers', '2'], { dModel: 16, heads: 4, layers: 2 }],
    [
      'decoder, gelu, pre-LN, no residual',
      [
        '--mode',
        'decoder',
        '--d-model',
        '12',
        '--heads',
        '3',
        '--activation',
        'gelu',
        '--norm',
        'pre',
        '--no-residual',
        '--seed',
        '7',
      ],
      { dModel: 12, heads: 3, activation: 'gelu', norm: 'pre', residual: false, seed: 7 },
    ],
    [
      'cross, positional preset, no scale',
      [
        '--mode',
        'cross',
        '--d-model',
        '16',
        '--heads',
        '4',
        '--preset',
        'positional',
        '--no-scale',
        '--source',
        'le chat noir',
        '--source',
        'un chien',
      ],
      { dModel: 16, heads: 4, preset: 'positional', scale: false },
      ['le chat noir', 'un chien'],
    ],
    [
      'identity preset, no positions',
      ['--preset', 'identity', '--no-positional', '--d-model', '8', '--heads', '2'],
      { preset: 'identity', positional: false, dModel: 8, heads: 2 },
    ],
  ];

  it.each(configurations)('gives the same trace as the native core: %s', async (_, args, config, source) => {
    expect(existsSync(NATIVE_TRACE), `${NATIVE_TRACE} (built by scripts/test.sh)`).toBe(true);
    const texts = ['the cat sat on the mat', 'a dog barked'];
    const mode = args.includes('--mode') ? args[args.indexOf('--mode') + 1] : 'encoder';
    const native = JSON.parse(execFileSync(NATIVE_TRACE, ['--json', ...args, ...texts], { encoding: 'utf8' }));
    const trace = (await engineFor(build)).run({ texts, mode: mode as never, source, config });
    expect(trace.tokens).toEqual(native.tokens);
    expect(trace.sourceTokens).toEqual(native.sourceTokens);
    expect(trace.stages.map((s) => `${s.layer}:${s.name}`)).toEqual(
      native.stages.map((s: { layer: number; name: string }) => `${s.layer}:${s.name}`),
    );
    trace.stages.forEach((stage, i) => {
      expect(stage.shape).toEqual(native.stages[i].shape);
      expect(stage.axes).toEqual(native.stages[i].axes);
      expectClose(stage.data, native.stages[i].data);
    });
  });
});
