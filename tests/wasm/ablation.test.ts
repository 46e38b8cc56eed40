// Ablations through the npm package, both builds: the spec switches layerNorm (no norm
// parameters at all) and attnActivation (an activation after attention), and heads
// switched off in model.forward({ ablate }) and trainer.evaluate({ ablate }), checked
// against an independent construction (the head's out_proj columns zeroed in a copy of
// the weights); bad heads are AttentionErrors with code, field and value.
import { describe, expect, it } from 'vitest';
import { DEFAULT_SPEC, type Model, type ModelSpec } from '../../dist/node.js';
import { BUILDS, engineFor, expectClose, thrown, uncheckedForwardInput } from './helpers.js';

/** A copy of a .safetensors file (F32) with one tensor's values edited. */
function editTensor(
  bytes: Uint8Array,
  name: string,
  edit: (values: Float32Array, shape: number[]) => void,
): Uint8Array {
  const copy = bytes.slice();
  const n = Number(new DataView(copy.buffer).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(copy.subarray(8, 8 + n)));
  const {
    shape,
    data_offsets: [start, end],
  } = header[name];
  const values = new Float32Array(copy.buffer.slice(8 + n + start, 8 + n + end));
  edit(values, shape);
  copy.set(new Uint8Array(values.buffer), 8 + n + start);
  return copy;
}

const maxDifference = (a: Float32Array, b: Float32Array) => a.reduce((m, v, i) => Math.max(m, Math.abs(v - b[i])), 0);
const names = (m: Model) => m.parameters().map((p) => p.name);

// B = 2, S = 5, the second sequence 3 long.
const INPUT = { ids: Int32Array.from([1, 4, 2, 9, 3, 7, 0, 5, 0, 0]), batch: 2, seq: 5, lengths: [5, 3] };

