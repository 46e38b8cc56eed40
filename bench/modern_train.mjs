// The modern block's training step in `npm run bench`: one step (forward, backward and
// the optimizer) of a Llama-style causal block (RoPE, grouped-query attention with
// H_kv = H / 2, RMSNorm, SwiGLU, no biases) against the classic pre-LN block at equal
// FLOPs (the gated FFN's width F' = E/3 + 2F/3 makes its matrix products as large as the
// classic block's: 3E² + 3EF' = 4E² + 2EF), and against tfjs-wasm doing the same modern
// model with its own autodiff. Same shapes, batch and single thread as bench/train.mjs.
// Writes bench/results/modern.json (docs/performance.md's bench-modern-training block).
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs'; // the gradients, registered on the same tfjs-core
import { tfBackend } from './peers.mjs';
import { TRAINING_SHAPES, classicSpec, randomBatch, timeMs, trainStepMs } from './train.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** The gated FFN width that gives the modern block the classic block's FLOPs. */
export const gatedWidth = ({ e, f }) => Math.round(e / 3 + (2 * f) / 3);

/** Multiply-adds x 2 of one modern step's matrix products (forward, and twice that backward). */
export function modernStepFlops(shape) {
  const { e, layers, h, s, b, v } = shape;
  const dh = e / h,
    q = h * dh,
    kv = (h / 2) * dh,
    g = gatedWidth(shape);
  return 3 * 2 * b * s * (layers * (e * (q + 2 * kv) + q * e + 3 * e * g + 2 * s * q) + e * v);
}

function modernSpec(shape) {
  return {
    vocabSize: shape.v,
    dModel: shape.e,
    heads: shape.h,
    kvHeads: shape.h / 2,
    layers: shape.layers,
    ffnDim: gatedWidth(shape),
    maxSeq: shape.s,
    causal: true,
    positions: 'rope',
    norm: 'pre',
    normType: 'rmsnorm',
    finalNorm: true,
    ffn: 'gated',
    activation: 'silu',
    qkvBias: false,
    outBias: false,
    mlpBias: false,
    headBias: false,
    head: 'tied',
  };
}

// The same modern model with tfjs ops: RMSNorm, RoPE (rotate-half with a cos/sin table),
// K/V heads repeated to the query heads, SwiGLU, a tied head; tf.train.adam.
async function tfjsModern(shape) {
  await tfBackend();
  const { e, layers, h, s, b, v } = shape;
  const dh = e / h,
    hkv = h / 2,
    g = gatedWidth(shape),
    half = dh / 2;
  const w = (rows, cols) =>
    tf.variable(tf.randomUniform([rows, cols], -Math.sqrt(6 / (rows + cols)), Math.sqrt(6 / (rows + cols))));
  const o = (n) => tf.variable(tf.ones([n]));
  const embed = tf.variable(tf.randomNormal([v, e]));
  const blocks = Array.from({ length: layers }, () => ({
    qkv: w((h + 2 * hkv) * dh, e),
    out: w(e, h * dh),
    gateUp: w(2 * g, e),
    down: w(e, g),
    n1: o(e),
    n2: o(e),
  }));
  const nf = o(e);
  const rms = (x, weight) => tf.mul(tf.mul(x, tf.rsqrt(tf.add(tf.mean(tf.square(x), -1, true), 1e-6))), weight);
  const inv = Array.from({ length: half }, (_, i) => 10000 ** ((-2 * i) / dh));
  const angles = Array.from({ length: s }, (_, p) => inv.map((f) => p * f)).flat();
  const cos = tf.tile(tf.reshape(tf.cos(tf.tensor1d(angles)), [s, half]), [1, 2]),
    sin = tf.tile(tf.reshape(tf.sin(tf.tensor1d(angles)), [s, half]), [1, 2]);
  const rope = (x) => {
    const [x1, x2] = tf.split(x, 2, -1);
    return tf.add(tf.mul(x, cos), tf.mul(tf.concat([tf.neg(x2), x1], -1), sin));
  };
  const mask = tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([s, s]), -1, 0)), -1e9);
  const heads = (t, n) => tf.transpose(tf.reshape(t, [b, s, n, dh]), [0, 2, 1, 3]);
  // K/V head j serves query heads j·g .. j·g + g − 1 (rank 3: tfjs has no rank-5 tile gradient)
  const repeat = (t) => tf.reshape(tf.tile(tf.reshape(t, [b * hkv, 1, s * dh]), [1, h / hkv, 1]), [b, h, s, dh]);
  const batch = randomBatch(shape);
  const ids = tf.oneHot(tf.tensor1d(batch.ids, 'int32'), v),
    targets = tf.oneHot(tf.tensor1d(batch.targets, 'int32'), v);
  const optimizer = tf.train.adam(1e-3);
  const loss = () => {
    let x = tf.matMul(ids, embed);
    for (const k of blocks) {
      const a = rms(x, k.n1);
      const [q, kk, vv] = tf.split(tf.matMul(a, k.qkv, false, true), [h * dh, hkv * dh, hkv * dh], 1);
      const scores = tf.add(
        tf.mul(tf.matMul(rope(heads(q, h)), repeat(rope(heads(kk, hkv))), false, true), 1 / Math.sqrt(dh)),
        mask,
      );
      const ctx = tf.reshape(tf.transpose(tf.matMul(tf.softmax(scores), repeat(heads(vv, hkv))), [0, 2, 1, 3]), [
        b * s,
        h * dh,
      ]);
      x = tf.add(x, tf.matMul(ctx, k.out, false, true));
      const [gate, up] = tf.split(tf.matMul(rms(x, k.n2), k.gateUp, false, true), 2, 1);
      x = tf.add(x, tf.matMul(tf.mul(tf.mul(gate, tf.sigmoid(gate)), up), k.down, false, true));
    }
    return tf.losses.softmaxCrossEntropy(targets, tf.matMul(rms(x, nf), embed, false, true));
  };
  return timeMs(async () => {
    const cost = optimizer.minimize(loss, true);
    await cost.data();
    cost.dispose();
  });
}

export async function modernTrainingTable() {
  const rows = [];
  for (const shape of TRAINING_SHAPES)
    rows.push({
      shape,
      flops: modernStepFlops(shape),
      ffnGated: gatedWidth(shape),
      ms: {
        simd: await trainStepMs('simd', modernSpec(shape), shape),
        'simd-classic': await trainStepMs('simd', classicSpec(shape), shape),
        'tfjs-wasm': await tfjsModern(shape),
      },
    });
  return rows;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const training = await modernTrainingTable();
  for (const r of training) console.log(JSON.stringify(r));
  writeFileSync(
    `${ROOT}bench/results/modern.json`,
    JSON.stringify(
      {
        date: new Date().toISOString(),
        machine: { cpu: cpus()[0]?.model ?? 'unknown CPU', cores: cpus().length, node: process.version },
        training,
      },
      null,
      2,
    ) + '\n',
  );
}
