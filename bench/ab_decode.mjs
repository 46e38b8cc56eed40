// A/B of engine builds on greedy decode steps of GPT-2 small in one Chromium page: each variant
// (a relaxed .wasm under the worktree, the glue dist/wasm/attention-simd.mjs) with one weights
// option, 64-step runs alternated. Usage: node bench/ab_decode.mjs f16 dist/ab/a.wasm dist/ab/b.wasm
// A variant "<file.wasm>:<int8Dot>" loads it with loadAttention's int8Dot cap ('split', 'plain'),
// so one build compares Q8_0's int8 dots: node bench/ab_decode.mjs q8i8 x.wasm x.wasm:split
// A variant "<file.wasm>@<dir>" reads the weights file's name from the folder <dir> of the model's
// instead ("." the model's own, its float32 file), so one build compares weights files (issue 28:
// node bench/ab_decode.mjs f16 x.wasm x.wasm@model-f16-flushed, bench/f16_subnormals.py's copy);
// the tokens may then differ, and the count of tokens equal to the first variant's is printed.
import { readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { ROOT, DECODE_WEIGHTS_OPTIONS, openBenchPage } from './browser_support.mjs';
import { serveDirectory } from '../tests/support/static-server.mjs';
import { launchChromium } from '../tests/support/browser.mjs';

const name = 'gpt2-small';
const files = ['config.json', 'vocab.json', 'merges.txt'];
const configs = DECODE_WEIGHTS_OPTIONS;
const [key, ...variants] = process.argv.slice(2);
if (!configs[key] || variants.length === 0) {
  console.error(
    `usage: [AB_ROUNDS=6] node bench/ab_decode.mjs <${Object.keys(configs).join('|')}> <a.wasm[:int8Dot][@weightsDir]> [b.wasm ...]`,
  );
  process.exit(2);
}
const rounds = Number(process.env.AB_ROUNDS ?? 6);
const [weightsFile, weights, q8Activations] = configs[key];
const fileOf = (v) => (v.includes('@') ? `${v.split('@')[1]}/${weightsFile.split('/').pop()}` : weightsFile);
const expected = JSON.parse(readFileSync(`${ROOT}bench/.cache/${name}/decode.json`, 'utf8'));
const server = await serveDirectory(ROOT, { isolated: true });
const browser = await launchChromium();
try {
  const page = await openBenchPage(browser, server);
  const tokens = await page.evaluate(
    async ({ base, files, weightsFiles, weights, q8Activations, variants, prompt }) => {
      const { loadAttention } = await import('/dist/index.js');
      const common = await window.bench.fetchAll(base, files);
      const fetched = {};
      window.models = [];
      const out = [];
      for (const [i, v] of variants.entries()) {
        const [file, int8Dot] = v.split('@')[0].split(':');
        fetched[weightsFiles[i]] ??= await window.bench.fetchAll(base, [weightsFiles[i]]);
        const bytes = { ...common, ...fetched[weightsFiles[i]] };
        const engine = await loadAttention({
          build: 'simd',
          ...(int8Dot ? { int8Dot } : {}),
          locateWasm: () => new URL('/' + file, location.href),
        });
        const m = await engine.loadPretrained({ files: bytes, weights, ...(q8Activations ? { q8Activations } : {}) });
        window.models.push(m);
        const gen = m.generate({ ids: prompt, maxNewTokens: 64, temperature: 0 });
        const t = [];
        for (let i = 0; i < 64; i++) t.push(gen.step().token);
        gen.dispose();
        out.push(t.join(','));
      }
      window.run = (i) => {
        const gen = window.models[i].generate({ ids: prompt, maxNewTokens: 64, temperature: 0 });
        const t1 = performance.now();
        for (let s = 0; s < 64; s++) gen.step();
        const ms = (performance.now() - t1) / 64;
        gen.dispose();
        return ms;
      };
      return out;
    },
    {
      base: `/bench/.cache/${name}/`,
      files,
      weightsFiles: variants.map(fileOf),
      weights,
      q8Activations,
      variants,
      prompt: expected.prompt,
    },
  );
  const times = variants.map(() => []);
  for (let r = 0; r < rounds; r++)
    for (let i = 0; i < variants.length; i++) times[i].push(await page.evaluate((i) => window.run(i), i));
  const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
  console.log(
    `${key}, load ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}; same tokens: ${tokens.every((t) => t === tokens[0])}`,
  );
  const same = (i) => {
    const [a, b] = [tokens[0].split(','), tokens[i].split(',')];
    if (tokens[i] === tokens[0]) return '';
    const matching = b.filter((t, s) => t === a[s]).length;
    return `, ${matching}/${a.length} tokens as the first's (the first different at step ${b.findIndex((t, s) => t !== a[s])})`;
  };
  variants.forEach((v, i) =>
    console.log(
      `  ${v}${same(i)}: median ${median(times[i]).toFixed(2)} ms/step (${(1000 / median(times[i])).toFixed(1)} tok/s) runs ${times[i].map((t) => t.toFixed(2)).join(' ')}`,
    ),
  );
} finally {
  await browser.close();
  await server.close();
}
