// Decoding speed in headless Chromium (part of `npm run bench`): a 64-token prompt, then 64 new
// tokens by greedy search, for GPT-2 small and SmolLM2-135M (random weights; bench/make_gpt2.py,
// bench/make_modern.py), our engine against onnxruntime-web running the PyTorch reference's decode
// graph with past keys and values (bench/make_decode.py: decode.onnx), on the same weights.
//
// One part (a fresh browser on a cross-origin isolated page) per model and thread count:
//   threads 1: our 'simd' engine, onnxruntime-web 'wasm' with numThreads 1 (SIMD);
//   threads 2: our 'simd-threads' engine with 2 threads, onnxruntime-web with numThreads 2.
// In each part the engines are loaded once and timed in alternation (a busy machine slows all
// alike), after one untimed warm-up round, BENCH_DECODE_ROUNDS rounds (3):
//   ours F32:   model.safetensors (F32), loadPretrained({ weights: 'auto' }): float32 weights;
//   ours 16-bit: the 16-bit file (GPT-2: model-f16, SmolLM2: model-bf16), weights: 'auto' (kept 16-bit);
//   ours q8_0:  the 16-bit file quantized on load (weights: 'q8_0');
//   ours bf16:  the F32 file rounded to BF16 on load (weights: 'bf16'; GPT-2 then reads BF16, not F16);
//   ours q8_0 int16: the same with q8Activations: 'int16' (the GEMV in integers);
//   ours q8_0 int8: the same with q8Activations: 'int8' (ggml's Q8_0 x Q8_0: relaxed SIMD's integer dot);
//   ort:        decode.onnx, float32.
// A round of an engine: prefill = model.generate({ ids: prompt, maxNewTokens: 64, temperature: 0 })
// (our engine runs the prompt through the cached forward there) or the graph on the prompt with an
// empty past; decode = 64 steps, each the argmax of the last logits fed back as one token (ours:
// generation.step(); ort: one run with the presents as the next pasts). Tokens/s of decoding =
// 64 / decode time; the ratio is the median over rounds of ours / ort in the same round.
// Greedy agreement: how many of the 64 tokens equal the PyTorch reference's continuation
// (decode.json; random weights have close logits, so a 16- or 8-bit model may part ways early).
//
// Memory bandwidth: in the same page, a wasm module of one memory.copy copies 64 MiB between two
// halves of a 128 MiB memory (well beyond the caches), ~1 s of copies after a warm-up; the copy
// bandwidth counts the bytes read and written per second (STREAM's count; bytesPerSecond, the bytes
// copied, is half of it and is kept too: against it float32 decoding read faster than 100% of the
// "limit", so reading alone runs faster than a copy's n bytes a second and the stricter count is used).
// Decoding's share of the bandwidth limit: (the weight bytes read per token / copy bandwidth) /
// the measured time per token; the bytes read per token are the weights as held
// (model.weightBytes().total; for ort the float32 weights), each read once per token (GPT-2's
// position table, 0.6% of its float32 weights, is counted though only one row is read).
//
// Prints a table and writes bench/results/decode.json (docs/performance.md's table is made from it
// by `npm run docs:tables`, bench/decode_table.mjs).
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { ROOT, part } from './browser_support.mjs';
import { decodeTable } from './decode_table.mjs';

const ROUNDS = Number(process.env.BENCH_DECODE_ROUNDS ?? 3);
const NEW_TOKENS = 64;
const TARGET = 1.5; // the issue's: our tokens/s over onnxruntime-web's
const BANDWIDTH_TARGET = 0.6; // the issue's: decoding's share of the bandwidth limit
const MODELS = {
  'gpt2-small': { files: ['config.json', 'vocab.json', 'merges.txt'], low: 'model-f16/model.safetensors' },
  'smollm2-135m': {
    files: ['config.json', 'tokenizer.json', 'tokenizer_config.json'],
    low: 'model-bf16/model.safetensors',
  },
};
const only = process.argv.find((a) => a.startsWith('--only='))?.split('=')[1];
const threadCounts = (process.argv.find((a) => a.startsWith('--threads='))?.split('=')[1] ?? '1,2')
  .split(',')
  .map(Number);

if (Object.keys(MODELS).some((name) => !existsSync(`${ROOT}bench/.cache/${name}/decode.json`))) {
  const made = spawnSync('/usr/bin/python3', [`${ROOT}bench/make_decode.py`], { stdio: 'inherit' });
  if (made.status !== 0) throw new Error('bench/make_decode.py failed');
}

