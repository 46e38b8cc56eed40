// Greedy decode steps of two builds of the package interleaved one by one in one Node process
// (one thread), to measure a change to a step: ROOT_A and ROOT_B are package roots whose dist/
// holds each build (e.g. a copy of main's dist and one with the changed dist/wasm/attention-simd.*),
// the models are bench/.cache's (npm run bench makes them). Usage:
//   ROOT_A=/tmp/a/ ROOT_B=/tmp/b/ node bench/interleaved_steps.mjs gpt2-small [runs]
// Prints the per-step ms of each, the median of the per-step differences (B - A) and of the ratios A/B.
import { readFileSync, readdirSync } from 'node:fs';
const name = process.argv[2] ?? 'gpt2-small';
const runs = Number(process.argv[3] ?? 3);
const dir = new URL(`.cache/${name}/`, import.meta.url).pathname;
const files = {};
for (const f of readdirSync(dir))
  if (/\.(json|txt|safetensors)$/.test(f) && !/^(decode|expected)/.test(f))
    files[f] = new Uint8Array(readFileSync(dir + f));
const prompt = Array.from({ length: 64 }, (_, i) => ((i * 37) % 1000) + 10);
const models = [];
for (const root of [process.env.ROOT_A, process.env.ROOT_B]) {
  const { loadAttention } = await import(root + 'dist/node.js');
  const engine = await loadAttention({ build: 'simd' });
  models.push(await engine.loadPretrained({ files, weights: 'auto' }));
}
const a = [],
  b = [],
  diff = [],
  ratio = [];
let same = true;
for (let r = 0; r < runs + 1; r++) {
  // Run 0 warms both up and is not counted; the order within a pair alternates.
  const gens = models.map((m) => m.generate({ ids: prompt, maxNewTokens: 64, temperature: 0 }));
  for (let i = 0; i < 64; i++) {
    const order = (i + r) % 2 ? [1, 0] : [0, 1];
    const t = [0, 0],
      s = [null, null];
    for (const k of order) {
      const t0 = performance.now();
      s[k] = gens[k].step();
      t[k] = performance.now() - t0;
    }
    same &&=
      s[0].token === s[1].token &&
      s[0].entropy === s[1].entropy &&
      s[0].candidates.every(
        (c, j) => c.token === s[1].candidates[j].token && c.probability === s[1].candidates[j].probability,
      );
    if (r === 0) continue; // warm-up run
    a.push(t[0]);
    b.push(t[1]);
    diff.push(t[1] - t[0]);
    ratio.push(t[0] / t[1]);
  }
  gens.forEach((g) => g.dispose());
}
const med = (x) => [...x].sort((p, q) => p - q)[x.length >> 1];
console.log(
  `${name}: A ${med(a).toFixed(2)} ms/step, B ${med(b).toFixed(2)} ms/step (medians of ${a.length} steps); per step B-A median ${med(diff).toFixed(3)} ms, A/B median ${med(ratio).toFixed(3)}x; same tokens, entropies, candidates: ${same}`,
);
