// Is a linear layer applied row by row? The Row by row view's numbers. The Q, K and V
// projections compute y = x · Wᵀ + b with one W (E × E) for the whole (S, E) input, so
// row i of y depends on row i of x alone. Evidence from the recorded tensors: wherever
// two positions of a sentence have equal input rows (a repeated word, with positional
// encoding off), their Q, K and V rows are equal too, although their neighbours differ;
// attention's output rows need not be, because attention reads the other rows.
// No DOM: Vitest tests it in Node.
import type { Stage, Trace } from 'attention-playground';
import { layerStages } from './flow-model.js';
import { stagePlace, type Stack } from './stage-values.js';
import { axisTokens, findStage, type Block } from './trace-model.js';
import { maxDifference, type Matrix } from './walk-model.js';

export const ROW_OUTPUTS = ['q_proj', 'k_proj', 'v_proj', 'output'] as const;
export type RowOutput = (typeof ROW_OUTPUTS)[number];

export interface RowPair {
  /** Two positions of the sentence, a < b, with the same token. */
  a: number;
  b: number;
  token: string;
  /** max |x_a − x_b| of the projections' input. */
  inputDifference: number;
  /** max |y_a − y_b| of each recorded output: the projections, and attention's output. */
  outputDifference: Partial<Record<RowOutput, number>>;
}

export interface RowWise {
  /** The stage the projections read (the layer input, or LayerNorm 1 before a pre-LN sub-layer). */
  input: Stage;
  /** (S, E) of the sentence. */
  x: Matrix;
  /** (S, E) of the sentence, per recorded output. */
  outputs: Partial<Record<RowOutput, Matrix>>;
  e: number;
  /** Real (unpadded) positions of the sentence. */
  length: number;
  tokens: string[];
  /** Every pair of positions holding the same token. */
  pairs: RowPair[];
}

const rowOf = (m: Matrix, i: number) => m.values.subarray(i * m.cols, (i + 1) * m.cols);

/** One sentence of a (B, S, E) stage. */
function sentenceOf(stage: Stage, sequence: number): Matrix {
  const [, rows, cols] = stage.shape;
  return { rows, cols, values: stage.data.subarray(sequence * rows * cols, (sequence + 1) * rows * cols) };
}

/**
 * The tensor a self-attention block's projections read: the last (B, S, E) stage of the
 * layer before its q_proj that is not the attention's own (the layer input, or norm1).
 */
export function projectionInput(trace: Trace, stack: Stack, layer: number): Stage | undefined {
  const stages = layerStages(trace, stack, layer);
  const at = stages.findIndex((s) => s.name === `${stack}.self_attn.q_proj`);
  for (let i = at - 1; i >= 0; i--) {
    const place = stagePlace(stages[i].name);
    if (stages[i].shape.length === 3 && place?.scope !== 'attention') return stages[i];
  }
  return undefined;
}

/** The row-wise evidence of a self-attention block's projections; null for cross-attention or unrecorded stages. */
export function rowWise(trace: Trace, block: Block, layer: number, sequence: number): RowWise | null {
  if (block === 'decoder.cross_attn') return null; // its K and V read the encoder's rows, not the decoder's
  const stack = block.split('.')[0] as Stack;
  const input = projectionInput(trace, stack, layer);
  if (!input) return null;
  const x = sentenceOf(input, sequence);
  const outputs: Partial<Record<RowOutput, Matrix>> = {};
  for (const name of ROW_OUTPUTS) {
    const stage = findStage(trace, `${block}.${name}`, layer);
    if (stage && stage.shape.length === 3) outputs[name] = sentenceOf(stage, sequence);
  }
  if (!outputs.q_proj) return null;
  const tokens = axisTokens(trace, block).queries[sequence] ?? [];
  const pairs: RowPair[] = [];
  for (let a = 0; a < tokens.length; a++)
    for (let b = a + 1; b < tokens.length; b++) {
      if (tokens[a] !== tokens[b]) continue;
      const outputDifference: RowPair['outputDifference'] = {};
      for (const [name, m] of Object.entries(outputs) as [RowOutput, Matrix][])
        outputDifference[name] = maxDifference(rowOf(m, a), rowOf(m, b));
      pairs.push({
        a,
        b,
        token: tokens[a],
        inputDifference: maxDifference(rowOf(x, a), rowOf(x, b)),
        outputDifference,
      });
    }
  return { input, x, outputs, e: x.cols, length: tokens.length, tokens, pairs };
}