// In the page: copy bandwidth of wasm memory (memory.copy over 64 MiB, beyond any cache).
async function copyBandwidth({ seconds }) {
  // (module (memory (export "memory") 2048) (func (export "copy") (param i32 i32 i32)
  //   local.get 0 local.get 1 local.get 2 memory.copy))
  const bytes = new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, 0x01, 0x07, 0x01, 0x60, 0x03, 0x7f, 0x7f, 0x7f, 0x00, 0x03, 0x02,
    0x01, 0x00, 0x05, 0x04, 0x01, 0x00, 0x80, 0x10, 0x07, 0x11, 0x02, 0x06, 0x6d, 0x65, 0x6d, 0x6f, 0x72, 0x79, 0x02,
    0x00, 0x04, 0x63, 0x6f, 0x70, 0x79, 0x00, 0x00, 0x0a, 0x0e, 0x01, 0x0c, 0x00, 0x20, 0x00, 0x20, 0x01, 0x20, 0x02,
    0xfc, 0x0a, 0x00, 0x00, 0x0b,
  ]);
  const { instance } = await WebAssembly.instantiate(bytes);
  const { copy, memory } = instance.exports;
  const half = memory.buffer.byteLength / 2; // 64 MiB
  new Uint8Array(memory.buffer).fill(1); // touch every page
  for (let i = 0; i < 4; i++) copy(i % 2 ? 0 : half, i % 2 ? half : 0, half);
  let copied = 0;
  const t = performance.now();
  let i = 0;
  while (performance.now() - t < seconds * 1000) {
    copy(i % 2 ? 0 : half, i % 2 ? half : 0, half);
    copied += half;
    i++;
  }
  const s = (performance.now() - t) / 1000;
  return { bufferBytes: half, copies: i, bytesPerSecond: copied / s, streamBytesPerSecond: (2 * copied) / s };
}

// In the page: our engine with one weights file and option, kept in window.engines[slot].
async function loadOurs({ base, files, weightsFile, weights, q8Activations, threads, slot }) {
  const { bench } = window;
  const { loadAttention } = await import(threads > 1 ? '/dist/threads.js' : '/dist/index.js');
  const engine = await loadAttention(threads > 1 ? { build: 'simd-threads', threads } : { build: 'simd' });
  const t0 = performance.now();
  const bytes = await bench.fetchAll(base, [...files, weightsFile]);
  const m = await engine.loadPretrained({ files: bytes, weights, ...(q8Activations ? { q8Activations } : {}) });
  window.engines = { ...window.engines, [slot]: { kind: 'ours', m } };
  return {
    [slot]: {
      build: engine.build,
      threads: engine.threads ?? threads,
      kernels: engine.kernels,
      weightsFile,
      weights,
      q8Activations,
      loadMs: performance.now() - t0,
      weightBytes: m.model.weightBytes(),
    },
  };
}

async function loadOrt({ base, threads, kv, slot }) {
  const { bench } = window;
  const ortModule = await import('/node_modules/onnxruntime-web/dist/ort.wasm.min.mjs');
  const ort = ortModule.default ?? ortModule;
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.simd = true;
  ort.env.wasm.wasmPaths = '/node_modules/onnxruntime-web/dist/';
  const t0 = performance.now();
  const bytes = (await bench.fetchAll(base, ['decode.onnx']))['decode.onnx'];
  const session = await ort.InferenceSession.create(bytes, {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
  });
  window.engines = { ...window.engines, [slot]: { kind: 'ort', ort, session, kv } };
  return { [slot]: { version: ort.env.versions?.web, threads, loadMs: performance.now() - t0 } };
}

