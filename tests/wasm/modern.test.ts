// The modern block (RoPE, ALiBi, GQA, headDim, windows, RMSNorms, sandwich norms, gated
// FFNs, q/k norms) through the npm package, both builds: the PyTorch fixtures of
// tests/reference/generate_modern_fixtures.py (Llama, Qwen 2/3, Gemma 3 with Hugging Face's
// semantics, ALiBi from the paper) give the same layer outputs, attention weights, hidden
// states and logits (1e-5); the trace has the new stages with their shapes and kinds; bad
// settings are AttentionErrors naming the setting; the trainer learns with every option on.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { type ModelSpec } from '../../dist/node.js';
import { BUILDS, ROOT, engineFor, expectClose, thrown } from './helpers.js';

const MODERN = `${ROOT}tests/reference/fixtures/modern/`;
const CASES = ['llama', 'llama3_scaled_tied', 'qwen2', 'qwen3', 'gemma3', 'alibi', 'partial_rotary_linear'];

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const fixtureOf = (name: string): any => JSON.parse(readFileSync(`${MODERN}${name}.json`, 'utf8'));

describe.each(BUILDS)('%s build', (build) => {
  it.each(CASES)('matches the PyTorch reference: %s', async (name) => {
    const engine = await engineFor(build);
    const f = fixtureOf(name);
    const model = engine.createModel(f.spec, { init: 'zeros' });
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    expect(model.parameters()).toEqual(f.parameters.map((p: any) => ({ ...p, storage: 'f32' }))); // a new model: float32
    model.loadWeights(new Uint8Array(readFileSync(`${MODERN}${name}.safetensors`)));
    const stack = f.spec.causal ? 'decoder' : 'encoder';
    const out = model.forward({
      ids: Int32Array.from(f.ids),
      batch: f.batch,
      seq: f.seq,
      lengths: f.lengths,
      record: { stages: [`${stack}.output`, `${stack}.self_attn.weights`] },
    });
    expectClose(out.hidden, f.hidden);
    expectClose(out.logits!, f.logits);
    for (let l = 0; l < f.spec.layers; l++) {
      const at = (stage: string) => out.trace!.stages.find((s) => s.layer === l && s.name === `${stack}.${stage}`)!;
      expectClose(at('output').data, f.layer_outputs[l]);
      expectClose(at('self_attn.weights').data, f.weights[l]);
    }
    model.dispose();
  });

  it('records the modern stages: grouped K/V, q/k norms, RoPE, the window, ALiBi, the gated FFN', async () => {
    const engine = await engineFor(build);
    const spec: Partial<ModelSpec> = {
      vocabSize: 9,
      dModel: 12,
      heads: 4,
      kvHeads: 2,
      headDim: 4,
      layers: 2,
      ffnDim: 10,
      causal: true,
      positions: 'rope',
      window: 2,
      windowPattern: 2,
      norm: 'sandwich',
      normType: 'rmsnorm',
      ffn: 'gated',
      activation: 'silu',
      qkNorm: true,
    };
    const model = engine.createModel(spec, { init: 'random', seed: 3 });
    const stagesOf = (m: typeof model, layer: number) =>
      Object.fromEntries(
        m
          .forward({ ids: Int32Array.from([1, 2, 3, 4, 5]), batch: 1, seq: 5, record: { layers: [layer] } })
          .trace!.stages.filter((s) => s.layer === layer)
          .map((s) => [s.name.replace(/^decoder\./, ''), s]),
      );
    const local = stagesOf(model, 0);
    expect(local['self_attn.q_heads'].shape).toEqual([1, 4, 5, 4]);
    expect(local['self_attn.k_heads'].shape).toEqual([1, 2, 5, 4]); // (B, H_kv, Sk, d_h)
    expect(Array.from(local['self_attn.kv_group'].data)).toEqual([0, 0, 1, 1]);
    expect(local['self_attn.q_normed'].kind).toBe('norm');
    expect(local['self_attn.k_rotated'].shape).toEqual([1, 2, 5, 4]);
    // RoPE keeps each head's length: rotation only turns the pairs.
    const norm = (d: Float32Array, at: number) => Math.hypot(...Array.from(d.subarray(at, at + 4)));
    for (let row = 0; row < 4 * 5; row++)
      expect(norm(local['self_attn.q_rotated'].data, 4 * row)).toBeCloseTo(
        norm(local['self_attn.q_normed'].data, 4 * row),
        5,
      );
    const window = local['self_attn.mask.window'];
    expect(window.mask).toBe('window');
    expect(Array.from(window.data.subarray(4 * 5, 5 * 5))).toEqual([1, 1, 1, 0, 0]); // query 4 sees keys 3, 4
    expect(local['ffn.gate'].shape).toEqual([1, 5, 10]);
    expect(local['ffn.product'].shape).toEqual([1, 5, 10]);
    expect(local['post_norm1'].kind).toBe('norm');
    const global = stagesOf(model, 1); // windowPattern 2: layer 1 is global
    expect(global['self_attn.mask.window']).toBeUndefined();
    const weights = global['self_attn.weights'].data;
    expect(weights[4 * 5]).toBeGreaterThan(0); // head 0, query 4 sees key 0
    model.dispose();

    const alibi = engine.createModel({ vocabSize: 9, dModel: 6, heads: 3, causal: true, positions: 'alibi' });
    const bias = stagesOf(alibi, 0)['self_attn.alibi'];
    expect(bias.shape).toEqual([3, 5, 5]);
    expect(bias.kind).toBe('bias');
    // Three heads: the slopes of two (2^-4, 2^-8), then every other of four (2^-2).
    expect(bias.data[1 * 5 + 0]).toBeCloseTo(-(2 ** -4), 6);
    expect(bias.data[25 + 5 + 0]).toBeCloseTo(-(2 ** -8), 6);
    expect(bias.data[50 + 5 + 0]).toBeCloseTo(-(2 ** -2), 6);
    alibi.dispose();
  });

  it('refuses bad modern settings with codes and fields, and the engine stays usable', async () => {
    const engine = await engineFor(build);
    const heap = engine.heapBytesInUse();
    const e1 = thrown(() => engine.createModel({ heads: 4, kvHeads: 3 }));
    expect([e1.code, e1.field]).toEqual(['not_divisible', 'kvHeads']);
    const e2 = thrown(() => engine.createModel({ dModel: 6, heads: 2, positions: 'rope' })); // d_h 3: odd
    expect(e2.field).toBe('ropeFraction');
    expect(thrown(() => engine.createModel({ window: -1 })).field).toBe('window');
    expect(thrown(() => engine.createModel({ windowPattern: 3 })).field).toBe('windowPattern');
    expect(thrown(() => engine.createModel({ ropeScaling: 'llama3' })).field).toBe('ropeScaling');
    expect(thrown(() => engine.createModel({ normType: 'batchnorm' } as unknown as Partial<ModelSpec>)).field).toBe(
      'normType',
    );
    expect(thrown(() => engine.createModel({ encoderLayers: 1, positions: 'alibi' })).field).toBe('positions');
    expect(engine.heapBytesInUse()).toBe(heap);
    const ok = engine.createModel({ heads: 4, kvHeads: 1, headDim: 8, positions: 'rope' });
    expect(ok.parameters().find((p) => p.name === 'layers.0.self_attn.in_proj_weight')!.shape).toEqual([48, 64]);
    ok.dispose();
  });

  it('trains with every modern option on: the loss falls', async () => {
    const engine = await engineFor(build);
    const trainer = engine.createTrainer({
      spec: {
        dModel: 32,
        heads: 4,
        kvHeads: 2,
        layers: 2,
        ffnDim: 48,
        causal: true,
        positions: 'rope',
        norm: 'sandwich',
        normType: 'rmsnorm_offset',
        ffn: 'gated',
        activation: 'gelu_tanh',
        qkNorm: true,
        window: 6,
        windowPattern: 2,
        embedScale: true,
        head: 'tied',
        headBias: false,
      },
      task: { name: 'reverse', length: 5, symbols: 6 },
      seed: 2,
    });
    const before = trainer.evaluate().loss;
    trainer.step(60);
    expect(trainer.evaluate().loss).toBeLessThan(0.8 * before);
    trainer.dispose();
  });
});
