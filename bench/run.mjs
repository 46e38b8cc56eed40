// `npm run bench` (via scripts/bench.sh, which builds everything first): times
// multi-head self-attention in one run on this machine, single-threaded, after
// warm-up, median of repeated runs, for our native core (the roof), our wasm-simd
// and wasm-scalar builds in Node, onnxruntime-web and tfjs-backend-wasm; then the
// playground's full trace and the GEMM kernels. Prints a table and writes
// bench/results/latest.json.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { loadAttention } from '../dist/node.js';
import { onnxRuntime, tensorflowWasm } from './peers.mjs';
import { sortTimeToAccuracy, trainingTable } from './train.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const SHAPES = [
  [1, 16, 64, 4],
  [1, 64, 256, 8],
  [1, 128, 768, 12],
  [1, 512, 768, 12],
].map(([b, s, e, h]) => ({ b, s, e, h }));
const flops = ({ b, s, e }) => 8 * b * s * e * e + 4 * b * s * s * e; // QKV + out projections, Q K^T, weights V

// Median of repeated runs after warm-up: V8 first runs wasm in a baseline tier and
// optimizes hot functions later, so warm up for at least 0.5 s (and 5 runs), then
// time at least 15 runs and about 1 s of them.
async function medianMs(run) {
  const warmUp = performance.now();
  for (let i = 0; i < 5 || performance.now() - warmUp < 500; i++) await run();
  const times = [];
  const start = performance.now();
  while (times.length < 15 || (times.length < 2000 && performance.now() - start < 1000)) {
    const t = performance.now();
    await run();
    times.push(performance.now() - t);
  }
  times.sort((x, y) => x - y);
  return times[Math.floor(times.length / 2)];
}

function inputs({ b, s, e }) {
  const fill = (n, scale) =>
    Float32Array.from({ length: n }, (_, i) => ((((i * 2654435761) >>> 0) % 1000) / 1000 - 0.5) * scale);
  return {
    x: fill(b * s * e, 1),
    inProjWeight: fill(3 * e * e, 0.05),
    inProjBias: fill(3 * e, 0.1),
    outProjWeight: fill(e * e, 0.05),
    outProjBias: fill(e, 0.1),
  };
}

function maxRelativeDifference(a, b) {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / Math.max(1, Math.abs(b[i])));
  return worst;
}

const nativeLines = execFileSync(
  `${ROOT}build/native-bench/native_bench`,
  SHAPES.map(({ b, s, e, h }) => `${b},${s},${e},${h}`),
  { encoding: 'utf8' },
)
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line));
const native = Object.fromEntries(nativeLines.map((r) => [r.shape, r.ms]));

const ours = { simd: await loadAttention({ build: 'simd' }), scalar: await loadAttention({ build: 'scalar' }) };
const rows = [];
for (const shape of SHAPES) {
  const w = inputs(shape);
  const call = (engine) => () =>
    engine.multiHeadAttention({
      query: w.x,
      batch: shape.b,
      querySeq: shape.s,
      embedDim: shape.e,
      heads: shape.h,
      inProjWeight: w.inProjWeight,
      inProjBias: w.inProjBias,
      outProjWeight: w.outProjWeight,
      outProjBias: w.outProjBias,
    }).output;
  const reference = call(ours.simd)();
  // Our engine with the weights prepared once (copied and packed), as an app running one
  // layer many times would use it; the peers receive the weights with every call.
  const prepared = ours.simd.prepareWeights({
    embedDim: shape.e,
    inProjWeight: w.inProjWeight,
    inProjBias: w.inProjBias,
    outProjWeight: w.outProjWeight,
    outProjBias: w.outProjBias,
  });
  const callPrepared = () =>
    ours.simd.multiHeadAttention({
      query: w.x,
      batch: shape.b,
      querySeq: shape.s,
      embedDim: shape.e,
      heads: shape.h,
      weights: prepared,
    }).output;
  const peers = [await onnxRuntime(shape, w), await tensorflowWasm(shape, w)];
  const row = { shape, gflop: flops(shape) / 1e9, native: native[`${shape.b},${shape.s},${shape.e},${shape.h}`] };
  row.simd = await medianMs(call(ours.simd));
  row.scalar = await medianMs(call(ours.scalar));
  row.simdPrepared = await medianMs(callPrepared);
  prepared.dispose();
  row.agreement = { scalar: maxRelativeDifference(call(ours.scalar)(), reference) };
  for (const peer of peers) {
    row[peer.name] = await medianMs(peer.run);
    row.agreement[peer.name] = maxRelativeDifference(await peer.run(), reference);
    row.versions = { ...row.versions, [peer.name]: peer.version };
  }
  rows.push(row);
}