// In the page: every engine's generation, in alternation, rounds + 1 times (the first untimed).
async function timeDecoding({ prompt, newTokens, rounds }) {
  const argmax = (l) => {
    let best = 0;
    for (let i = 1; i < l.length; i++) if (l[i] > l[best]) best = i;
    return best;
  };
  const generate = {
    ours: async ({ m }) => {
      const t0 = performance.now();
      const gen = m.generate({ ids: prompt, maxNewTokens: newTokens, temperature: 0 });
      const t1 = performance.now();
      const tokens = [];
      for (let i = 0; i < newTokens; i++) tokens.push(gen.step().token);
      const t2 = performance.now();
      gen.dispose();
      return { prefillMs: t1 - t0, decodeMs: t2 - t1, tokens };
    },
    ort: async ({ ort, session, kv }) => {
      const pasts = {};
      for (let l = 0; l < kv.layers; l++)
        for (const t of ['k', 'v'])
          pasts[`past_${t}_${l}`] = new ort.Tensor('float32', new Float32Array(0), [1, kv.kvHeads, 0, kv.headDim]);
      const ids = (list) => new ort.Tensor('int64', BigInt64Array.from(list.map(BigInt)), [1, list.length]);
      const t0 = performance.now();
      let out = await session.run({ input_ids: ids(prompt), ...pasts });
      let next = argmax(out.logits.data);
      const t1 = performance.now();
      const tokens = [];
      for (let i = 0; i < newTokens; i++) {
        tokens.push(next);
        const feeds = { input_ids: ids([next]) };
        for (let l = 0; l < kv.layers; l++)
          for (const t of ['k', 'v']) feeds[`past_${t}_${l}`] = out[`present_${t}_${l}`];
        const previous = out;
        out = await session.run(feeds);
        for (const t of Object.values(previous)) t.dispose?.();
        next = argmax(out.logits.data);
      }
      const t2 = performance.now();
      for (const t of Object.values(out)) t.dispose?.();
      return { prefillMs: t1 - t0, decodeMs: t2 - t1, tokens };
    },
  };
  const runs = Object.fromEntries(Object.keys(window.engines).map((slot) => [slot, []]));
  for (let round = 0; round <= rounds; round++)
    for (const [slot, e] of Object.entries(window.engines)) {
      const r = await generate[e.kind](e);
      if (round > 0) runs[slot].push(r);
    }
  return { runs };
}

const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).trim();
const loadAverageAtStart = loadavg();
const parts = [];
for (const [name, model] of Object.entries(MODELS)) {
  if (only && only !== name) continue;
  const expected = JSON.parse(readFileSync(`${ROOT}bench/.cache/${name}/decode.json`, 'utf8'));
  const base = `/bench/.cache/${name}/`;
  for (const threads of threadCounts) {
    const ours = (slot, weightsFile, weights, q8Activations) => [
      loadOurs,
      { base, files: model.files, weightsFile, weights, q8Activations, threads, slot },
    ];
    const started = performance.now();
    const result = await part(copyBandwidth, { seconds: 1 }, [
      ours('f32', 'model.safetensors', 'auto'),
      ours('low', model.low, 'auto'),
      ours('q8', model.low, 'q8_0'),
      ours('bf16', 'model.safetensors', 'bf16'),
      ours('q8i', model.low, 'q8_0', 'int16'),
      ours('q8i8', model.low, 'q8_0', 'int8'),
      [loadOrt, { base, threads, kv: expected.kv, slot: 'ort' }],
      [timeDecoding, { prompt: expected.prompt, newTokens: NEW_TOKENS, rounds: ROUNDS }],
    ]);
    result.agreement = Object.fromEntries(
      Object.entries(result.runs).map(([slot, runs]) => {
        const tokens = runs[0].tokens;
        let same = 0;
        while (same < tokens.length && tokens[same] === expected.continuation[same]) same++;
        return [slot, { firstDifferent: same < tokens.length ? same : null, equalTokens: same }];
      }),
    );
    for (const runs of Object.values(result.runs)) for (const r of runs) delete r.tokens;
    parts.push({ model: name, threads, wallSeconds: (performance.now() - started) / 1000, ...result });
    console.log(`${name}, ${threads} thread(s): done in ${((performance.now() - started) / 1000).toFixed(0)} s`);
  }
}

mkdirSync(`${ROOT}bench/results`, { recursive: true });
const run = {
  date: new Date().toISOString(),
  commit,
  machine: { cpu: cpus()[0]?.model ?? 'unknown CPU', cores: cpus().length, chromium: parts[0]?.chromium },
  loadAverageAtStart,
  loadAverageAtEnd: loadavg(),
  promptTokens: 64,
  newTokens: NEW_TOKENS,
  rounds: ROUNDS,
  target: TARGET,
  bandwidthTarget: BANDWIDTH_TARGET,
  parts,
};
console.log(decodeTable(run).join('\n'));
writeFileSync(`${ROOT}bench/results/decode.json`, JSON.stringify(run, null, 2) + '\n');
