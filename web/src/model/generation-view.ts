// What the Generate panel draws of a generation, as plain data: the attention of every
// head growing one row per new token, the KV cache per layer (bytes and positions held),
// the tree of branches explored, and the speed. No DOM: Vitest tests it in Node
// (tests/web/generation-state.test.ts).
import { fixed } from './words.js';

/**
 * A branch's attention as it grows: the opened tokens' (L, H, S0, S0) weights (null: not recorded, drawn as 0), then
 * one (L, H, p + 1) row per new token at position p. A step costs its row only; a head's (S, S) matrix is built when
 * it is drawn.
 */
export class AttentionRows {
  readonly layers: number;
  readonly heads: number;
  readonly #base: Float32Array | null;
  readonly #baseSeq: number;
  readonly #rows: Float32Array[] = [];

  constructor(base: Float32Array | null, layers: number, heads: number, seq: number) {
    if (base && base.length !== layers * heads * seq * seq)
      throw new Error(`the weights are ${base.length} values; expected ${layers} x ${heads} x ${seq} x ${seq}`);
    this.#base = base;
    this.#baseSeq = seq;
    this.layers = layers;
    this.heads = heads;
  }

  /** Whether the opened tokens' rows were recorded. */
  get recorded(): boolean {
    return this.#base !== null;
  }

  /** Positions so far. */
  get seq(): number {
    return this.#baseSeq + this.#rows.length;
  }

  /** The new token's row per layer and head, (L, H, seq + 1). */
  add(row: Float32Array): void {
    const width = this.seq + 1;
    if (row.length !== this.layers * this.heads * width)
      throw new Error(`the new row has ${row.length} weights; expected ${this.layers} x ${this.heads} x ${width}`);
    this.#rows.push(row);
  }

  /** Query i's weights over keys 0..i in one head, (i + 1). */
  row(layer: number, head: number, i: number): Float32Array {
    const m = layer * this.heads + head;
    if (i < this.#baseSeq) {
      const S = this.#baseSeq;
      return this.#base ? this.#base.subarray((m * S + i) * S, (m * S + i) * S + i + 1) : new Float32Array(i + 1);
    }
    const width = i + 1;
    return this.#rows[i - this.#baseSeq].subarray(m * width, (m + 1) * width);
  }

  /** One head's (S, S) weights (0 above the diagonal: the future). */
  head(layer: number, head: number): Float32Array {
    const S = this.seq;
    const out = new Float32Array(S * S);
    for (let i = 0; i < S; i++) out.set(this.row(layer, head, i), i * S);
    return out;
  }
}

/** The causal mask of S positions, (S, S): 1 where a key is in the query's future. */
export function futureBlocked(seq: number): Uint8Array {
  const out = new Uint8Array(seq * seq);
  for (let i = 0; i < seq; i++) for (let j = i + 1; j < seq; j++) out[i * seq + j] = 1;
  return out;
}

export interface CacheLayer {
  layer: number;
  bytes: number;
  /** Positions of K and V it holds: bytes / (2 x H_kv x d_h x 4 bytes). */
  positions: number;
}

/** The KV cache's bytes per layer -> positions held (float32 K and V of H_kv heads of d_h). */
export function cacheLayers(bytes: readonly number[], kvHeads: number, headDim: number): CacheLayer[] {
  const perPosition = 2 * kvHeads * headDim * 4;
  return bytes.map((b, layer) => ({ layer, bytes: b, positions: Math.round(b / perPosition) }));
}

/** What the cache would hold at `positions` with one K/V head per query head (no grouped-query sharing). */
export function cacheWithoutGrouping(positions: number, layers: number, heads: number, headDim: number): number {
  return layers * positions * 2 * heads * headDim * 4;
}

/**
 * The shortest engine time per token the speed line turns into a rate, ms. The engine's step clock reads
 * performance.now (through emscripten), which a page without cross-origin isolation gets in steps of 0.1 ms
 * (Chromium; coarser elsewhere): a step of a small model times as 0 or 0.1 ms, and a rate made of such ticks
 * ('engine alone 6250.0') measures the clock, not the engine. From ten ticks per token the rate is within 10%.
 */
export const MEASURABLE_STEP_MS = 1;

/**
 * The speed line: tokens/s over the run's wall time (`wallMs`, from the click to the last token), and the engine's
 * own rate over its `steps` timed steps (`engineMs` in all); below MEASURABLE_STEP_MS a token, the engine's time is
 * said as a bound, not a rate. '' before any token.
 */
export function speedText(tokens: number, wallMs: number, engineMs: number, steps: number): string {
  if (tokens === 0) return '';
  const wall = wallMs > 0 ? `${fixed((tokens * 1000) / wallMs, 1)} tokens/s` : 'tokens/s not measured';
  if (steps === 0) return wall;
  const perStep = engineMs / steps;
  const engine =
    perStep < MEASURABLE_STEP_MS
      ? `<${MEASURABLE_STEP_MS} ms per token`
      : `${fixed((steps * 1000) / engineMs, 1)} tokens/s`;
  return `${wall} (engine alone ${engine})`;
}

export interface BranchNode {
  /** The token ids from the prompt to here. */
  path: number[];
  token: number;
  children: BranchNode[];
}

/** The explored paths as a tree (children in the order first explored); the root is the prompt (token -1). */
export function branchTree(paths: readonly (readonly number[])[]): BranchNode {
  const root: BranchNode = { path: [], token: -1, children: [] };
  for (const path of paths) {
    let node = root;
    for (let i = 0; i < path.length; i++) {
      let child = node.children.find((c) => c.token === path[i]);
      if (!child) {
        child = { path: path.slice(0, i + 1), token: path[i], children: [] };
        node.children.push(child);
      }
      node = child;
    }
  }
  return root;
}

/** `paths` with `path` added, unless an explored path already starts with it (that path stays, it says more). */
export function withPath(paths: readonly number[][], path: readonly number[]): number[][] {
  const startsWith = (p: readonly number[], q: readonly number[]) =>
    q.length <= p.length && q.every((v, i) => p[i] === v);
  if (paths.some((p) => startsWith(p, path))) return [...paths];
  return [...paths.filter((p) => !startsWith(path, p)), [...path]];
}

/** Tokens per second of `count` tokens over `ms` milliseconds (0 without time). */
export function tokensPerSecond(count: number, ms: number): number {
  return ms > 0 ? (count * 1000) / ms : 0;
}

/** What a finished branch knows of why it ended. */
export interface BranchEnd {
  /** Tokens after the prompt, and the most the settings it was opened with allowed. */
  newTokens: number;
  maxNewTokens: number;
  /** Prompt and new tokens, and the model's context. */
  length: number;
  maxSeq: number;
  /** The last token as shown. */
  lastToken: string;
}

/**
 * Why a branch takes no more new tokens, as the panel's status says it: max new tokens reached, the context full, or
 * else the model wrote a stop token (its end-of-sequence token: the worker stops at that one only).
 */
export function doneText(end: BranchEnd): string {
  if (end.newTokens >= end.maxNewTokens)
    return `done: max new tokens (${end.maxNewTokens}) reached; raise it under More settings to go on`;
  if (end.length >= end.maxSeq) return `done: the context is full (the model reads at most ${end.maxSeq} tokens)`;
  return `done: the model wrote its end-of-sequence token \u201c${end.lastToken}\u201d`;
}
