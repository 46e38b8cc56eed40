// Models with named parameters through the npm package, both builds: PyTorch's
// state_dict names, weights from PyTorch-written safetensors, the same hidden states
// and logits as PyTorch (1e-5), weights written by the engine loaded back into
// PyTorch with load_state_dict(strict=True), strict loading, chosen stages, handles.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_SPEC, ENGINE, type ModelSpec } from '../../dist/node.js';
import { BUILDS, ROOT, engineFor, expectClose, fixture, thrown } from './helpers.js';

const MODELS = `${ROOT}tests/reference/fixtures/models/`;
const CASES = [
  'post_relu_sinusoidal',
  'pre_gelu_learned_causal_tied',
  'post_gelutanh_nopos_causal',
  'pre_relu_learned_eps',
  'encdec_post_sinusoidal',
  'encdec_pre_gelu_learned',
];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const modelFixture = (name: string): any => JSON.parse(readFileSync(`${MODELS}${name}.json`, 'utf8'));
const bytesOf = (file: string) => new Uint8Array(readFileSync(`${MODELS}${file}`));
// eslint-disable-next-line @typescript-eslint/no-explicit-any
const inputOf = (f: any) => ({
  ids: Int32Array.from(f.ids),
  batch: f.batch,
  seq: f.seq,
  lengths: f.lengths,
  ...(f.source_ids
    ? { sourceIds: Int32Array.from(f.source_ids), sourceSeq: f.source_seq, sourceLengths: f.source_lengths }
    : {}),
});

