// The head tools on GPT-2 small in headless Chromium (part of `npm run bench`; issue 29): the
// model is bench/make_gpt2.py's (random weights, GPT-2 small's shapes, GPT-2's real tokenizer;
// bench/.cache/gpt2-small, written when missing), loaded with loadPretrained from its files.
// Prompts: the page's example, "When Mary and John went to the store, John gave a drink to"
// against the same with Mary as the giver, after <|endoftext|> (TransformerLens's BOS): 15
// tokens each; the metric is logit(" Mary") - logit(" John") at the last position. Timed, per
// engine (the SIMD engine on one thread; the threaded engine on every core):
//   exact heads    model.patch({ over: 'heads' }): all 12 x 12 heads, exact (aim < 20 s)
//   exact resid    model.patch({ over: 'resid' }): 12 layers x 15 positions, exact
//   attribution    model.patch({ over: 'heads', method: 'attribution' }): one forward of each
//                  prompt and one backward (aim < 2 s)
//   detectors      model.headScores() of the 144 heads, each kind (defaults: 4 sequences of
//                  2 x 10 random tokens) (aim < 3 s for each)
// each once after a warm-up (two attribution runs and one detector run); and how far
// attribution patching agrees with exact patching (Pearson correlation over the 144 heads and
// over the 180 residual cells).
// Prints a table (bench/heads_table.mjs) and writes bench/results/heads.json.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { ROOT, part } from './browser_support.mjs';
import { headsTable } from './heads_table.mjs';

const CACHE = 'bench/.cache/gpt2-small';
if (!existsSync(`${ROOT}${CACHE}/expected.json`)) {
  const made = spawnSync('/usr/bin/python3', [`${ROOT}bench/make_gpt2.py`], { stdio: 'inherit' });
  if (made.status !== 0) throw new Error('bench/make_gpt2.py failed');
}

const PROMPTS = {
  clean: 'When Mary and John went to the store, John gave a drink to',
  corrupted: 'When Mary and John went to the store, Mary gave a drink to',
  good: ' Mary',
  bad: ' John',
};

async function heads({ build, prompts }) {
  const { bench } = window;
  // The threaded engine comes with its own entry point (attention-playground/threads).
  const { loadAttention } = await import(build === 'simd-threads' ? '/dist/threads.js' : '/dist/index.js');
  const engine = await loadAttention({ build });
  const files = await bench.fetchAll('/bench/.cache/gpt2-small/', [
    'config.json',
    'vocab.json',
    'merges.txt',
    'model.safetensors',
  ]);
  const { model, tokenizer } = await engine.loadPretrained({ files });
  const bos = model.spec.vocabSize - 1; // <|endoftext|>
  const ids = (text) => [bos, ...tokenizer.encode(text).ids];
  const one = (text) => {
    const t = tokenizer.encode(text).ids;
    if (t.length !== 1) throw new Error(`${JSON.stringify(text)} is ${t.length} tokens`);
    return t[0];
  };
  const clean = ids(prompts.clean);
  const corrupted = ids(prompts.corrupted);
  const options = { clean, corrupted, tokens: [one(prompts.good), one(prompts.bad)] };
  const timed = async (run) => {
    const t = performance.now();
    const result = await run();
    return { ms: performance.now() - t, result };
  };
  // Warm-up: the same layers, forward and backward, and the detectors' forward (V8 tiers wasm
  // up late); each timed call then runs once (a patching run is long enough to be its own median).
  await model.patch({ ...options, over: 'heads', method: 'attribution' });
  await model.patch({ ...options, over: 'heads', method: 'attribution' });
  model.headScores({ kind: 'induction' });
  const exactHeads = await timed(() => model.patch({ ...options, over: 'heads' }));
  const exactResid = await timed(() => model.patch({ ...options, over: 'resid' }));
  const attributionHeads = await timed(() => model.patch({ ...options, over: 'heads', method: 'attribution' }));
  const attributionResid = await timed(() => model.patch({ ...options, over: 'resid', method: 'attribution' }));
  const detectors = {};
  for (const kind of ['previous', 'duplicate', 'induction'])
    detectors[kind] = (await timed(() => model.headScores({ kind }))).ms;
  const correlation = (a, b) => {
    const mean = (v) => v.reduce((s, x) => s + x, 0) / v.length;
    const x = Array.from(a);
    const y = Array.from(b);
    const mx = mean(x);
    const my = mean(y);
    let sxy = 0;
    let sxx = 0;
    let syy = 0;
    for (let i = 0; i < x.length; i++) {
      sxy += (x[i] - mx) * (y[i] - my);
      sxx += (x[i] - mx) ** 2;
      syy += (y[i] - my) ** 2;
    }
    return sxy / Math.sqrt(sxx * syy);
  };
  return {
    build: engine.build,
    threads: engine.threads,
    kernels: engine.kernels,
    seq: clean.length,
    cleanDiff: exactHeads.result.cleanDiff,
    corruptedDiff: exactHeads.result.corruptedDiff,
    exactHeadsMs: exactHeads.ms,
    exactResidMs: exactResid.ms,
    attributionHeadsMs: attributionHeads.ms,
    attributionResidMs: attributionResid.ms,
    detectorsMs: detectors,
    agreement: {
      heads: correlation(exactHeads.result.recovered, attributionHeads.result.recovered),
      resid: correlation(exactResid.result.recovered, attributionResid.result.recovered),
    },
  };
}

const results = { loadAverageAtStart: loadavg() };
results.oneThread = await part(heads, { build: 'simd', prompts: PROMPTS });
results.threads = await part(heads, { build: 'simd-threads', prompts: PROMPTS });
const run = {
  date: new Date().toISOString(),
  commit: execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim(),
  machine: { cpu: cpus()[0]?.model ?? 'unknown CPU', cores: cpus().length, chromium: results.oneThread.chromium },
  model: 'gpt2-small (random weights, bench/make_gpt2.py)',
  prompts: PROMPTS,
  loadAverageAtEnd: loadavg(),
  results,
};
const table = headsTable(run);
console.log(table.join('\n'));
mkdirSync(`${ROOT}bench/results`, { recursive: true });
writeFileSync(`${ROOT}bench/results/heads.json`, JSON.stringify({ ...run, table: table.join('\n') }, null, 2) + '\n');