// The playground's own full trace: default configuration, 32 tokens, every stage kept.
const text = Array.from({ length: 32 }, (_, i) => `w${i % 13}`).join(' ');
const trace = {
  native: native.trace,
  simd: await medianMs(() => ours.simd.run({ texts: [text] })),
  scalar: await medianMs(() => ours.scalar.run({ texts: [text] })),
};

// The relaxed-SIMD twin lists every GEMM variant: mul + add and relaxed SIMD's fused multiply-add.
const kernels = execFileSync(
  'node',
  [`${ROOT}scripts/run-relaxed.cjs`, `${ROOT}build/wasm-simd/kernel_bench_relaxed.js`],
  { encoding: 'utf8' },
)
  .trim()
  .split('\n')
  .map((line) => JSON.parse(line));

// The float GEMMs' table; the rows of a weight held in 16 or 8 bits (weightBytes) are apart.
const floatGemm = kernels.filter((k) => k.gflops && k.weightBytes === undefined);

// Training: one step (forward, backward, optimizer) per engine, and sort's time to 99%.
const training = await trainingTable();
const sort = await sortTimeToAccuracy();
const bestGemm = Math.max(
  ...kernels.filter((k) => k.kernel === ours.simd.kernels.gemm && k.gflops).map((k) => k.gflops),
);

