// How far back a sliding-window model can see, layer by layer, for the Masks view. One
// layer lets query i read keys i − w + 1 … i (w = the window); the next layer reads those
// positions' outputs, each of which already read w − 1 further back, so after layer L
// (counting from 1) position i can draw on tokens up to L × (w − 1) back: about L × w.
// Computed here from the masks the engine recorded (the combined mask of each layer, as
// the softmax saw it), by composing "may read" layer after layer; no formula is assumed.
// No DOM: Vitest tests it in Node.
import type { Trace } from 'attention-playground';
import { findStage, type Block } from './trace-model.js';

export interface LayerReach {
  layer: number;
  /** (S, S) of one sentence: 1 where key j's token can have reached query i's output by the end of this layer. */
  reachable: Uint8Array;
  /** The farthest any query reaches back (i − the smallest reachable j), over the sentence's real tokens. */
  farthest: number;
  /** Whether this layer had a window (its mask.window was recorded). */
  windowed: boolean;
}

/** The window of a block's layer, read off its recorded mask.window (the first blocked distance); 0 when none is blocked. */
export function windowOf(trace: Trace, block: Block, layer: number): number {
  const mask = findStage(trace, `${block}.mask.window`, layer);
  if (!mask) return 0;
  const [rows, cols] = mask.shape;
  for (let d = 1; d < rows && d < cols; d++) if (mask.data[d * cols] !== 0) return d; // query d, key 0
  return 0;
}

/**
 * Reach after each layer of a self-attention block, for sentence `sequence` with `length` real tokens: reach_L =
 * allowed_L ∘ reach_(L−1), starting from each token reaching itself.
 */
export function layerReach(trace: Trace, block: Block, sequence: number, length: number): LayerReach[] {
  const out: LayerReach[] = [];
  let reach: Uint8Array | null = null;
  for (let layer = 0; ; layer++) {
    const mask = findStage(trace, `${block}.mask`, layer);
    if (!mask) break;
    const [, rows, cols] = mask.shape;
    if (rows !== cols) break; // not self-attention
    const n = rows;
    const blocked = mask.data.subarray(sequence * n * n, (sequence + 1) * n * n);
    const next = new Uint8Array(n * n);
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++) {
        if (blocked[i * n + j]) continue;
        // Query i reads position j's state, which carries everything j reached before this layer.
        if (!reach) next[i * n + j] = 1;
        else for (let k = 0; k < n; k++) if (reach[j * n + k]) next[i * n + k] = 1;
      }
    // The residual stream keeps each position's own earlier reach too.
    if (reach) for (let k = 0; k < n * n; k++) next[k] |= reach[k];
    let farthest = 0;
    for (let i = 0; i < Math.min(length, n); i++) {
      let j = 0;
      while (j < i && !next[i * n + j]) j++;
      farthest = Math.max(farthest, i - j);
    }
    out.push({
      layer,
      reachable: next,
      farthest,
      windowed: findStage(trace, `${block}.mask.window`, layer) !== undefined,
    });
    reach = next;
  }
  return out;
}

export interface LayerKinds {
  /** Layers with a sliding window (their mask.window was recorded), in order. */
  local: number[];
  /** Layers that read every earlier key. */
  global: number[];
}

/** Which layers of a self-attention block are local (windowed) and which global, from the masks the engine recorded. */
export function layerKinds(trace: Trace, block: Block): LayerKinds {
  const kinds: LayerKinds = { local: [], global: [] };
  for (let layer = 0; findStage(trace, `${block}.mask`, layer); layer++)
    (findStage(trace, `${block}.mask.window`, layer) ? kinds.local : kinds.global).push(layer);
  return kinds;
}

/** Layer numbers as runs: [0, 1, 2, 3, 4, 6, 7] → '0–4, 6–7'; a run of two as '5, 6'. */
export function layerRuns(layers: readonly number[]): string {
  const runs: string[] = [];
  for (let k = 0; k < layers.length;) {
    let end = k;
    while (end + 1 < layers.length && layers[end + 1] === layers[end] + 1) end++;
    const [a, b] = [layers[k], layers[end]];
    runs.push(end === k ? `${a}` : end === k + 1 ? `${a}, ${b}` : `${a}\u2013${b}`);
    k = end + 1;
  }
  return runs.join(', ');
}
