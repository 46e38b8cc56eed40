// GPT-2 small in headless Chromium (part of `npm run bench`): our engine's
// loadPretrained + forward against onnxruntime-web on the same weights, single thread,
// wasm SIMD, 64 tokens. The model is bench/make_gpt2.py's (random weights, GPT-2 small's
// shapes, GPT-2's real tokenizer files; cached in bench/.cache/gpt2-small, written when
// missing). Each part runs in its own browser, so the renderer's peak RSS is its own:
//   ours-f32: fetch the hub files from a local server, loadPretrained({ files }) from the
//             bytes, forward with the 12 attentions recorded ('*.self_attn.weights'), with
//             every stage recorded (record: true), and with nothing recorded;
//   ours-f16: the same weights stored as F16 (the engine decodes them to float32);
//   ort:      onnxruntime-web 'wasm' (numThreads 1, SIMD) on the float32 ONNX export of the
//             PyTorch reference (weights as initializers; outputs logits and the 12
//             attentions): session creation, then run.
//   timing:   both engines loaded in one page, forwards timed in alternation (ours with the
//             attentions, record: true, nothing recorded; ort), after a warm-up (V8 tiers wasm
//             up late), median of BENCH_RUNS rounds (9), so a busy machine slows all alike.
// Both engines' logits and attentions are checked against the float64 PyTorch forward.
// Prints a table and writes bench/results/pretrained.json. With --profile, instead: one
// warmed-up forward of ours under Chromium's CPU profiler, the hottest functions' self time.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { ROOT, part, profileForward } from './browser_support.mjs';
const CACHE = 'bench/.cache/gpt2-small';
const RUNS = Number(process.env.BENCH_RUNS ?? 9); // timed rounds (one forward per engine and mode each)
const WARM_MS = Number(process.env.BENCH_WARM_MS ?? 4000); // warm-up: at least this long and 2 rounds

if (!existsSync(`${ROOT}${CACHE}/expected.json`) || process.argv.includes('--remake')) {
  const made = spawnSync(
    '/usr/bin/python3',
    [`${ROOT}bench/make_gpt2.py`, ...(process.argv.includes('--remake') ? ['--force'] : [])],
    { stdio: 'inherit' },
  );
  if (made.status !== 0) throw new Error('bench/make_gpt2.py failed');
}
const expected = JSON.parse(readFileSync(`${ROOT}${CACHE}/expected.json`, 'utf8'));
async function ours({ weights, ids, keep = false, relaxedSimd = undefined, slot = 'ours' }) {
  const { bench } = window;
  const base = '/bench/.cache/gpt2-small/';
  const { loadAttention } = await import('/dist/index.js');
  const engine = await loadAttention({ build: 'simd', relaxedSimd });
  const heapBefore = engine.heapBytesInUse();
  const t0 = performance.now();
  let files = await bench.fetchAll(base, ['config.json', 'vocab.json', 'merges.txt', weights]);
  const t1 = performance.now();
  const m = await engine.loadPretrained({ files });
  const t2 = performance.now();
  files = null;
  const afterLoad = { wasmMemory: engine.memoryBytes(), heapInUse: engine.heapBytesInUse() - heapBefore };
  const input = { ids: Int32Array.from(ids), batch: 1, seq: ids.length };
  const want = await bench.expected(base);
  const out = m.forward({ ...input, record: { stages: ['*.self_attn.weights'] } });
  const attentions = out.trace.stages.filter((s) => s.name.endsWith('self_attn.weights'));
  const check = {
    logits: bench.maxAbsDifference(out.logits, want.logits),
    attentions: bench.maxAbsDifference(bench.concat(attentions.map((s) => s.data)), want.attentions),
    recorded: attentions.length,
    shape: attentions[0].shape,
    tokenize: Array.from(m.tokenize(' The cat sat on the mat.').ids),
  };
  const stagesRecordedByTrue = m.forward({ ...input, record: true }).trace.stages.length;
  if (keep) {
    window[slot] = { m, input };
    return { [`${slot}Kernels`]: engine.kernels, loadMs: t2 - t1 };
  }
  window.alive = { engine, m }; // measured below: keep them from being collected
  globalThis.gc?.();
  return {
    kernels: engine.kernels,
    fetchMs: t1 - t0,
    loadMs: t2 - t1,
    afterLoad,
    check,
    stagesRecordedByTrue,
    afterRuns: { wasmMemory: engine.memoryBytes(), heapInUse: engine.heapBytesInUse() - heapBefore },
    jsHeap: performance.memory?.usedJSHeapSize ?? null,
    uaMemory: await bench.uaMemory(),
  };
}

