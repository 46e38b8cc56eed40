// The training table of `npm run bench`: one training step (forward, backward and the
// optimizer) of the same causal pre-LN transformer on the same random batch, in one run
// on this machine, single-threaded: our wasm-simd and wasm-scalar builds in Node; tfjs
// with its wasm backend and its own autodiff (Adam: tfjs has no AdamW); PyTorch on the
// CPU with one thread (bench/train_torch.py); our native build (bench/train_step_bench).
// Also: how soon sort of length 8 reaches 99% held-out sequence accuracy (wasm-simd).
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import * as tf from '@tensorflow/tfjs-core';
import '@tensorflow/tfjs'; // registers the gradients (tfjs-core alone has none) with the same tfjs-core
import { loadAttention } from '../dist/node.js';
import { tfBackend } from './peers.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
export const TRAINING_SHAPES = [
  { e: 64, layers: 2, h: 4, f: 256, s: 32, b: 32, v: 64 },
  { e: 128, layers: 4, h: 8, f: 512, s: 64, b: 16, v: 64 },
];
const key = ({ e, layers, h, f, s, b, v }) => `${e},${layers},${h},${f},${s},${b},${v}`;
// Multiply-adds x 2 of the matrix products of one step: forward (projections, FFN,
// scores and weights x V, head) and twice that backward.
export const stepFlops = ({ e, layers, f, s, b, v }) =>
  3 * 2 * b * s * (layers * (4 * e * e + 2 * e * f + 2 * s * e) + e * v);

export function randomBatch({ s, b, v }) {
  let x = 7;
  const next = () => (x = (x * 1103515245 + 12345) >>> 0) % v;
  return {
    ids: Int32Array.from({ length: b * s }, next),
    targets: Int32Array.from({ length: b * s }, next),
    batch: b,
    seq: s,
  };
}

export async function timeMs(step, seconds = 3) {
  const warm = performance.now();
  for (let i = 0; i < 3 || performance.now() - warm < 500; i++) await step();
  const times = [];
  const start = performance.now();
  while (times.length < 5 || (times.length < 200 && performance.now() - start < seconds * 1000)) {
    const t = performance.now();
    await step();
    times.push(performance.now() - t);
  }
  times.sort((a, c) => a - c);
  return times[Math.floor(times.length / 2)];
}

/** The causal pre-LN transformer this table trains, at one of its shapes. */
export function classicSpec(shape) {
  return {
    vocabSize: shape.v,
    dModel: shape.e,
    heads: shape.h,
    layers: shape.layers,
    ffnDim: shape.f,
    maxSeq: shape.s,
    causal: true,
    norm: 'pre',
    finalNorm: true,
    positions: 'learned',
  };
}

/** The median ms of one training step of `spec` on the shape's random batch, in one of our builds. */
export async function trainStepMs(build, spec, shape) {
  const attn = await loadAttention(build === 'simd-threads' ? { build, threads: 2 } : { build });
  const trainer = attn.createTrainer({ spec });
  const batch = randomBatch(shape);
  const ms = await timeMs(() => trainer.step(batch));
  trainer.dispose();
  attn.dispose();
  return ms;
}

const ours = (build, shape) => trainStepMs(build, classicSpec(shape), shape);

