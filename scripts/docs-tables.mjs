// Writes the docs' generated blocks, so numbers are never copied by hand:
//   - docs/performance.md: the bench tables, from bench/results/latest.json (npm run bench),
//     latency.json (bench/browser_latency.mjs), pretrained.json (bench/browser_pretrained.mjs) and
//     pretrained-modern.json (bench/browser_modern.mjs, whose own table function makes its block) and
//     heads.json (bench/browser_heads.mjs, likewise: bench/heads_table.mjs);
//     decode.json (bench/browser_decode.mjs, likewise: bench/decode_table.mjs);
//   - docs/embedding.md: the one-file element's size, from the build's record (dist/sizes.json)
//     and its budget (web/src/element/size-budget.json);
//   - docs/limits.md: the engine's limits and setting ranges, and docs/api.md: the error
//     codes, from the built package (dist/node.js: LIMITS, ERROR_CODES and the schemas
//     generated from engine.describe()).
// Each block sits between `<!-- generated:NAME -->` and `<!-- /generated:NAME -->`; the text
// between the markers is replaced, everything else is left alone.
// Usage: npm run docs:tables            (rewrite the blocks)
//        node scripts/docs-tables.mjs --check   (exit 1 if a block differs; writes nothing)
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { headsTable } from '../bench/heads_table.mjs';
import { decodeTable } from '../bench/decode_table.mjs';
import { modernTable, modernTarget } from '../bench/modern_table.mjs';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));

const readJson = (path) => JSON.parse(readFileSync(`${ROOT}${path}`, 'utf8'));
const day = (iso) => iso.slice(0, 10);

// Number formats as the bench scripts print them (bench/run.mjs, browser_latency.mjs,
// browser_pretrained.mjs), so a table here reads the same as the bench's own output.
const f = (ms) => (ms < 1 ? ms.toFixed(3) : ms.toFixed(2));
const x = (a, b) => `${(a / b).toFixed(2)}x`;
const ms1 = (v) => v.toFixed(1);
const ms0 = (v) => v.toFixed(0);
const pct = (share) => `${Math.round(share * 100)}%`;
const MB = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const row = (cells) => `| ${cells.join(' | ')} |`;
const table = (head, rows) => [row(head), `|${head.map(() => '---').join('|')}|`, ...rows.map(row)];

