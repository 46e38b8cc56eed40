// The table of bench/browser_modern.mjs's run (bench/results/pretrained-modern.json): printed by
// the bench and written into docs/performance.md by scripts/docs-tables.mjs, so both read the same.
// modernTable(run) -> lines of Markdown; modernTarget(run) -> the target's row for the targets table.
const MB = (bytes) => (bytes == null ? '–' : `${(bytes / 2 ** 20).toFixed(0)} MB`);
const ms = (t) => (t == null ? '–' : t.toFixed(0));
const e = (v) => v.toExponential(1);
const medianOf = (v) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
const notMeasured = (p) => `not measured: ${p.notMeasured}`;
// weights 'auto' keeps the file's dtype; an engine without the option says what it did instead.
const held = (p, dtype) => (p.weights === 'auto' ? dtype : p.weights);

/** [target, this run, verdict]: SmolLM2-135M's forward with every attention recorded against onnxruntime-web. */
export function modernTarget(run) {
  const ratio = run.results.timing.pairedRatio;
  return [
    `SmolLM2-135M forward with every attention recorded ≥ ${run.target}x onnxruntime-web`,
    ratio == null
      ? `not measured: ${run.results.f32.notMeasured ?? run.results.f32.forwardNotMeasured}`
      : `${ratio.toFixed(2)}x (median of per-round ratios)`,
    ratio == null ? 'not measured' : ratio >= run.target ? 'met' : 'not met',
  ];
}