// Report.
const f = (ms) => (ms < 1 ? ms.toFixed(3) : ms.toFixed(2));
const gf = (row, ms) => (row.gflop / (ms / 1000)).toFixed(1);
const x = (a, b) => `${(a / b).toFixed(2)}x`;
const cpu = cpus()[0]?.model ?? 'unknown CPU';
const lines = [
  `Machine: ${cpu}, ${cpus().length} cores (one used), Node ${process.version}; onnxruntime-web ${rows[0].versions['onnxruntime-web']}, tfjs ${rows[0].versions['tfjs-backend-wasm']}`,
  '',
  '| (B,S,E,H) | native ms | wasm-simd ms | wasm-scalar ms | onnxruntime-web ms | tfjs-wasm ms | wasm-simd GFLOP/s | simd vs ort | simd vs tfjs | wasm-simd, weights prepared ms | prepared vs ort |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map(
    (r) =>
      `| (${r.shape.b},${r.shape.s},${r.shape.e},${r.shape.h}) | ${f(r.native)} | ${f(r.simd)} | ${f(r.scalar)} | ${f(r['onnxruntime-web'])} | ${f(r['tfjs-backend-wasm'])} | ${gf(r, r.simd)} | ${x(r['onnxruntime-web'], r.simd)} | ${x(r['tfjs-backend-wasm'], r.simd)} | ${f(r.simdPrepared)} | ${x(r['onnxruntime-web'], r.simdPrepared)} |`,
  ),
  `| playground trace (default, 32 tokens) | ${f(trace.native)} | ${f(trace.simd)} | ${f(trace.scalar)} | – | – | – | – | – | – | – |`,
  '',
  'GEMM kernels in wasm (Node), GFLOP/s:',
  '',
  '| shape | ' + [...new Set(floatGemm.map((k) => k.kernel))].join(' | ') + ' |',
  '|---|' + [...new Set(floatGemm.map((k) => k.kernel))].map(() => '---').join('|') + '|',
  ...[...new Set(floatGemm.map((k) => k.shape))].map(
    (shape) =>
      `| ${shape} | ${floatGemm
        .filter((k) => k.shape === shape)
        .map((k) => k.gflops.toFixed(1))
        .join(' | ')} |`,
  ),
  '',
  'A linear layer with its 1024 x 1024 weight in float32 (packed) and in 16 / 8 bits (wasm, Node), GFLOP/s:',
  '',
  '| shape | kernel | weight MB | GFLOP/s |',
  '|---|---|---|---|',
  ...kernels
    .filter((k) => k.weightBytes !== undefined && !k.gemv)
    .map((k) => `| ${k.shape} | ${k.kernel} | ${(k.weightBytes / 2 ** 20).toFixed(2)} | ${k.gflops.toFixed(1)} |`),
  '',
  `Decode's GEMV (1 row of x), weight bytes read per second; copy bandwidth (memcpy): ${(
    kernels.find((k) => k.kernel === 'memcpy').bytesPerSecond / 1e9
  ).toFixed(1)} GB/s`,
  '',
  '| shape | kernel | weight MB | µs | weight GB/s | GFLOP/s |',
  '|---|---|---|---|---|---|',
  ...kernels
    .filter((k) => k.gemv)
    .map(
      (k) =>
        `| ${k.shape} | ${k.kernel} | ${(k.weightBytes / 2 ** 20).toFixed(2)} | ${(k.ms * 1000).toFixed(0)} | ${(k.bytesPerSecond / 1e9).toFixed(1)} | ${k.gflops.toFixed(1)} |`,
    ),
  '',
  'Training, one step (forward + backward + optimizer) of a causal pre-LN transformer on the same batch, ms (single thread):',
  '',
  '| (E, layers, H, F, S, B) | wasm-simd | wasm-simd-threads, 2 threads | wasm-scalar | tfjs-wasm (Adam) | PyTorch CPU, 1 thread | native | simd vs tfjs | simd vs PyTorch | 2 threads vs 1 | simd GFLOP/s | of the best simd GEMM |',
  '|---|---|---|---|---|---|---|---|---|---|---|---|',
  ...training.map(
    ({ shape: t, flops: fl, ms }) =>
      `| (${t.e}, ${t.layers}, ${t.h}, ${t.f}, ${t.s}, ${t.b}) | ${f(ms.simd)} | ${f(ms['simd-threads'])} | ${f(ms.scalar)} | ${f(ms['tfjs-wasm'])} | ${f(ms['pytorch-cpu-1thread'])} | ${f(ms.native)} | ${x(ms['tfjs-wasm'], ms.simd)} | ${x(ms['pytorch-cpu-1thread'], ms.simd)} | ${x(ms.simd, ms['simd-threads'])} | ${(fl / 1e6 / ms.simd).toFixed(1)} | ${((100 * fl) / 1e6 / ms.simd / bestGemm).toFixed(0)}% |`,
  ),
  '',
  `Sort of length 8 (d_model 64, 2 layers, batch 32, wasm-simd in Node): ${(100 * sort.sequenceAccuracy).toFixed(1)}% held-out sequence accuracy after ${sort.steps} steps, ${sort.seconds.toFixed(1)} s.`,
  '',
  `Peers agree with wasm-simd to a max relative difference of ${Math.max(...rows.flatMap((r) => Object.values(r.agreement))).toExponential(1)}.`,
];
console.log(lines.join('\n'));
writeFileSync(
  `${ROOT}bench/results/latest.json`,
  JSON.stringify(
    {
      date: new Date().toISOString(),
      machine: { cpu, cores: cpus().length, node: process.version },
      mha: rows,
      trace,
      kernels,
      training,
      sort,
      table: lines.join('\n'),
    },
    null,
    2,
  ) + '\n',
);
