// How far a checkpoint held in 16 or 8 bits computes from its float32 self (docs/pretrained.md,
// "Weights in memory"): GPT-2 small's and SmolLM2-135M's random-weight checkpoints
// (bench/make_gpt2.py, bench/make_modern.py, in bench/.cache) loaded with weights 'f32' and with
// 'bf16' (from the F32 file, and GPT-2's F16 file), on the decode bench's 64-token prompt
// (decode.json): at every position the agreement of the top-1 next token and the KL divergence
// KL(p_f32 ‖ p_low) of the next-token distributions (nats), and the largest logit difference
// against the largest logit. Node, the simd build: `node bench/weights_deviation.mjs`.
import { readFileSync } from 'node:fs';
import { loadAttention } from '../dist/node.js';

const ROOT = new URL('../', import.meta.url).pathname;
// The files beside each model's config (bench/make_gpt2.py, bench/make_modern.py).
const GPT2 = { model: 'gpt2-small', tokenizer: ['config.json', 'vocab.json', 'merges.txt'] };
const SMOLLM2 = { model: 'smollm2-135m', tokenizer: ['config.json', 'tokenizer.json', 'tokenizer_config.json'] };
const CASES = [
  { ...GPT2, file: 'model.safetensors', weights: 'bf16' },
  { ...GPT2, file: 'model-f16/model.safetensors', weights: 'bf16' },
  { ...GPT2, file: 'model.safetensors', weights: 'q8_0' },
  { ...SMOLLM2, file: 'model.safetensors', weights: 'bf16' },
];

const engine = await loadAttention({ build: 'simd' });
const filesOf = (c, file) => {
  const files = {};
  for (const name of [...c.tokenizer, file]) {
    const key = name.endsWith('.safetensors') ? 'model.safetensors' : name;
    files[key] = new Uint8Array(readFileSync(`${ROOT}bench/.cache/${c.model}/${name}`));
  }
  return files;
};
const logitsOf = async (c, file, weights) => {
  const m = await engine.loadPretrained({ files: filesOf(c, file), weights });
  const prompt = JSON.parse(readFileSync(`${ROOT}bench/.cache/${c.model}/decode.json`, 'utf8')).prompt;
  const out = m.forward({ ids: Int32Array.from(prompt), batch: 1, seq: prompt.length }).logits;
  m.dispose();
  return { logits: out, seq: prompt.length };
};
const softmax = (row) => {
  const max = Math.max(...row);
  const e = row.map((x) => Math.exp(x - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
};
const argmax = (row) => row.reduce((best, x, i) => (x > row[best] ? i : best), 0);

const wide = {};
for (const c of CASES) {
  wide[c.model] ??= await logitsOf(c, 'model.safetensors', 'f32');
  const { logits: want, seq } = wide[c.model];
  const { logits: got } = await logitsOf(c, c.file, c.weights);
  const vocab = want.length / seq;
  let agree = 0,
    klSum = 0,
    klMax = 0,
    diff = 0,
    largest = 0;
  for (let s = 0; s < seq; s++) {
    const w = Array.from(want.subarray(s * vocab, (s + 1) * vocab));
    const g = Array.from(got.subarray(s * vocab, (s + 1) * vocab));
    if (argmax(w) === argmax(g)) agree++;
    const p = softmax(w),
      q = softmax(g);
    let kl = 0;
    for (let i = 0; i < vocab; i++) if (p[i] > 0) kl += p[i] * Math.log(p[i] / q[i]);
    klSum += kl;
    klMax = Math.max(klMax, kl);
    for (let i = 0; i < vocab; i++) {
      diff = Math.max(diff, Math.abs(g[i] - w[i]));
      largest = Math.max(largest, Math.abs(w[i]));
    }
  }
  console.log(
    `${c.model} ${c.file} '${c.weights}': ${seq} positions, top-1 ${agree}/${seq}, KL mean ${(klSum / seq).toExponential(1)} max ${klMax.toExponential(1)}, largest logit difference ${diff.toExponential(1)} of ${largest.toFixed(2)}`,
  );
}
