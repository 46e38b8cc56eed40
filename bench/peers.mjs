// The peers of `npm run bench`, each doing nn.MultiheadAttention self-attention
// (B, S, E, H) with the same weights, single-threaded wasm with SIMD:
//   onnxruntime-web: the ONNX export of the PyTorch module (bench/make_onnx.py);
//   tfjs-backend-wasm: the same math written with TensorFlow.js ops.
// Each factory returns { name, run(): Float32Array (B, S, E) }.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import * as ort from 'onnxruntime-web';
import * as tf from '@tensorflow/tfjs-core';
import { setThreadsCount, setWasmPaths } from '@tensorflow/tfjs-backend-wasm';

const require = createRequire(import.meta.url);
const HERE = dirname(new URL(import.meta.url).pathname);

export async function onnxRuntime({ b, s, e, h }, weights) {
  ort.env.wasm.numThreads = 1;
  const model = readFileSync(join(HERE, 'models', `mha_e${e}_h${h}.onnx`));
  const session = await ort.InferenceSession.create(model, {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
  });
  const feeds = {
    x: new ort.Tensor('float32', weights.x, [b, s, e]),
    in_proj_weight: new ort.Tensor('float32', weights.inProjWeight, [3 * e, e]),
    in_proj_bias: new ort.Tensor('float32', weights.inProjBias, [3 * e]),
    out_proj_weight: new ort.Tensor('float32', weights.outProjWeight, [e, e]),
    out_proj_bias: new ort.Tensor('float32', weights.outProjBias, [e]),
  };
  return { name: 'onnxruntime-web', version: ort.env.versions.web, run: async () => (await session.run(feeds)).y.data };
}

let tfReady = null;
export async function tfBackend() {
  tfReady ??= (async () => {
    setWasmPaths(join(dirname(require.resolve('@tensorflow/tfjs-backend-wasm')), '/'));
    setThreadsCount(1);
    await tf.setBackend('wasm');
    await tf.ready();
  })();
  return tfReady;
}

export async function tensorflowWasm({ b, s, e, h }, weights) {
  await tfBackend();
  const dk = e / h;
  const x = tf.tensor2d(weights.x, [b * s, e]);
  const inW = tf.tensor2d(weights.inProjWeight, [3 * e, e]);
  const inB = tf.tensor1d(weights.inProjBias);
  const outW = tf.tensor2d(weights.outProjWeight, [e, e]);
  const outB = tf.tensor1d(weights.outProjBias);
  const heads = (t) => tf.transpose(tf.reshape(t, [b, s, h, dk]), [0, 2, 1, 3]); // (B, S, E) -> (B, H, S, d_k)
  const run = async () => {
    const y = tf.tidy(() => {
      const qkv = tf.add(tf.matMul(x, inW, false, true), inB); // (B*S, 3E)
      const [q, k, v] = tf.split(qkv, 3, 1);
      const scores = tf.mul(tf.matMul(heads(q), heads(k), false, true), 1 / Math.sqrt(dk)); // (B, H, S, S)
      const context = tf.matMul(tf.softmax(scores), heads(v)); // (B, H, S, d_k)
      const merged = tf.reshape(tf.transpose(context, [0, 2, 1, 3]), [b * s, e]);
      return tf.add(tf.matMul(merged, outW, false, true), outB);
    });
    const data = await y.data();
    y.dispose();
    return data;
  };
  return { name: 'tfjs-backend-wasm', version: tf.version_core, run };
}