// The same model with tfjs ops, trained by tf.variableGrads and tf.train.adam.
async function tfjs(shape) {
  await tfBackend();
  const { e, layers, h, f, s, b, v } = shape;
  const dk = e / h;
  const w = (rows, cols) =>
    tf.variable(tf.randomUniform([rows, cols], -Math.sqrt(6 / (rows + cols)), Math.sqrt(6 / (rows + cols))));
  const z = (n) => tf.variable(tf.zeros([n]));
  const o = (n) => tf.variable(tf.ones([n]));
  const embed = tf.variable(tf.randomNormal([v, e])),
    pos = tf.variable(tf.randomNormal([s, e]));
  const blocks = Array.from({ length: layers }, () => ({
    inW: w(3 * e, e),
    inB: z(3 * e),
    outW: w(e, e),
    outB: z(e),
    w1: w(f, e),
    b1: z(f),
    w2: w(e, f),
    b2: z(e),
    g1: o(e),
    n1: z(e),
    g2: o(e),
    n2: z(e),
  }));
  const gf = o(e),
    nf = z(e),
    headW = w(v, e),
    headB = z(v);
  const norm = (x, g, n) => {
    const { mean, variance } = tf.moments(x, -1, true);
    return tf.add(tf.mul(tf.div(tf.sub(x, mean), tf.sqrt(tf.add(variance, 1e-5))), g), n);
  };
  const mask = tf.mul(tf.sub(1, tf.linalg.bandPart(tf.ones([s, s]), -1, 0)), -1e9);
  const heads = (t) => tf.transpose(tf.reshape(t, [b, s, h, dk]), [0, 2, 1, 3]);
  const batch = randomBatch(shape);
  // The embedding lookup as a one-hot product: tfjs-wasm has no kernel for gather's gradient.
  const ids = tf.oneHot(tf.tensor1d(batch.ids, 'int32'), v),
    targets = tf.oneHot(tf.tensor1d(batch.targets, 'int32'), v);
  const optimizer = tf.train.adam(1e-3);
  const loss = () => {
    let x = tf.add(tf.reshape(tf.matMul(ids, embed), [b, s, e]), pos);
    x = tf.reshape(x, [b * s, e]);
    for (const k of blocks) {
      const a = norm(x, k.g1, k.n1);
      const [q, kk, vv] = tf.split(tf.add(tf.matMul(a, k.inW, false, true), k.inB), 3, 1);
      const scores = tf.add(tf.mul(tf.matMul(heads(q), heads(kk), false, true), 1 / Math.sqrt(dk)), mask);
      const ctx = tf.reshape(tf.transpose(tf.matMul(tf.softmax(scores), heads(vv)), [0, 2, 1, 3]), [b * s, e]);
      x = tf.add(x, tf.add(tf.matMul(ctx, k.outW, false, true), k.outB));
      const m = norm(x, k.g2, k.n2);
      x = tf.add(x, tf.add(tf.matMul(tf.relu(tf.add(tf.matMul(m, k.w1, false, true), k.b1)), k.w2, false, true), k.b2));
    }
    const logits = tf.add(tf.matMul(norm(x, gf, nf), headW, false, true), headB);
    return tf.losses.softmaxCrossEntropy(targets, logits);
  };
  const ms = await timeMs(async () => {
    const cost = optimizer.minimize(loss, true);
    await cost.data();
    cost.dispose();
  });
  return ms;
}

function lines(command, args) {
  return Object.fromEntries(
    execFileSync(command, args, { encoding: 'utf8' })
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line))
      .map((r) => [r.shape, r.ms]),
  );
}

export async function trainingTable() {
  const shapes = TRAINING_SHAPES.map(key);
  const native = lines(`${ROOT}build/native-bench/train_step_bench`, shapes);
  const torch = lines('/usr/bin/python3', [`${ROOT}bench/train_torch.py`, ...shapes]);
  const rows = [];
  for (const shape of TRAINING_SHAPES) {
    const row = {
      shape,
      flops: stepFlops(shape),
      ms: {
        simd: await ours('simd', shape),
        'simd-threads': await ours('simd-threads', shape),
        scalar: await ours('scalar', shape),
        'tfjs-wasm': await tfjs(shape),
        'pytorch-cpu-1thread': torch[key(shape)],
        native: native[key(shape)],
      },
    };
    rows.push(row);
  }
  return rows;
}

export async function sortTimeToAccuracy() {
  const attn = await loadAttention({ build: 'simd' });
  const steps = 600;
  const trainer = attn.createTrainer({
    spec: {
      vocabSize: 11,
      maxSeq: 17,
      dModel: 64,
      heads: 4,
      layers: 2,
      ffnDim: 256,
      causal: true,
      norm: 'pre',
      finalNorm: true,
      positions: 'learned',
    },
    task: { name: 'sort', length: 8, symbols: 10 },
    batchSize: 32,
    seed: 1,
    optimizer: { lr: 3e-3, weightDecay: 0, warmup: 20, schedule: 'cosine', totalSteps: steps },
  });
  const start = performance.now();
  for (let s = 50; s <= steps; s += 50) {
    trainer.step(50);
    const e = trainer.evaluate();
    if (e.sequenceAccuracy >= 0.99)
      return { steps: s, seconds: (performance.now() - start) / 1000, sequenceAccuracy: e.sequenceAccuracy };
  }
  return { steps, seconds: (performance.now() - start) / 1000, sequenceAccuracy: trainer.evaluate().sequenceAccuracy };
}