/** Blocks of docs/performance.md, from the bench results. */
export function benchBlocks(
  results = {
    latest: readJson('bench/results/latest.json'),
    latency: readJson('bench/results/latency.json'),
    pretrained: readJson('bench/results/pretrained.json'),
    modern: readJson('bench/results/modern.json'),
    pretrainedModern: readJson('bench/results/pretrained-modern.json'),
    heads: readJson('bench/results/heads.json'),
    decode: readJson('bench/results/decode.json'),
  },
) {
  const { latest, latency, pretrained, modern, pretrainedModern, heads, decode } = results;
  const blocks = {};
  const m = latest.machine;
  const versions = latest.mha[0].versions;

  blocks['bench-attention'] = [
    `Run of ${day(latest.date)}. Machine: ${m.cpu}, ${m.cores} cores (one used), Node ${m.node}; ` +
      `onnxruntime-web ${versions['onnxruntime-web']}, tfjs ${versions['tfjs-backend-wasm']}.`,
    '',
    ...table(
      [
        '(B,S,E,H)',
        'native ms',
        'wasm-simd ms',
        'wasm-scalar ms',
        'onnxruntime-web ms',
        'tfjs-wasm ms',
        'wasm-simd GFLOP/s',
        'simd vs ort',
        'simd vs tfjs',
        'wasm-simd, weights prepared ms',
        'prepared vs ort',
      ],
      [
        ...latest.mha.map((r) => [
          `(${r.shape.b},${r.shape.s},${r.shape.e},${r.shape.h})`,
          f(r.native),
          f(r.simd),
          f(r.scalar),
          f(r['onnxruntime-web']),
          f(r['tfjs-backend-wasm']),
          (r.gflop / (r.simd / 1000)).toFixed(1),
          x(r['onnxruntime-web'], r.simd),
          x(r['tfjs-backend-wasm'], r.simd),
          f(r.simdPrepared),
          x(r['onnxruntime-web'], r.simdPrepared),
        ]),
        [
          'playground trace (default, 32 tokens)',
          f(latest.trace.native),
          f(latest.trace.simd),
          f(latest.trace.scalar),
          ...Array(7).fill('–'),
        ],
      ],
    ),
    '',
    `Peers agree with wasm-simd to a max relative difference of ` +
      `${Math.max(...latest.mha.flatMap((r) => Object.values(r.agreement))).toExponential(1)}.`,
  ];

  // Kernels the bench timed in GFLOP/s (the softmax rows carry no GFLOP figure); the rows
  // of a linear layer with its weight held in 16 or 8 bits (they carry weightBytes) have their own table.
  const gemm = latest.kernels.filter((k) => k.gflops && k.weightBytes === undefined);
  const lowBit = latest.kernels.filter((k) => k.weightBytes !== undefined && !k.gemv);
  const baseline = (shape) =>
    lowBit.find((k) => k.shape === shape && k.kernel.startsWith('gemm_f32_') && !/w_/.test(k.kernel));
  blocks['bench-low-bit'] = lowBit.length
    ? table(
        ['shape', 'kernel', 'weight', 'GFLOP/s', 'vs float32'],
        lowBit.map((k) => [
          k.shape,
          k.kernel,
          `${(k.weightBytes / 2 ** 20).toFixed(2)} MB`,
          k.gflops.toFixed(1),
          x(k.gflops, baseline(k.shape).gflops),
        ]),
      )
    : ['(not measured yet: npm run bench)'];
  // Decode's GEMV (one row of x) on a decoder's shapes: wall time, the weight's bytes read per
  // second, that against the copy bandwidth of wasm memory measured in the same run (memcpy),
  // and the wall time against float32's.
  const gemv = latest.kernels.filter((k) => k.gemv);
  const copy = latest.kernels.find((k) => k.kernel === 'memcpy');
  const gemvBaseline = (shape) => gemv.find((k) => k.shape === shape && !/w_/.test(k.kernel));
  blocks['bench-gemv'] =
    gemv.length && copy
      ? [
          `Copy bandwidth of wasm memory (memcpy of 256 MB, same run): ${(copy.bytesPerSecond / 1e9).toFixed(1)} GB/s.`,
          '',
          ...table(
            ['shape', 'kernel', 'weight', 'µs', 'weight GB/s', 'of copy bandwidth', 'GFLOP/s', 'speed vs float32'],
            gemv.map((k) => [
              k.shape,
              k.kernel,
              `${(k.weightBytes / 2 ** 20).toFixed(2)} MB`,
              (k.ms * 1000).toFixed(0),
              (k.bytesPerSecond / 1e9).toFixed(1),
              `${((100 * k.bytesPerSecond) / copy.bytesPerSecond).toFixed(0)}%`,
              k.gflops.toFixed(1),
              x(gemvBaseline(k.shape).ms, k.ms),
            ]),
          ),
        ]
      : ['(not measured yet: npm run bench)'];
  const kernelNames = [...new Set(gemm.map((k) => k.kernel))];
  const shapes = [...new Set(gemm.map((k) => k.shape))];
  blocks['bench-kernels'] = table(
    ['shape', ...kernelNames],
    shapes.map((shape) => [
      shape,
      ...kernelNames.map((name) => gemm.find((k) => k.shape === shape && k.kernel === name)?.gflops.toFixed(1) ?? '–'),
    ]),
  );

  // "Of the best simd GEMM": the step's GFLOP/s against the fastest run of the GEMM the
  // wasm-simd build uses in Node (mul + add: Node 20 has no relaxed SIMD), as bench/run.mjs.
  const bestGemm = Math.max(...gemm.filter((k) => k.kernel.endsWith('_wasmsimd')).map((k) => k.gflops));
  blocks['bench-training'] = [
    ...table(
      [
        '(E, layers, H, F, S, B)',
        'wasm-simd',
        'wasm-simd-threads, 2 threads',
        'wasm-scalar',
        'tfjs-wasm (Adam)',
        'PyTorch CPU, 1 thread',
        'native',
        'simd vs tfjs',
        'simd vs PyTorch',
        '2 threads vs 1',
        'simd GFLOP/s',
        'of the best simd GEMM',
      ],
      latest.training.map(({ shape: t, flops, ms }) => [
        `(${t.e}, ${t.layers}, ${t.h}, ${t.f}, ${t.s}, ${t.b})`,
        f(ms.simd),
        f(ms['simd-threads']),
        f(ms.scalar),
        f(ms['tfjs-wasm']),
        f(ms['pytorch-cpu-1thread']),
        f(ms.native),
        x(ms['tfjs-wasm'], ms.simd),
        x(ms['pytorch-cpu-1thread'], ms.simd),
        x(ms.simd, ms['simd-threads']),
        (flops / 1e6 / ms.simd).toFixed(1),
        `${((100 * flops) / 1e6 / ms.simd / bestGemm).toFixed(0)}%`,
      ]),
    ),
    '',
    `Sort of length 8 (d_model 64, 2 layers, batch 32, wasm-simd in Node): ${(100 * latest.sort.sequenceAccuracy).toFixed(1)}% ` +
      `held-out sequence accuracy after ${latest.sort.steps} steps, ${latest.sort.seconds.toFixed(1)} s.`,
  ];

  const browserName = { chromium: 'Chromium', firefox: 'Firefox ESR' };
  const frameMs = latency.budget.medianMs;
  const verdict = (r) =>
    r.medianMs <= latency.budget.medianMs && r.p90Ms <= latency.budget.p90Ms
      ? 'within at both'
      : `reported: ${(r.medianMs / frameMs).toFixed(1)} frames median`;
  const load = (l) => l.map((v) => v.toFixed(1)).join(', ');
  blocks['bench-latency'] = [
    `Run of ${day(latency.date)}: ${latency.machine.cpu}, ${latency.machine.cores} cores, load average at the start ` +
      `${load(latency.loadAverageAtStart)}, at the end ${load(latency.loadAverageAtEnd)}.`,
    '',
    ...table(
      [
        'browser',
        'case',
        'to the painting frame: median ms',
        'p90 ms',
        'in the next frame',
        'rendering done: median ms',
        'p90 ms',
        'samples',
        `budget (${latency.budget.medianMs.toFixed(1)} ms median / ${latency.budget.p90Ms.toFixed(1)} ms p90)`,
      ],
      Object.entries(latency.results).flatMap(([browser, cases]) =>
        latency.cases.map((c) => {
          const r = cases[c.name];
          return [
            `${browserName[browser] ?? browser} ${latency.machine[browser]}`,
            c.label,
            ms1(r.medianMs),
            ms1(r.p90Ms),
            pct(r.nextFrameShare),
            ms1(r.done.medianMs),
            ms1(r.done.p90Ms),
            String(r.samples),
            verdict(r),
          ];
        }),
      ),
    ),
  ];

  const p = pretrained.results;
  const t = p.timing;
  const o = p.ours;
  const h = p.oursF16;
  const ort = p.ort;
  const sizes = pretrained.model.sizes;
  const onnx = Object.keys(sizes).find((name) => name.endsWith('.onnx'));
  blocks['bench-pretrained'] = [
    `Run of ${day(pretrained.date)}: ${pretrained.model.name}, ${pretrained.model.seq} tokens; headless Chromium ` +
      `${pretrained.machine.chromium}, ${pretrained.machine.cpu}, ${pretrained.machine.cores} cores, one thread; ` +
      `onnxruntime-web ${ort.version}; ${pretrained.runs} rounds after a ${pretrained.warmMs / 1000} s warm-up. ` +
      `Ours runs ${t.oursKernels.gemm}, the mul + add column ${t.oursPlainKernels.gemm}.`,
    '',
    ...table(
      [
        `GPT-2 small, ${pretrained.model.seq} tokens`,
        'ours',
        'ours, mul + add',
        'onnxruntime-web',
        'ort / ours',
        'ort / ours, mul + add',
      ],
      [
        [
          'forward, 12 attentions recorded (ort: logits + 12 attention outputs), median ms',
          ms0(t.attentions.median),
          ms0(t.plain.median),
          ms0(t.ort.median),
          x(t.ort.median, t.attentions.median),
          x(t.ort.median, t.plain.median),
        ],
        [
          `forward, fastest of ${pretrained.runs}, ms`,
          ms0(t.attentions.min),
          ms0(t.plain.min),
          ms0(t.ort.min),
          x(t.ort.min, t.attentions.min),
          x(t.ort.min, t.plain.min),
        ],
        [
          `forward, median of the ${pretrained.runs} per-round ratios`,
          '–',
          '–',
          '–',
          `${t.pairedRatio.toFixed(2)}x`,
          `${t.pairedRatioPlain.toFixed(2)}x`,
        ],
        [
          `forward, \`record: true\` (${o.stagesRecordedByTrue} stages) / nothing recorded, median ms`,
          `${ms0(t.all.median)} / ${ms0(t.none.median)}`,
          '–',
          '–',
          '–',
          '–',
        ],
        [
          `load from bytes in memory (ours: F32 safetensors, ${MB(sizes['model.safetensors'])}; ort: session from the ${MB(sizes[onnx])} ONNX), ms`,
          ms0(o.loadMs),
          '–',
          ms0(ort.loadMs),
          x(ort.loadMs, o.loadMs),
          '–',
        ],
        [
          'fetch from localhost + load, ms',
          ms0(o.fetchMs + o.loadMs),
          '–',
          ms0(ort.fetchMs + ort.loadMs),
          x(ort.fetchMs + ort.loadMs, o.fetchMs + o.loadMs),
          '–',
        ],
        [
          'renderer peak RSS (VmHWM) / RSS after load',
          `${MB(o.peakRssBytes)} / ${MB(o.rssBytes)}`,
          '–',
          `${MB(ort.peakRssBytes)} / ${MB(ort.rssBytes)}`,
          '–',
          '–',
        ],
        [
          `from F16 safetensors (${MB(sizes['model-f16/model.safetensors'])}): load from bytes, fetch + load, peak RSS`,
          `${ms0(h.loadMs)} ms, ${ms0(h.fetchMs + h.loadMs)} ms, ${MB(h.peakRssBytes)}`,
          '–',
          '–',
          '–',
          '–',
        ],
        [
          'wasm memory after load / engine heap in use',
          `${MB(o.afterLoad.wasmMemory)} / ${MB(o.afterLoad.heapInUse)}`,
          '–',
          '–',
          '–',
          '–',
        ],
      ],
    ),
    '',
    `Against the float64 PyTorch forward (largest absolute difference): ours logits ${o.check.logits.maxAbs.toExponential(1)} ` +
      `(of a largest ${o.check.logits.maxAbsOfExpected.toFixed(2)}), attentions ${o.check.attentions.maxAbs.toExponential(1)}; ` +
      `onnxruntime-web logits ${ort.check.logits.maxAbs.toExponential(1)}, attentions ${ort.check.attentions.maxAbs.toExponential(1)}; ` +
      `ours from F16 logits ${h.check.logits.maxAbs.toExponential(1)}, attentions ${h.check.attentions.maxAbs.toExponential(1)} ` +
      `(F16-rounded weights). measureUserAgentSpecificMemory: ours ${MB(o.uaMemory)}, onnxruntime-web ${MB(ort.uaMemory)}.`,
  ];

  // SmolLM2-135M and Qwen3-0.6B in Chromium (bench/browser_modern.mjs): the bench's own table.
  blocks['bench-pretrained-modern'] = modernTable(pretrainedModern);
  if (heads) blocks['bench-heads'] = headsTable(heads);

  // Decoding (bench/browser_decode.mjs): the bench's own table.
  if (decode) blocks['bench-decode'] = decodeTable(decode);

  // The modern block (bench/modern_train.mjs, its own run): against the classic block at
  // equal FLOPs and tfjs-wasm doing the same model, and its share of the best simd GEMM.
  const modernOfGemm = modern.training.map((r) => r.flops / 1e6 / r.ms.simd / bestGemm);
  blocks['bench-modern-training'] = [
    `Run of ${day(modern.date)} (\`node bench/modern_train.mjs\`, single thread, Node ${modern.machine.node}).`,
    '',
    ...table(
      [
        '(E, layers, H, F, S, B)',
        "gated F'",
        'modern wasm-simd ms',
        'classic wasm-simd ms',
        'tfjs-wasm, same modern model ms',
        'modern vs classic',
        'modern vs tfjs',
        'modern GFLOP/s',
        'of the best simd GEMM',
      ],
      modern.training.map(({ shape: t, flops, ffnGated, ms }) => [
        `(${t.e}, ${t.layers}, ${t.h}, ${t.f}, ${t.s}, ${t.b})`,
        String(ffnGated),
        f(ms.simd),
        f(ms['simd-classic']),
        f(ms['tfjs-wasm']),
        x(ms['simd-classic'], ms.simd),
        x(ms['tfjs-wasm'], ms.simd),
        (flops / 1e6 / ms.simd).toFixed(1),
        pct(flops / 1e6 / ms.simd / bestGemm),
      ]),
    ),
  ];

  // The project's targets, each judged on this run's numbers.
  const met = (ok) => (ok ? 'met' : 'not met');
  const simdVsOrt = latest.mha.map((r) => r['onnxruntime-web'] / r.simd);
  const vsTfjs = latest.training.map((r) => r.ms['tfjs-wasm'] / r.ms.simd);
  const ofGemm = latest.training.map((r) => r.flops / 1e6 / r.ms.simd / bestGemm);
  const range = (values, fmt) => values.map(fmt).join(', ');
  const defaults = Object.entries(latency.results).map(([browser, cases]) => [
    browserName[browser] ?? browser,
    cases.default,
  ]);
  blocks['bench-targets'] = table(
    ['target', 'this run', ''],
    [
      [
        'inference: wasm-simd ≥ 3x onnxruntime-web',
        `${range(simdVsOrt, (v) => `${v.toFixed(2)}x`)} over the shapes above`,
        met(simdVsOrt.every((v) => v >= 3)),
      ],
      [
        'training step: wasm-simd ≥ 5x tfjs-wasm',
        range(vsTfjs, (v) => `${v.toFixed(2)}x`),
        met(vsTfjs.every((v) => v >= 5)),
      ],
      [
        "training step: ≥ 50% of the best wasm GEMM kernel's GFLOP/s",
        range(ofGemm, (v) => `${(100 * v).toFixed(0)}%`),
        met(ofGemm.every((v) => v >= 0.5)),
      ],
      [
        "modern block's training step: ≥ 50% of the best wasm GEMM kernel's GFLOP/s",
        range(modernOfGemm, (v) => `${(100 * v).toFixed(0)}%`),
        met(modernOfGemm.every((v) => v >= 0.5)),
      ],
      [
        'sort of length 8 to 99% in under 30 s (Node, single-threaded)',
        `${latest.sort.seconds.toFixed(1)} s`,
        met(latest.sort.seconds < 30 && latest.sort.sequenceAccuracy >= 0.99),
      ],
      [
        'GPT-2 small, forward with every attention recorded, under 1 s',
        `${ms0(t.attentions.median)} ms median`,
        met(t.attentions.median < 1000),
      ],
      [
        'GPT-2 small forward ≥ 1.0x onnxruntime-web (aim 1.5x)',
        `${t.pairedRatio.toFixed(2)}x (median of per-round ratios)`,
        t.pairedRatio >= 1.5 ? 'met, aim too' : met(t.pairedRatio >= 1),
      ],
      modernTarget(pretrainedModern),
      ...defaults.map(([name, r]) => [
        `keystroke to screen, default view, ${name}: ≤ ${latency.budget.medianMs.toFixed(1)} ms median, ` +
          `≤ ${latency.budget.p90Ms.toFixed(1)} ms p90`,
        `${ms1(r.medianMs)} / ${ms1(r.p90Ms)} ms`,
        met(r.medianMs <= latency.budget.medianMs && r.p90Ms <= latency.budget.p90Ms),
      ]),
    ],
  );
  return blocks;
}