async function ort({ ids, layers, keep = false }) {
  const { bench } = window;
  const base = '/bench/.cache/gpt2-small/';
  const ortModule = await import('/node_modules/onnxruntime-web/dist/ort.wasm.min.mjs');
  const ort = ortModule.default ?? ortModule;
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  ort.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';
  const t0 = performance.now();
  let bytes = (await bench.fetchAll(base, [`gpt2-small-s${ids.length}.onnx`]))[`gpt2-small-s${ids.length}.onnx`];
  const t1 = performance.now();
  const session = await ort.InferenceSession.create(bytes, {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
  });
  const t2 = performance.now();
  bytes = null;
  const feeds = { input_ids: new ort.Tensor('int64', BigInt64Array.from(ids.map(BigInt)), [1, ids.length]) };
  const want = await bench.expected(base);
  const out = await session.run(feeds);
  const check = {
    logits: bench.maxAbsDifference(out.logits.data, want.logits),
    attentions: bench.maxAbsDifference(
      bench.concat(Array.from({ length: layers }, (_, i) => out[`attn_${i}`].data)),
      want.attentions,
    ),
    recorded: layers,
    shape: out.attn_0.dims,
  };
  for (const t of Object.values(out)) t.dispose?.();
  if (keep) {
    window.ort = { session, feeds };
    return { loadMs: t2 - t1 };
  }
  window.alive = { session };
  globalThis.gc?.();
  return {
    version: ort.env.versions?.web,
    fetchMs: t1 - t0,
    loadMs: t2 - t1,
    check,
    jsHeap: performance.memory?.usedJSHeapSize ?? null,
    uaMemory: await bench.uaMemory(),
  };
}

// Both engines in one page, timed in alternation (ours with 12 attentions, ours with
// record: true, ours with nothing recorded, ours with 12 attentions on mul + add instead of
// relaxed SIMD's fused multiply-add, onnxruntime-web), so a busy machine slows all alike.
async function timing({ runs, warmMs }) {
  const { m, input } = window.ours;
  const plain = window.oursPlain;
  const { session, feeds } = window.ort;
  const modes = {
    attentions: () => {
      m.forward({ ...input, record: { stages: ['*.self_attn.weights'] } });
    },
    plain: () => {
      plain.m.forward({ ...plain.input, record: { stages: ['*.self_attn.weights'] } });
    },
    all: () => {
      m.forward({ ...input, record: true });
    },
    none: () => {
      m.forward(input);
    },
    ort: async () => {
      const r = await session.run(feeds);
      for (const t of Object.values(r)) t.dispose?.();
    },
  };
  const start = performance.now();
  for (let i = 0; i < 2 || performance.now() - start < warmMs; i++) for (const run of Object.values(modes)) await run();
  const times = Object.fromEntries(Object.keys(modes).map((k) => [k, []]));
  for (let i = 0; i < runs; i++)
    for (const [k, run] of Object.entries(modes)) {
      const t = performance.now();
      await run();
      times[k].push(performance.now() - t);
    }
  const median = (t) => [...t].sort((a, b) => a - b)[Math.floor(t.length / 2)];
  const stat = (t) => {
    const s = [...t].sort((a, b) => a - b);
    return { median: median(t), min: s[0], max: s[s.length - 1], runs: t };
  };
  // The machine's speed drifts between rounds; within a round both engines ran back to
  // back, so the median of the per-round ratios is the steadiest comparison.
  const pairedRatio = median(times.ort.map((o, i) => o / times.attentions[i]));
  const pairedRatioPlain = median(times.ort.map((o, i) => o / times.plain[i]));
  return { ...Object.fromEntries(Object.entries(times).map(([k, t]) => [k, stat(t)])), pairedRatio, pairedRatioPlain };
}

const ids = expected.input_ids;

// --profile: one warmed-up forward of ours (12 attentions recorded) under the CPU profiler
// (--profile=ort: onnxruntime-web's); prints the self time of the hottest functions.
if (process.argv.some((a) => a.startsWith('--profile'))) {
  const profileOrt = process.argv.includes('--profile=ort');
  await profileForward({
    label: `One forward (${profileOrt ? 'onnxruntime-web' : 'ours'}), 12 attentions recorded`,
    setup: profileOrt
      ? [ort, { ids, layers: 12, keep: true }]
      : [ours, { ids, weights: 'model.safetensors', keep: true }],
    forward: profileOrt
      ? async () => {
          const r = await window.ort.session.run(window.ort.feeds);
          for (const t of Object.values(r)) t.dispose?.();
        }
      : async () => {
          window.ours.m.forward({ ...window.ours.input, record: { stages: ['*.self_attn.weights'] } });
        },
  });
  process.exit(0);
}

const results = { loadAverageAtStart: loadavg() };
results.ours = await part(ours, { ids, weights: 'model.safetensors' });
results.oursF16 = await part(ours, { ids, weights: 'model-f16/model.safetensors' });
results.ort = await part(ort, { ids, layers: 12 });
results.timing = await part(ours, { ids, weights: 'model.safetensors', keep: true }, [
  [ours, { ids, weights: 'model.safetensors', keep: true, relaxedSimd: false, slot: 'oursPlain' }],
  [ort, { ids, layers: 12, keep: true }],
  [timing, { runs: RUNS, warmMs: WARM_MS }],
]);

