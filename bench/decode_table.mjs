// The decoding bench's table (bench/browser_decode.mjs prints it; scripts/docs-tables.mjs writes it
// into docs/performance.md), from a run's record (bench/results/decode.json).
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const row = (cells) => `| ${cells.join(' | ')} |`;
const table = (head, rows) => [row(head), `|${head.map(() => '---').join('|')}|`, ...rows.map(row)];
const pct = (share) => `${Math.round(share * 100)}%`;
const MB = (bytes) => `${(bytes / 2 ** 20).toFixed(0)} MB`;
const GBs = (bytes) => `${(bytes / 1e9).toFixed(1)} GB/s`;

const LABELS = {
  f32: 'ours, F32',
  low: 'ours, 16-bit',
  q8: 'ours, q8_0',
  bf16: "ours, F32 file as 'bf16'",
  q8i: 'ours, q8_0, int16 activations',
  q8i8: 'ours, q8_0, int8 activations',
  ort: 'onnxruntime-web, F32',
};
const LOW = { 'gpt2-small': 'F16', 'smollm2-135m': 'BF16' };

/** Per engine of a part: prefill ms, decode tokens/s, the ratio to ort, bytes per token, bandwidth share. */
export function decodeRows(part, newTokens) {
  const ortRuns = part.runs.ort;
  const ortF32Bytes = part.f32.weightBytes.total; // the same float32 weights, read once per token
  return Object.keys(LABELS)
    .filter((slot) => part.runs[slot])
    .map((slot) => {
      const runs = part.runs[slot];
      const msPerToken = median(runs.map((r) => r.decodeMs)) / newTokens;
      const bytes = slot === 'ort' ? ortF32Bytes : part[slot].weightBytes.total;
      const limitMs = (bytes / part.streamBytesPerSecond) * 1000;
      return {
        slot,
        label: slot === 'low' ? `ours, ${LOW[part.model] ?? '16-bit'}` : LABELS[slot],
        prefillMs: median(runs.map((r) => r.prefillMs)),
        tokensPerSecond: 1000 / msPerToken,
        ratioToOrt: slot === 'ort' ? 1 : median(runs.map((r, i) => ortRuns[i].decodeMs / r.decodeMs)),
        bytesPerToken: bytes,
        bandwidthShare: limitMs / msPerToken,
        equalTokens: part.agreement[slot].equalTokens,
      };
    });
}

/** The Markdown lines: the run's header, then one table of every model, thread count and engine. */
export function decodeTable(run) {
  const p0 = run.parts[0];
  const bandwidth = run.parts.map((p) => p.streamBytesPerSecond);
  const lines = [
    `Run of ${run.date.slice(0, 10)} (commit ${run.commit.slice(0, 7)}, \`node bench/browser_decode.mjs\`). ` +
      `Machine: ${run.machine.cpu}, ${run.machine.cores} cores, ${run.machine.chromium ? `Chromium ${run.machine.chromium}` : 'Chromium'}` +
      `; onnxruntime-web ${p0.ort?.version ?? '?'}; load average ${run.loadAverageAtStart.map((l) => l.toFixed(1)).join(' ')} at the start. ` +
      `${run.promptTokens}-token prompt, then ${run.newTokens} new tokens (greedy), median of ${run.rounds} rounds in alternation. ` +
      `Copy bandwidth of wasm memory (memory.copy of 64 MiB, one thread, bytes read + written per second) in the same pages: ` +
      `${GBs(Math.min(...bandwidth))} to ${GBs(Math.max(...bandwidth))}.`,
    '',
  ];
  const rows = [];
  for (const part of run.parts)
    for (const r of decodeRows(part, run.newTokens))
      rows.push([
        part.model,
        String(part.threads),
        r.label,
        r.prefillMs.toFixed(0),
        r.tokensPerSecond.toFixed(1),
        r.slot === 'ort' ? '1' : `${r.ratioToOrt.toFixed(2)}x`,
        MB(r.bytesPerToken),
        pct(r.bandwidthShare),
        `${r.equalTokens}/${run.newTokens}`,
      ]);
  lines.push(
    ...table(
      [
        'model',
        'threads',
        'engine, weights',
        'prefill ms',
        'decode tokens/s',
        `vs ort (target ${run.target}x)`,
        'weights read per token',
        `share of bandwidth limit (target ${pct(run.bandwidthTarget)})`,
        'greedy tokens = reference',
      ],
      rows,
    ),
  );
  return lines;
}