/** Blocks of docs/limits.md and docs/api.md, from the package as built (LIMITS, the engine's schemas and error codes). */
export async function limitBlocks(pkg = null) {
  const api = pkg ?? (await import(pathToFileURL(`${ROOT}dist/node.js`).href));
  const { LIMITS, PLAYGROUND_SCHEMA, MODEL_SPEC_SCHEMA, ERROR_CODES } = api;
  const mib = (bytes) => `${bytes / 2 ** 20} MiB`;
  const blocks = {};
  blocks['limits-engine'] = table(
    ['limit', 'value', 'in the package'],
    [
      ['tokens per text', String(LIMITS.tokensPerText), '`LIMITS.tokensPerText`'],
      ['UTF-8 bytes per text', String(LIMITS.bytesPerText), '`LIMITS.bytesPerText`'],
      ['texts per batch', String(LIMITS.texts), '`LIMITS.texts`'],
      [
        "working memory of one call (a forward pass's trace, or `multiHeadAttention`)",
        mib(LIMITS.workingMemoryBytes),
        '`LIMITS.workingMemoryBytes`',
      ],
      [
        "a generation's KV cache (prompt + `maxNewTokens` positions)",
        mib(LIMITS.kvCacheBytes),
        '`LIMITS.kvCacheBytes`',
      ],
    ],
  );
  const ranges = (schema, name) =>
    table(
      ['setting', 'type', 'default', 'range or choices'],
      schema.settings.map((s) => [
        `\`${s.name}\``,
        s.type,
        `\`${JSON.stringify(s.default)}\``,
        s.choices ? s.choices.map((c) => `\`${c}\``).join(', ') : s.min !== undefined ? `${s.min} to ${s.max}` : '–',
      ]),
    ).concat(
      schema.rules.length
        ? [
            '',
            `Rules between ${name}'s settings (the engine's messages):`,
            '',
            ...schema.rules.map(
              (r) =>
                `- ${
                  r.when
                    ? `when ${Object.entries(r.when)
                        .map(([k, v]) => `${k} is ${v}`)
                        .join(', ')}: `
                    : ''
                }` + `${r.message.replace(/[{}]/g, '')} (code \`${r.code}\`, field \`${r.field}\`)`,
            ),
          ]
        : [],
    );
  blocks['limits-playground'] = ranges(PLAYGROUND_SCHEMA, 'the playground');
  blocks['limits-model-spec'] = ranges(MODEL_SPEC_SCHEMA, 'ModelSpec');
  blocks['error-codes'] = [ERROR_CODES.map((code) => `\`${code}\``).join(', ')];
  return blocks;
}