// Report.
const MB = (bytes) => (bytes == null ? '–' : `${(bytes / 2 ** 20).toFixed(0)} MB`);
const ms = (t) => (t == null ? '–' : t.toFixed(0));
const x = (a, b) => `${(a / b).toFixed(2)}x`;
const cpu = cpus()[0]?.model ?? 'unknown CPU';
const o = results.ours;
const f = results.oursF16;
const r = results.ort;
const t = results.timing;
const diff = (c) =>
  `logits ${c.logits.maxAbs.toExponential(1)} (of ${c.logits.maxAbsOfExpected.toFixed(2)}), attentions ${c.attentions.maxAbs.toExponential(1)}`;
const sizes = expected.sizes;
const lines = [
  `GPT-2 small (124M, random weights) in headless Chromium ${o.chromium}, ${cpu}, ${cpus().length} cores, one thread, wasm SIMD ` +
    `(ours: ${t.oursKernels.gemm}; the mul + add column: ${t.oursPlainKernels.gemm}); ` +
    `onnxruntime-web ${r.version} (wasm, numThreads 1, graphOptimizationLevel all); 64 tokens; median of ${RUNS} runs after warm-up.`,
  '',
  '| | ours, 12 attentions recorded | ours, record: true | ours, nothing recorded | ours, attentions, mul + add | onnxruntime-web (logits + 12 attentions) | ort / ours (attentions) | ort / ours (mul + add) |',
  '|---|---|---|---|---|---|---|---|',
  `| forward, median ms | ${ms(t.attentions.median)} | ${ms(t.all.median)} | ${ms(t.none.median)} | ${ms(t.plain.median)} | ${ms(t.ort.median)} | ${x(t.ort.median, t.attentions.median)} | ${x(t.ort.median, t.plain.median)} |`,
  `| forward, fastest ms | ${ms(t.attentions.min)} | ${ms(t.all.min)} | ${ms(t.none.min)} | ${ms(t.plain.min)} | ${ms(t.ort.min)} | ${x(t.ort.min, t.attentions.min)} | ${x(t.ort.min, t.plain.min)} |`,
  `| per-round ratio, median of ${RUNS} | | | | | | ${t.pairedRatio.toFixed(2)}x | ${t.pairedRatioPlain.toFixed(2)}x |`,
  '',
  '| load | file | fetch from localhost, ms | load from bytes, ms | fetch + load, ms | renderer peak RSS | renderer RSS at end | wasm memory after load | engine heap in use |',
  '|---|---|---|---|---|---|---|---|---|',
  `| ours, F32 safetensors | ${MB(sizes['model.safetensors'])} | ${ms(o.fetchMs)} | ${ms(o.loadMs)} | ${ms(o.fetchMs + o.loadMs)} | ${MB(o.peakRssBytes)} | ${MB(o.rssBytes)} | ${MB(o.afterLoad.wasmMemory)} | ${MB(o.afterLoad.heapInUse)} |`,
  `| ours, F16 safetensors | ${MB(sizes['model-f16/model.safetensors'])} | ${ms(f.fetchMs)} | ${ms(f.loadMs)} | ${ms(f.fetchMs + f.loadMs)} | ${MB(f.peakRssBytes)} | ${MB(f.rssBytes)} | ${MB(f.afterLoad.wasmMemory)} | ${MB(f.afterLoad.heapInUse)} |`,
  `| onnxruntime-web, ONNX (session creation) | ${MB(sizes[`gpt2-small-s${ids.length}.onnx`])} | ${ms(r.fetchMs)} | ${ms(r.loadMs)} | ${ms(r.fetchMs + r.loadMs)} | ${MB(r.peakRssBytes)} | ${MB(r.rssBytes)} | – | – |`,
  '',
  `Load ratio (ort session creation / our load from bytes): ${x(r.loadMs, o.loadMs)}; forward ratio (ort / ours, attentions): ${x(t.ort.median, t.attentions.median)} (medians), ${t.pairedRatio.toFixed(2)}x (median of the per-round ratios).`,
  `measureUserAgentSpecificMemory at the end: ours ${MB(o.uaMemory)}, ours F16 ${MB(f.uaMemory)}, ort ${MB(r.uaMemory)}.`,
  `record: true keeps ${o.stagesRecordedByTrue} stages. Machine load average when done: ${loadavg()
    .map((l) => l.toFixed(1))
    .join(', ')}.`,
  `Against the float64 PyTorch forward (max abs difference): ours ${diff(o.check)}; onnxruntime-web ${diff(r.check)}; ours from F16 ${diff(f.check)} (F16-rounded weights).`,
];
console.log(lines.join('\n'));
mkdirSync(`${ROOT}bench/results`, { recursive: true });
const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
writeFileSync(
  `${ROOT}bench/results/pretrained.json`,
  JSON.stringify(
    {
      date: new Date().toISOString(),
      commit,
      machine: { cpu, cores: cpus().length, chromium: o.chromium },
      model: { name: 'gpt2-small (random weights, bench/make_gpt2.py)', seq: ids.length, sizes },
      runs: RUNS,
      warmMs: WARM_MS,
      results,
      table: lines.join('\n'),
    },
    null,
    2,
  ) + '\n',
);
