// The text a heatmap cell's tooltip shows: the exact value at each stage, how it
// was computed, the row sum, and why a cell is blocked.
import type { Trace } from 'attention-playground';
import { MINUS_INFINITY, formatValue } from './words.js';
import { axisTokens, blockedReason, findStage, headSlice, rowSum, type Block } from './trace-model.js';

const REASONS = {
  padding: 'the key is padding',
  future: 'the key is in the future (causal mask)',
  window: 'the key is outside the sliding window',
  mask: 'masked',
};

export function explainCell(
  trace: Trace,
  block: Block,
  layer: number,
  sequence: number,
  head: number,
  row: number,
  col: number,
): string[] {
  const get = (name: string) => {
    const stage = findStage(trace, `${block}.${name}`, layer);
    return stage ? headSlice(stage, sequence, head) : null;
  };
  const scores = get('scores'),
    scaled = get('scaled'),
    weights = get('weights');
  if (!weights) return [];
  const k = row * weights.cols + col;
  const { queries, keys } = axisTokens(trace, block);
  const q = queries[sequence][row] ?? '<pad>',
    key = keys[sequence][col] ?? '<pad>';
  const reason = blockedReason(trace, block, layer, sequence, row, col);
  const cell = `query “${q}” (${row}) → key “${key}” (${col}), head ${head}`;
  // A long text on a big model records only the weights (model/recorded-stages.ts): the cell says so.
  if (!scores || !scaled)
    return [
      cell,
      reason
        ? `weight  0 (blocked: ${REASONS[reason]})`
        : `weight  softmax over the row = ${formatValue(weights.values[k])}`,
      `row sum ${formatValue(rowSum(weights, row))}`,
      'scores  not recorded for a text this long',
    ];
  const dk = trace.config.dModel / trace.config.heads;
  const lines = [
    cell,
    `score   q·k = ${formatValue(scores.values[k])}`,
    trace.config.scale
      ? `scaled  ${formatValue(scores.values[k])} / √${dk} = ${formatValue(scaled.values[k])}`
      : `scaled  scaling off: ${formatValue(scaled.values[k])}`,
    reason
      ? `masked  ${MINUS_INFINITY} (blocked: ${REASONS[reason]})`
      : `masked  not blocked: ${formatValue(scaled.values[k])}`,
    `weight  softmax over the row = ${formatValue(weights.values[k])}`,
    `row sum ${formatValue(rowSum(weights, row))}`,
  ];
  return lines;
}