export function modernTable(run) {
  const { results, models, onnxFile } = run;
  const smol = models['smollm2-135m'];
  const qwen = models['qwen3-0.6b'];
  const t = results.timing;
  const r = results.ort;
  const q = results.qwen3;
  const llama = results.llama; // only in a run with --big
  const llamaModel = models['llama3.2-1b'];
  // The heap peak over the load and the forwards, and the wasm memory's peak (it only grows: its
  // size after the forwards), each against the weights as held plus the trace.
  const ratio = (p, peak) =>
    peak == null || p.afterLoad.weightBytes == null || p.traceBytes == null
      ? null
      : peak / (p.afterLoad.weightBytes.total + p.traceBytes);
  const peakOf = (p, peak) => (ratio(p, peak) == null ? MB(peak) : `${MB(peak)}, ${ratio(p, peak).toFixed(2)}x`);
  const loadRow = (label, p, file, dtype) =>
    p.notMeasured
      ? `| ${label} | ${MB(file)} | ${notMeasured(p)} | | | | | | | |`
      : `| ${label} | ${MB(file)} | ${held(p, dtype)} | ${ms(p.fetchMs)} | ${ms(p.loadMs)} | ${MB(p.afterLoad.weightBytes?.total)} | ${peakOf(p, p.afterRuns?.heapPeak)} | ${MB(p.afterLoad.wasmMemory)} | ${peakOf(p, p.afterRuns?.wasmMemory)} | ${MB(p.peakRssBytes)} |`;
  // The issue's rule for the big models: peak wasm memory <= bound x (weights held + trace).
  const bigForward = (name, p, model, dtype) => {
    if (p.notMeasured || p.forwardNotMeasured)
      return `${name} forward: not measured: ${p.notMeasured ?? p.forwardNotMeasured}.`;
    const r = ratio(p, p.afterRuns.wasmMemory);
    const times = p.forwardMs.length ? `, then median ${ms(medianOf(p.forwardMs))} ms of ${p.forwardMs.length}` : '';
    return (
      `${name} (weights held as ${held(p, dtype)}), ${model.seq} tokens, ${model.layers} attentions recorded: ` +
      `first forward ${ms(p.firstForwardMs)} ms${times}; peak wasm memory ${MB(p.afterRuns.wasmMemory)} = ` +
      `${r.toFixed(2)}x (weights held ${MB(p.afterLoad.weightBytes.total)} + trace ${MB(p.traceBytes)})` +
      (run.memoryBound == null ? '.' : `, bound ${run.memoryBound}x: ${r <= run.memoryBound ? 'met' : 'not met'}.`)
    );
  };
  const layers = smol.layers;
  // Each file as the engine held it (an engine without the weights option widens BF16 to float32).
  const heldAs = (p, file, dtype) => (p.notMeasured ? `${file} file` : `${file} file held as ${held(p, dtype)}`);
  const f32 = heldAs(results.f32, 'F32', 'F32');
  const bf16 = heldAs(results.bf16, 'BF16', 'BF16');
  const q8 = heldAs(results.q8, 'BF16', 'BF16');
  // Which rows come from which run (a --big run replaces the big models' rows of a full run).
  const runsNote = run.sources
    ? ` The Qwen3-0.6B and Llama 3.2 1B rows are from a later run of ${run.sources.big.date.slice(0, 16).replace('T', ' ')} ` +
      `(\`--big\`, commit ${run.sources.big.commit.slice(0, 7)}; load average ${run.sources.big.loadAverageAtStart[0].toFixed(1)} at its start); ` +
      `the others from the run of ${run.date.slice(0, 16).replace('T', ' ')} (commit ${run.commit.slice(0, 7)}).`
    : '';
  return [
    `Run of ${run.date.slice(0, 10)}: SmolLM2-135M${llama ? ', Qwen3-0.6B and Llama 3.2 1B' : ' and Qwen3-0.6B'} (random weights, their published config.json), ` +
      `${smol.seq} tokens; headless Chromium ${run.machine.chromium}, ${run.machine.cpu}, ${run.machine.cores} cores, ` +
      `one thread, wasm SIMD; onnxruntime-web ${r.version} (wasm, numThreads 1, graphOptimizationLevel all); ` +
      `${run.runs} rounds after a ${run.warmMs / 1000} s warm-up.${runsNote}`,
    '',
    '| SmolLM2-135M, forward | median ms | fastest ms | ort / this, median of the per-round ratios |',
    '|---|---|---|---|',
    ...[
      [`ours, ${f32}, ${layers} attentions recorded`, 'attentions', 'pairedRatio'],
      [`ours, ${f32}, \`record: true\``, 'all', null],
      [`ours, ${f32}, nothing recorded`, 'none', null],
      [`ours, ${bf16}, ${layers} attentions recorded`, 'bf16', 'pairedRatioBf16'],
      [`ours, ${q8}, ${layers} attentions recorded`, 'q8', 'pairedRatioQ8'],
      [`onnxruntime-web (logits + ${layers} attention outputs)`, 'ort', null],
    ].map(([label, key, ratio]) =>
      t[key]
        ? `| ${label} | ${ms(t[key].median)} | ${ms(t[key].min)} | ${ratio ? `${t[ratio].toFixed(2)}x` : ''} |`
        : `| ${label} | not measured | | |`,
    ),
    '',
    ((target, value, verdict) => `Target: ${target}: ${value}${verdict === 'not measured' ? '' : `, ${verdict}`}.`)(
      ...modernTarget(run),
    ),
    '',
    '| load from local files | file | weights held as | fetch ms | load from bytes ms | weights held | heap peak (load, forwards), / (weights + trace) | wasm memory after load | after the forwards (peak), / (weights + trace) | renderer peak RSS |',
    '|---|---|---|---|---|---|---|---|---|---|',
    loadRow('SmolLM2-135M, F32 file', results.f32, smol.sizes['model.safetensors'], 'F32'),
    loadRow('SmolLM2-135M, BF16 file', results.bf16, smol.sizes['model-bf16/model.safetensors'], 'BF16'),
    loadRow('SmolLM2-135M, BF16 file', results.q8, smol.sizes['model-bf16/model.safetensors'], 'BF16'),
    `| onnxruntime-web, SmolLM2-135M ONNX (session creation) | ${MB(smol.sizes[onnxFile])} | float32 | ${ms(r.fetchMs)} | ${ms(r.loadMs)} | – | – | – | – | ${MB(r.peakRssBytes)} |`,
    loadRow('Qwen3-0.6B, BF16 file', q, qwen.sizes['model.safetensors'], 'BF16'),
    ...(llama ? [loadRow('Llama 3.2 1B, BF16 file', llama, llamaModel.sizes['model.safetensors'], 'BF16')] : []),
    '',
    bigForward('Qwen3-0.6B', q, qwen, 'BF16'),
    ...(llama
      ? [
          '',
          bigForward('Llama 3.2 1B', llama, llamaModel, 'BF16') +
            ` The renderer also holds the fetched file (${MB(llamaModel.sizes['model.safetensors'])}) while the engine loads from it: its peak RSS counts both.`,
          '',
        ]
      : []),
    `Against the float64 PyTorch reference (largest absolute difference): onnxruntime-web logits ${e(r.check.logits.maxAbs)} ` +
      `(of a largest ${r.check.logits.maxAbsOfExpected.toFixed(2)}), attentions ${e(r.check.attentions.maxAbs)}` +
      [
        ['ours F32', results.f32],
        ['ours BF16 (reference run on the BF16-rounded weights)', results.bf16],
        ['ours q8_0 (against the same BF16 reference)', results.q8],
      ]
        .filter(([, p]) => p.check)
        .map(
          ([label, p]) =>
            `; ${label} logits ${e(p.check.logits.maxAbs)}, attentions ${e(p.check.attentions.maxAbs)}` +
            (p.check.top1Agreement != null
              ? `, top-1 agreement ${(100 * p.check.top1Agreement).toFixed(1)}% of ${smol.seq} positions, mean KL ${e(p.check.meanKl)}`
              : ''),
        )
        .join('') +
      '.',
    `Machine load average${run.sources ? ' of the full run' : ''} at the start ${results.loadAverageAtStart.map((l) => l.toFixed(1)).join(', ')}, ` +
      `at the end ${results.loadAverageAtEnd.map((l) => l.toFixed(1)).join(', ')}.`,
  ];
}