/** The block of docs/embedding.md: the one-file element's size, from the build's record (scripts/size-record.mjs), and its budget. */
export function sizeBlocks(sizes = readJson('dist/sizes.json'), budget = readJson('web/src/element/size-budget.json')) {
  // Rounded to 10 KB (1 KB = 1,000 bytes), so a small change of the front end leaves the text as it is.
  const kb = (bytes) => `${(Math.round(bytes / 10_000) * 10).toLocaleString('en-US')} KB`;
  const element = sizes['dist/element.js'];
  const pretrained = sizes['dist/attention-playground-pretrained.js'];
  const generate = sizes['dist/attention-playground-generate.js'];
  return {
    'element-size': [
      `\`attention-playground.js\` (the package's \`dist/element.js\`): about ${kb(element.raw)}, ${kb(element.gzip)} ` +
        `gzip-compressed, as a server sends it (budget: ${kb(budget.maxGzipBytes)} gzip, held by ` +
        '`tests/package/element-size.test.mjs`). Loaded only when someone loads a pretrained checkpoint in the ' +
        `element: \`attention-playground-pretrained.js\`, about ${kb(pretrained.raw)}, ${kb(pretrained.gzip)} gzip; ` +
        'also loaded by an element in generate mode, with `attention-playground-generate.js` (the Generate panel), ' +
        `about ${kb(generate.raw)}, ${kb(generate.gzip)} gzip. ` +
        'Sizes of the last `npm run build` (its `size:` lines, `dist/sizes.json`), rounded to 10 KB.',
    ],
  };
}