describe.each(BUILDS)('%s build', (build) => {
  it('layerNorm false: no norm parameters, files or stages, and each norm is the identity', async () => {
    const engine = await engineFor(build);
    expect(DEFAULT_SPEC).toMatchObject({ attnActivation: 'none', layerNorm: true });
    const spec: Partial<ModelSpec> = {
      vocabSize: 10,
      dModel: 8,
      heads: 2,
      layers: 2,
      ffnDim: 16,
      causal: true,
      finalNorm: true,
    };
    const normed = engine.createModel(spec),
      plain = engine.createModel({ ...spec, layerNorm: false });
    expect(names(normed).filter((n) => n.includes('norm'))).toEqual([
      'layers.0.norm1.weight',
      'layers.0.norm1.bias',
      'layers.0.norm2.weight',
      'layers.0.norm2.bias',
      'layers.1.norm1.weight',
      'layers.1.norm1.bias',
      'layers.1.norm2.weight',
      'layers.1.norm2.bias',
      'norm.weight',
      'norm.bias',
    ]);
    expect(names(plain)).toEqual(names(normed).filter((n) => !n.includes('norm')));
    expect(plain.spec.layerNorm).toBe(false);

    const saved = plain.saveWeights();
    const again = engine.createModel({ ...spec, layerNorm: false }, { init: 'zeros' });
    again.loadWeights(saved);
    expect(again.saveWeights()).toEqual(saved);
    const refused = thrown(() => again.loadWeights(normed.saveWeights()));
    expect(refused.code).toBe('unexpected_tensor');
    expect(refused.field).toMatch(/norm/);
    expect(again.saveWeights()).toEqual(saved);

    const out = plain.forward({ ...INPUT, record: true });
    expect(out.trace!.stages.filter((s) => s.name.includes('norm'))).toEqual([]);
    const stage = (layer: number, name: string) =>
      out.trace!.stages.find((s) => s.layer === layer && s.name === name)!.data;
    // post-LN without norms: residual1 = x + attention(x), the layer's output = residual1 + ffn(residual1).
    const x = stage(-1, 'decoder.input'),
      attn = stage(0, 'decoder.self_attn.output'),
      r1 = stage(0, 'decoder.residual1');
    expect(Array.from(r1)).toEqual(Array.from(x, (v, i) => Math.fround(v + attn[i])));
    expect(out.hidden).toEqual(stage(1, 'decoder.output')); // finalNorm is the identity too
    for (const m of [normed, plain, again]) m.dispose();
  });

  it('attnActivation relu: the attention output is activated (non-negative) before the residual add', async () => {
    const engine = await engineFor(build);
    const spec: Partial<ModelSpec> = { vocabSize: 10, dModel: 8, heads: 2, layers: 2, ffnDim: 16, causal: true };
    const none = engine.createModel(spec, { seed: 3 }),
      relu = engine.createModel({ ...spec, attnActivation: 'relu' }, { seed: 3 });
    const record = { stages: ['*.self_attn.output', '*.self_attn.activated'] };
    const a = none.forward({ ...INPUT, record }),
      b = relu.forward({ ...INPUT, record });
    expect(a.trace!.stages.map((s) => `${s.layer}:${s.name}`)).toEqual([
      '0:decoder.self_attn.output',
      '1:decoder.self_attn.output',
    ]);
    expect(b.trace!.stages.map((s) => `${s.layer}:${s.name}`)).toEqual([
      '0:decoder.self_attn.output',
      '0:decoder.self_attn.activated',
      '1:decoder.self_attn.output',
      '1:decoder.self_attn.activated',
    ]);
    const [output, activated] = b.trace!.stages;
    expect(activated).toMatchObject({ kind: 'activations', axes: ['B', 'Sq', 'E'], shape: [2, 5, 8] });
    expect(Array.from(activated.data)).toEqual(Array.from(output.data, (v) => Math.max(0, v)));
    expect(Math.min(...activated.data)).toBe(0);
    expect(output.data.filter((v) => v < 0).length).toBeGreaterThan(10);
    expect(output.data).toEqual(a.trace!.stages[0].data); // the same weights and input: layer 0's attention is the same
    expect(maxDifference(a.hidden, b.hidden)).toBeGreaterThan(1e-3);
    expect(maxDifference(a.logits!, b.logits!)).toBeGreaterThan(1e-3);

    const bad = thrown(() => engine.createModel({ attnActivation: 'tanh' } as unknown as Partial<ModelSpec>));
    expect([bad.code, bad.field, bad.value]).toEqual(['invalid_argument', 'attnActivation', 'tanh']);
    expect(thrown(() => engine.createModel({ layerNorm: 'no' } as unknown as Partial<ModelSpec>)).field).toBe(
      'layerNorm',
    );
    none.dispose();
    relu.dispose();
  });

  it("forward({ ablate }) equals zeroing the head's columns of out_proj, and keeps the head's weights", async () => {
    const engine = await engineFor(build);
    const spec: Partial<ModelSpec> = { vocabSize: 10, dModel: 12, heads: 3, layers: 2, ffnDim: 16, causal: true }; // d_k 4
    const model = engine.createModel(spec, { seed: 7 });
    const bytes = model.saveWeights();
    const intact = model.forward(INPUT);
    for (const [layer, head] of [
      [0, 1],
      [1, 2],
      [1, 0],
    ]) {
      const zeroed = engine.createModel(spec, { init: 'zeros' });
      zeroed.loadWeights(
        editTensor(bytes, `layers.${layer}.self_attn.out_proj.weight`, (v, [rows, cols]) => {
          for (let r = 0; r < rows; r++) for (let c = head * 4; c < head * 4 + 4; c++) v[r * cols + c] = 0;
        }),
      );
      const ablated = model.forward({ ...INPUT, ablate: [{ layer, head }] });
      const expected = zeroed.forward(INPUT);
      expectClose(ablated.hidden, expected.hidden, 1e-6);
      expectClose(ablated.logits!, expected.logits!, 1e-6);
      expect(maxDifference(ablated.hidden, intact.hidden)).toBeGreaterThan(1e-3);
      zeroed.dispose();
    }
    const record = { stages: ['*.weights', '*.context'], layers: [0] };
    const before = model.forward({ ...INPUT, record }).trace!.stages;
    const after = model.forward({ ...INPUT, record, ablate: [{ layer: 0, head: 1 }] }).trace!.stages;
    expect(after[0].data).toEqual(before[0].data); // weights (B, H, Sq, Sk) as computed
    const context = after[1]; // (B, H, Sq, d_k): head 1 is zero, the others as before
    expect(context.shape).toEqual([2, 3, 5, 4]);
    context.data.forEach((v, i) => expect(v).toBe(Math.floor(i / 20) % 3 === 1 ? 0 : before[1].data[i]));
    expect(model.forward({ ...INPUT, ablate: [] }).hidden).toEqual(intact.hidden);
    model.dispose();
  });

  it('refuses bad heads with a code, the field and the value, and the model works on', async () => {
    const engine = await engineFor(build);
    const model = engine.createModel({ vocabSize: 10, dModel: 12, heads: 3, layers: 2, ffnDim: 16, causal: true });
    const intact = model.forward(INPUT).hidden;
    const cases: [unknown, string, string, unknown][] = [
      [[{ layer: 0, head: 3 }], 'out_of_range', 'ablate.head', 3],
      [
        [
          { layer: 0, head: 0 },
          { layer: 2, head: 0 },
        ],
        'out_of_range',
        'ablate.layer',
        2,
      ],
      [[{ layer: -1, head: 0 }], 'out_of_range', 'ablate.layer', -1],
      [[{ layer: 0.5, head: 0 }], 'invalid_argument', 'ablate.layer', 0.5],
      [[{ layer: 0 }], 'invalid_argument', 'ablate.head', undefined],
      [[{ layer: 0, head: 0, block: 'cross' }], 'invalid_argument', 'block', undefined],
      [[[0, 1]], 'invalid_argument', 'ablate', 'Array(2)'],
      [{ layer: 0, head: 0 }, 'invalid_argument', 'ablate', 'object'],
    ];
    for (const [ablate, code, field, value] of cases) {
      const e = thrown(() => model.forward({ ...INPUT, ablate } as unknown as typeof INPUT));
      expect([e.code, e.field, e.value], JSON.stringify(ablate)).toEqual([code, field, value]);
    }
    // The engine checks again, whatever reaches it.
    const raw = model.raw().forward({ ...uncheckedForwardInput(INPUT), ablate: [{ layer: 5, head: 0 }] });
    expect(raw.error).toMatchObject({ code: 'out_of_range', field: 'ablate.layer' });
    expect(model.forward(INPUT).hidden).toEqual(intact);

    const encDec = engine.createModel({ vocabSize: 10, dModel: 12, heads: 3, layers: 1, encoderLayers: 1, ffnDim: 16 });
    const source = { sourceIds: Int32Array.from([1, 2, 3, 4]), sourceSeq: 2 };
    const e = thrown(() => encDec.forward({ ...INPUT, ...source, ablate: [{ layer: 0, head: 0 }] }));
    expect([e.code, e.field]).toEqual(['invalid_argument', 'ablate']);
    expect(encDec.forward({ ...INPUT, ...source, ablate: [] }).hidden.length).toBe(2 * 5 * 12);
    model.dispose();
    encDec.dispose();
  });

  it('evaluate({ ablate }) scores the held-out set with heads off; a bad head throws and the trainer goes on', async () => {
    const engine = await engineFor(build);
    // The README's copy model (d_model 32, 2 layers, 4 heads, pre-LN, learned positions): >= 99% after 200 steps.
    const trainer = engine.createTrainer({
      spec: { dModel: 32, heads: 4, layers: 2, ffnDim: 64, norm: 'pre', positions: 'learned', causal: true },
      task: { name: 'copy', length: 5, symbols: 6 },
      optimizer: { lr: 3e-3 },
      evalSize: 64,
    });
    trainer.step(200);
    const all = trainer.evaluate();
    expect(all.sequenceAccuracy).toBeGreaterThan(0.9);
    expect(trainer.evaluate({ ablate: [] })).toEqual(all);
    // Every head off: nothing reads the first half any more, so copying fails.
    const everyHead = [0, 1].flatMap((layer) => [0, 1, 2, 3].map((head) => ({ layer, head })));
    const off = trainer.evaluate({ ablate: everyHead });
    expect(off.examples).toBe(all.examples);
    expect(off.sequenceAccuracy).toBeLessThan(0.1);
    expect(off.loss).toBeGreaterThan(all.loss + 1);
    expect(trainer.evaluate({ ablate: [{ layer: 1, head: 2 }] }).loss).not.toBe(all.loss);

    const e = thrown(() => trainer.evaluate({ ablate: [{ layer: 0, head: 4 }] }));
    expect([e.code, e.field, e.value]).toEqual(['out_of_range', 'ablate.head', 4]);
    expect(thrown(() => trainer.evaluate({ heads: [] } as unknown as { ablate: [] })).field).toBe('heads');
    expect(thrown(() => trainer.evaluate(null as unknown as { ablate: [] })).field).toBe('evaluate options');
    const batch = { ...trainer.example(1)!, batch: 1, seq: 11 };
    expect(thrown(() => trainer.step({ ...batch, ablate: [] } as unknown as typeof batch)).field).toBe('ablate');
    expect(trainer.evaluate()).toEqual(all); // nothing changed
    expect(trainer.step().step).toBe(201);
    trainer.dispose();
  });
});
