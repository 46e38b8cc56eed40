// The table of bench/browser_heads.mjs's run (bench/results/heads.json): printed by the bench and
// written into docs/performance.md by scripts/docs-tables.mjs, so both read the same.
// headsTable(run) -> lines of Markdown.
const s = (ms) => `${(ms / 1000).toFixed(2)} s`;
const AIMS = { exactHeads: 20_000, attribution: 2000, detector: 3000 };
const verdict = (ms, aim) => (ms <= aim ? 'met' : 'not met');

export function headsTable(run) {
  const { machine, results } = run;
  const engines = [results.oneThread, results.threads];
  const label = (r) => (r.threads > 1 ? `${r.build}, ${r.threads} threads` : `${r.build}, one thread`);
  const row = (name, aim, pick) =>
    `| ${name} | ${engines.map((r) => `${s(pick(r))}${aim ? ` (${verdict(pick(r), aim)})` : ''}`).join(' | ')} |`;
  const o = results.oneThread;
  return [
    `Run of ${run.date.slice(0, 10)}: ${run.model} in headless Chromium ${machine.chromium}, ${machine.cpu}, ` +
      `${machine.cores} cores; ${o.seq}-token prompts ("${run.prompts.clean}" against "${run.prompts.corrupted}", ` +
      `after <|endoftext|>); the metric logit("${run.prompts.good}") - logit("${run.prompts.bad}"): clean ` +
      `${o.cleanDiff.toFixed(3)}, corrupted ${o.corruptedDiff.toFixed(3)}. One timed run of each after a warm-up; ` +
      `load average ${run.results.loadAverageAtStart.map((l) => l.toFixed(1)).join(', ')} at the start.`,
    '',
    `| | ${engines.map(label).join(' | ')} |`,
    `|---|${engines.map(() => '---').join('|')}|`,
    row('exact patching, 12 x 12 heads (aim 20 s)', AIMS.exactHeads, (r) => r.exactHeadsMs),
    row(`exact patching, 12 layers x ${o.seq} positions`, 0, (r) => r.exactResidMs),
    row('attribution patching, heads (aim 2 s)', AIMS.attribution, (r) => r.attributionHeadsMs),
    row('attribution patching, residual stream', 0, (r) => r.attributionResidMs),
    ...['previous', 'duplicate', 'induction'].map((kind) =>
      row(`detector scores of the 144 heads, ${kind} (aim 3 s)`, AIMS.detector, (r) => r.detectorsMs[kind]),
    ),
    '',
    `Agreement of attribution patching with exact patching on this model (Pearson correlation): ` +
      `${o.agreement.heads.toFixed(3)} over the 144 heads, ${o.agreement.resid.toFixed(3)} over the ` +
      `${12 * o.seq} residual cells.`,
  ];
}