/** Which file holds which blocks. */
export const FILES = {
  'docs/performance.md': [
    'bench-attention',
    'bench-kernels',
    'bench-low-bit',
    'bench-gemv',
    'bench-training',
    'bench-modern-training',
    'bench-latency',
    'bench-pretrained',
    'bench-pretrained-modern',
    'bench-heads',
    'bench-decode',
    'bench-targets',
  ],
  'docs/limits.md': ['limits-engine', 'limits-playground', 'limits-model-spec'],
  'docs/api.md': ['error-codes'],
  'docs/embedding.md': ['element-size'],
};

export async function allBlocks() {
  return { ...benchBlocks(), ...(await limitBlocks()), ...sizeBlocks() };
}

const marker = (name) => new RegExp(`(<!-- generated:${name} -->\\n)([\\s\\S]*?)(<!-- /generated:${name} -->)`);

/** The text between a block's markers, or null when the markers are missing. */
export function readBlock(text, name) {
  const match = marker(name).exec(text);
  return match ? match[2] : null;
}

/** `text` with each named block's content replaced; throws if a block's markers are missing. */
export function fillBlocks(text, blocks, names) {
  let out = text;
  for (const name of names) {
    if (!marker(name).test(out)) throw new Error(`no <!-- generated:${name} --> … <!-- /generated:${name} --> markers`);
    out = out.replace(marker(name), (_, open, _old, close) => `${open}${blocks[name].join('\n')}\n${close}`);
  }
  return out;
}

async function main() {
  const check = process.argv.includes('--check');
  const blocks = await allBlocks();
  let stale = 0;
  for (const [file, names] of Object.entries(FILES)) {
    const text = readFileSync(`${ROOT}${file}`, 'utf8');
    const next = fillBlocks(text, blocks, names);
    if (next === text) continue;
    if (check) {
      for (const name of names)
        if (readBlock(text, name) !== readBlock(next, name))
          console.error(`${file}: block ${name} differs from the generator's`);
      stale++;
    } else {
      writeFileSync(`${ROOT}${file}`, next);
      console.log(`updated ${file}`);
    }
  }
  if (check && stale) {
    console.error('run `npm run docs:tables` to regenerate');
    process.exit(1);
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