describe.each(BUILDS)('%s build', (build) => {
  it.each(CASES)('matches PyTorch: %s', async (name) => {
    const engine = await engineFor(build);
    const f = modelFixture(name);
    const model = engine.createModel(f.spec, { init: 'zeros' });
    expect(model.spec).toEqual({ ...DEFAULT_SPEC, ...f.spec }); // the fixtures predate the engine-only ablations
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    expect(model.parameters()).toEqual(f.parameters.map((p: any) => ({ ...p, storage: 'f32' }))); // a new model: float32
    model.loadWeights(bytesOf(`${name}.safetensors`));
    const out = model.forward(inputOf(f));
    expectClose(out.hidden, f.hidden);
    if (f.logits === null) expect(out.logits).toBeNull();
    else expectClose(out.logits!, f.logits);
    expect(out.trace).toBeNull();
    model.dispose();
  });

  it('loads F16 and BF16 files to exactly the values of their float32 twins', async () => {
    const engine = await engineFor(build);
    const f = modelFixture('post_relu_sinusoidal');
    for (const dtype of ['f16', 'bf16']) {
      const a = engine.createModel(f.spec),
        b = engine.createModel(f.spec);
      a.loadWeights(bytesOf(`post_relu_sinusoidal.${dtype}.safetensors`));
      b.loadWeights(bytesOf(`post_relu_sinusoidal.${dtype}_as_f32.safetensors`));
      expect(a.saveWeights()).toEqual(b.saveWeights());
      a.dispose();
      b.dispose();
    }
  });

  it('writes weights that PyTorch loads with load_state_dict(strict=True) and runs to the same outputs', async () => {
    const engine = await engineFor(build);
    const dir = mkdtempSync(join(tmpdir(), 'ap-roundtrip-'));
    for (const name of ['pre_gelu_learned_causal_tied', 'encdec_post_sinusoidal']) {
      const f = modelFixture(name);
      const model = engine.createModel(f.spec, { seed: 42 }); // the engine's own random weights
      const ours = model.forward(inputOf(f));
      writeFileSync(join(dir, 'weights.safetensors'), model.saveWeights());
      writeFileSync(join(dir, 'spec.json'), JSON.stringify(model.spec));
      writeFileSync(join(dir, 'input.json'), JSON.stringify(f));
      const line = execFileSync(
        '/usr/bin/python3',
        [
          `${ROOT}tests/reference/roundtrip.py`,
          join(dir, 'spec.json'),
          join(dir, 'weights.safetensors'),
          join(dir, 'input.json'),
        ],
        { encoding: 'utf8' },
      );
      const torch = JSON.parse(line);
      expect(torch.ok).toBe(true);
      expect(torch.parameters).toBe(model.parameters().length);
      expectClose(ours.hidden, torch.hidden);
      expectClose(ours.logits!, torch.logits);
      model.dispose();
    }
  });

  it('refuses a broken weights file with a code and the tensor, and keeps the model as it was', async () => {
    const engine = await engineFor(build);
    const f = modelFixture('post_relu_sinusoidal');
    const model = engine.createModel(f.spec, { seed: 5 });
    const before = model.saveWeights();
    const good = bytesOf('post_relu_sinusoidal.safetensors');
    const other = bytesOf('pre_relu_learned_eps.safetensors');
    const cases: [string, Uint8Array, string, string][] = [
      ['another model', other, 'missing_tensor', 'layers.1.self_attn.in_proj_weight'],
      ['truncated', good.slice(0, good.length - 10), 'bad_file', ''],
      ['header length beyond the file', Uint8Array.from([255, 255, 255, 0, 0, 0, 0, 0, 123]), 'bad_file', ''],
      ['not JSON', Uint8Array.from([4, 0, 0, 0, 0, 0, 0, 0, 123, 120, 120, 125]), 'bad_file', ''],
      ['empty', new Uint8Array(0), 'bad_file', ''],
    ];
    for (const [what, bytes, code, field] of cases) {
      const error = thrown(() => model.loadWeights(bytes));
      expect(error.code, what).toBe(code);
      if (field) {
        expect(error.field, what).toBe(field);
        expect(error.message, what).toContain(field);
      }
      expect(model.saveWeights(), what).toEqual(before);
    }
    expect(thrown(() => model.loadWeights('weights' as unknown as Uint8Array)).field).toBe('bytes');
    model.loadWeights(good);
    expect(model.saveWeights()).not.toEqual(before);
    model.dispose();
  });

  it('records the stages asked for, with their kinds and the masks by kind', async () => {
    const engine = await engineFor(build);
    const model = engine.createModel({ vocabSize: 10, dModel: 8, heads: 2, layers: 2, ffnDim: 16, causal: true });
    const input = { ids: Int32Array.from([1, 2, 3, 4, 5, 6, 0, 0]), batch: 2, seq: 4, lengths: [4, 2] };
    const some = model.forward({ ...input, record: { stages: ['*.weights', '*.mask', '*.mask.*'], layers: [1] } });
    const names = some.trace!.stages.map((s) => `${s.layer}:${s.name}`);
    expect(names).toEqual([
      '1:decoder.self_attn.mask.padding',
      '1:decoder.self_attn.mask.causal',
      '1:decoder.self_attn.mask',
      '1:decoder.self_attn.weights',
    ]);
    const kinds = Object.fromEntries(some.trace!.stages.map((s) => [s.name, [s.kind, s.mask]]));
    expect(kinds['decoder.self_attn.mask.padding']).toEqual(['mask', 'padding']);
    expect(kinds['decoder.self_attn.mask.causal']).toEqual(['mask', 'causal']);
    expect(kinds['decoder.self_attn.mask']).toEqual(['mask', 'combined']);
    expect(kinds['decoder.self_attn.weights']).toEqual(['weights', undefined]);
    const all = model.forward({ ...input, record: true });
    expect(all.trace!.stages.length).toBeGreaterThan(50);
    expect(all.trace!.stages.at(-1)!.name).toBe('logits');
    expect(all.logits).toEqual(model.forward(input).logits);
    // Every recorded name is its registry entry under its scope's prefix.
    const registry = new Set(engine.stageRegistry.map((s) => s.name));
    for (const s of all.trace!.stages)
      expect(registry.has(s.name.replace(/^(encoder|decoder)\.((self|cross)_attn\.)?/, ''))).toBe(true);
    model.dispose();
  });

  it('checks specs and inputs with codes and fields, and frees disposed models', async () => {
    const engine = await engineFor(build);
    const heap = engine.heapBytesInUse();
    expect(thrown(() => engine.createModel({ dModel: 10, heads: 3 })).code).toBe('not_divisible');
    expect(thrown(() => engine.createModel({ dModel: 10, heads: 3 })).field).toBe('heads');
    expect(thrown(() => engine.createModel({ activation: 'swish' } as unknown as Partial<ModelSpec>)).field).toBe(
      'activation',
    );
    expect(thrown(() => engine.createModel({ layerNormEps: 0 })).code).toBe('out_of_range');
    expect(thrown(() => engine.createModel({ vocabSize: 262144, dModel: 4096 })).code).toBe('limit_exceeded');
    expect(thrown(() => engine.createModel({}, { init: 'ones' as 'zeros' })).field).toBe('init');
    const model = engine.createModel({ vocabSize: 5, dModel: 4, heads: 2, layers: 1, ffnDim: 8 });
    expect(model.spec).toEqual({ ...DEFAULT_SPEC, vocabSize: 5, dModel: 4, heads: 2, layers: 1, ffnDim: 8 });
    const ok = { ids: Int32Array.from([0, 1, 2]), batch: 1, seq: 3 };
    const bad = thrown(() => model.forward({ ...ok, ids: Int32Array.from([0, 5, 2]) }));
    expect([bad.code, bad.field]).toEqual(['out_of_range', 'ids']);
    expect(thrown(() => model.forward({ ...ok, lengths: [4] })).field).toBe('lengths');
    expect(thrown(() => model.forward({ ...ok, seq: 200, ids: new Int32Array(200) })).field).toBe('seq');
    expect(thrown(() => model.forward({ ...ok, ids: [0, 1, 2] as unknown as Int32Array })).field).toBe('ids');
    expect(
      thrown(() => model.forward({ ...ok, record: { stages: 'all' } as unknown as { stages: string[] } })).field,
    ).toBe('record.stages');
    const before = model.saveWeights();
    for (let i = 0; i < 200; i++) model.forward({ ...ok, record: true });
    expect(model.saveWeights()).toEqual(before);
    expect(model.parameter('embed.weight').length).toBe(20);
    expect(thrown(() => model.parameter('nope')).field).toBe('name');
    model.dispose();
    expect(model.disposed).toBe(true);
    expect(thrown(() => model.forward(ok)).code).toBe('disposed');
    expect(engine.heapBytesInUse()).toBe(heap);
  });

  it('declares its settings, rules, stages and error codes exactly as the generated TypeScript says', async () => {
    const engine = await engineFor(build);
    expect(engine.describe()).toEqual(JSON.parse(JSON.stringify(ENGINE)));
  });

  it('supports all of nn.MultiheadAttention (bias, kdim/vdim, float masks, needWeights, averaged weights)', async () => {
    const engine = await engineFor(build);
    for (const c of fixture('mha_options.json').cases) {
      const f32 = (a: number[] | null) => (a === null ? undefined : Float32Array.from(a));
      const selfAttention =
        c.kdim === c.embed_dim && c.vdim === c.embed_dim && c.query.every((v: number, i: number) => v === c.key[i]);
      const r = engine.multiHeadAttention({
        query: f32(c.query)!,
        key: selfAttention ? undefined : f32(c.key),
        value: selfAttention ? undefined : f32(c.value),
        batch: c.batch,
        querySeq: c.query_len,
        keySeq: c.key_len,
        embedDim: c.embed_dim,
        heads: c.heads,
        kdim: c.kdim,
        vdim: c.vdim,
        bias: c.bias,
        inProjWeight: f32(c.in_proj_weight),
        qProjWeight: f32(c.q_proj_weight),
        kProjWeight: f32(c.k_proj_weight),
        vProjWeight: f32(c.v_proj_weight),
        inProjBias: f32(c.in_proj_bias),
        outProjWeight: f32(c.out_proj_weight)!,
        outProjBias: f32(c.out_proj_bias),
        keyPaddingMask: c.key_padding_mask ? Uint8Array.from(c.key_padding_mask) : undefined,
        attnMask: c.attn_mask_float
          ? Float32Array.from(c.attn_mask_float, (v: number | null) => (v === null ? -Infinity : v))
          : c.attn_mask_bool
            ? Uint8Array.from(c.attn_mask_bool)
            : undefined,
        needWeights: c.need_weights,
        averageAttnWeights: c.average_attn_weights,
      });
      expectClose(r.output, c.expected_output);
      if (c.expected_weights === null) {
        expect(r.weights).toBeNull();
        expect(r.shapes.weights).toBeNull();
      } else {
        expectClose(r.weights!, c.expected_weights);
        expect(r.shapes.weights!.length).toBe(c.average_attn_weights ? 3 : 4);
      }
    }
    const e = thrown(() =>
      engine.multiHeadAttention({
        query: new Float32Array(6),
        batch: 1,
        querySeq: 1,
        embedDim: 6,
        heads: 2,
        kdim: 5,
        key: new Float32Array(5),
        inProjWeight: new Float32Array(108),
        outProjWeight: new Float32Array(36),
        bias: false,
      }),
    );
    expect(e.field).toBe('inProjWeight');
  });
});
