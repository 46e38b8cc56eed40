// Child of relaxed-engine.test.ts, run by a Node given the relaxed SIMD flag: loads the one-thread
// SIMD engine (relaxedSimd from argv; argv[4], if given, its int8Dot cap), the checkpoint in the directory argv[2] with weights
// 'q8_0' and q8Activations 'int8', and prints as JSON the engine's kernels and 8 greedy steps
// (token, the top candidates' ids and probabilities) of the model without its tokenizer (the
// tokenizer file is gpt2-tiny's, smaller than the vocabulary).
import { readFileSync, readdirSync } from 'node:fs';
import { loadAttention } from '../../dist/node.js';
import { greedySteps } from '../support/greedy-steps.mjs';

const [dir, relaxed, int8Dot] = process.argv.slice(2);
const files = Object.fromEntries(readdirSync(dir).map((f) => [f, new Uint8Array(readFileSync(`${dir}/${f}`))]));
const engine = await loadAttention({
  build: 'simd',
  relaxedSimd: relaxed === 'relaxed',
  ...(int8Dot ? { int8Dot } : {}),
});
const model = await engine.loadPretrained({ files, weights: 'q8_0', q8Activations: 'int8' });
const steps = greedySteps(model.model, [5, 300, 17], 8);
console.log(JSON.stringify({ kernels: engine.kernels, steps }));
