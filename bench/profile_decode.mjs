// Where a decode step's time goes in Chromium: GPT-2 small (MODEL=<name> for another model in
// bench/.cache) with each weights option named on the command line (f32, f16, q8, q8i: int16
// activations, q8i8: int8), in the page the decode bench uses (our 'simd' engine, its relaxed
// twin): 4 rounds of a 64-token prompt then 64 greedy steps timed (ms a step), then 2 rounds'
// steps (not the prompt) under the CPU profiler (CDP Profiler, 200 us sampling), self time per
// function in ms a step. PROFILE_OUT=<prefix> also writes <prefix>-<option>.cpuprofile.
//   node bench/profile_decode.mjs f16 q8i8
// With the engine as built the wasm functions are numbered (wasm-function[i]). For names, relink
// build/wasm-simd's engine with --profiling-funcs (its link line in build.ninja plus that flag),
// make its twin with `node scripts/relax-wasm.mjs --keep-names <glue.mjs> <in.wasm>
// <attention-simd-relaxed.wasm>` and put the three files in dist/wasm/ (docs/performance.md,
// "Decoding in the browser").
import { readFileSync, writeFileSync } from 'node:fs';
import { ROOT, DECODE_WEIGHTS_OPTIONS, openBenchPage } from './browser_support.mjs';
import { serveDirectory } from '../tests/support/static-server.mjs';
import { launchChromium } from '../tests/support/browser.mjs';

const name = process.env.MODEL ?? 'gpt2-small';
const files = ['config.json', 'vocab.json', 'merges.txt'];
const configs = DECODE_WEIGHTS_OPTIONS;
const wanted = process.argv.slice(2).length ? process.argv.slice(2) : ['f16', 'q8i8'];
const expected = JSON.parse(readFileSync(`${ROOT}bench/.cache/${name}/decode.json`, 'utf8'));
const server = await serveDirectory(ROOT, { isolated: true });
const browser = await launchChromium();
try {
  for (const key of wanted) {
    const [weightsFile, weights, q8Activations] = configs[key];
    const page = await openBenchPage(browser, server);
    const info = await page.evaluate(
      async ({ base, files, weightsFile, weights, q8Activations }) => {
        const { loadAttention } = await import('/dist/index.js');
        const engine = await loadAttention({ build: 'simd' });
        const bytes = await window.bench.fetchAll(base, [...files, weightsFile]);
        const m = await engine.loadPretrained({ files: bytes, weights, ...(q8Activations ? { q8Activations } : {}) });
        window.m = m;
        return { kernels: engine.kernels, weightBytes: m.model.weightBytes().total };
      },
      { base: `/bench/.cache/${name}/`, files, weightsFile, weights, q8Activations },
    );
    // prefill(prompt) outside the timed and profiled part; steps() = 64 greedy steps.
    await page.evaluate(`window.prefill = (prompt) => {
      window.gen = window.m.generate({ ids: prompt, maxNewTokens: 64, temperature: 0 });
    };
    window.steps = () => {
      const t1 = performance.now();
      for (let i = 0; i < 64; i++) window.gen.step();
      const ms = (performance.now() - t1) / 64;
      window.gen.dispose();
      return ms;
    }`);
    const run = async (p) => {
      await page.evaluate((p) => window.prefill(p), p);
      return page.evaluate(() => window.steps());
    };
    const prompt = expected.prompt;
    const times = [];
    for (let i = 0; i < 4; i++) times.push(await run(prompt));
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    let profile;
    for (let i = 0; i < 2; i++) {
      await page.evaluate((p) => window.prefill(p), prompt);
      await cdp.send('Profiler.start');
      await page.evaluate(() => window.steps());
      const stopped = await cdp.send('Profiler.stop');
      if (profile) {
        // merged by name below: keep both runs' samples
        profile.extra = stopped.profile;
      } else profile = stopped.profile;
    }
    if (process.env.PROFILE_OUT) writeFileSync(`${process.env.PROFILE_OUT}-${key}.cpuprofile`, JSON.stringify(profile));
    const self = new Map();
    for (const one of [profile, profile.extra]) {
      const byId = new Map(one.nodes.map((n) => [n.id, n]));
      one.samples.forEach((id, i) => {
        const f = byId.get(id).callFrame;
        const k = f.functionName || '(anonymous)';
        self.set(k, (self.get(k) ?? 0) + (one.timeDeltas[i + 1] ?? 0) / 1000);
      });
    }
    const total = [...self.values()].reduce((a, b) => a + b, 0);
    const ms = times.slice(1).sort((a, b) => a - b)[1];
    console.log(
      `${key}: ${ms.toFixed(2)} ms/step (${(1000 / ms).toFixed(1)} tok/s; runs ${times.map((t) => t.toFixed(2)).join(' ')}), ` +
        `weights ${(info.weightBytes / 1e6).toFixed(1)} MB -> ${(info.weightBytes / ms / 1e6).toFixed(1)} GB/s; kernels ${JSON.stringify(info.kernels)}`,
    );
    for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 14)))
      console.log(
        `${((100 * v) / total).toFixed(1).padStart(5)}%  ${(v / 128).toFixed(3).padStart(7)} ms/step  ${k.slice(0, 150)}`,
      );
    await page.close();
  }
} finally {
  await browser.close();
  await server.close();
}
