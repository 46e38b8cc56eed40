import { AttentionError } from './errors.js';
import type {
  AttentionWeights, Build, ModelConfig, MultiHeadAttentionInput, MultiHeadAttentionResult, PreparedWeights, RunInput,
  Stage, Trace,
} from './types.js';
import {
  checkAttentionWeights, checkMultiHeadInput, checkRunInput, type CheckedMultiHeadInput,
} from './validate.js';

/** The raw Embind surface of attention-*.mjs (private: only this file talks to it). */
export interface RawModule {
  _multiHeadAttention(input: CheckedMultiHeadInput): { error?: string; output?: Float32Array; weights?: Float32Array };
  _run(texts: string[], source: string[], config: ModelConfig & { mode: string }):
    { error?: string; meta?: string; data?: Float32Array };
  _heapInUse(): number;
  _prepareWeights(weights: AttentionWeights): { error?: string; handle?: number };
  _releaseWeights(handle: number): void;
  HEAP8: Int8Array;
}

interface RawTraceMeta {
  tokens: string[][];
  sourceTokens: string[][];
  stages: { layer: number; name: string; axes: string[]; shape: number[]; offset: number }[];
}

class Prepared implements PreparedWeights {
  readonly embedDim: number;
  readonly handle: number;
  readonly engine: AttentionEngine;
  #release: (() => void) | null;

  constructor(engine: AttentionEngine, handle: number, embedDim: number, release: () => void) {
    this.engine = engine;
    this.handle = handle;
    this.embedDim = embedDim;
    this.#release = release;
  }

  get disposed(): boolean {
    return this.#release === null;
  }

  dispose(): void {
    this.#release?.();
    this.#release = null;
  }
}

/**
 * A loaded attention engine. Get one from `loadAttention()`. Results are plain
 * typed arrays the caller owns: there is nothing to dispose.
 */
export class AttentionEngine {
  /** Which compiled build is running. */
  readonly build: Build;
  readonly #module: RawModule;
  // Frees prepared weights that were garbage-collected without dispose().
  readonly #finalizer = new FinalizationRegistry<number>((handle) => this.#module._releaseWeights(handle));

  /** @internal Use `loadAttention()`. */
  constructor(module: RawModule, build: Build) {
    this.#module = module;
    this.build = build;
  }

  /**
   * Multi-head attention with explicit weights, in PyTorch `nn.MultiheadAttention`
   * conventions. Throws {@link AttentionError} naming the problem for any bad argument.
   */
  multiHeadAttention(input: MultiHeadAttentionInput): MultiHeadAttentionResult {
    const checked = checkMultiHeadInput(input, (weights) => {
      if (!(weights instanceof Prepared) || weights.engine !== this)
        throw new AttentionError('weights must come from this engine\'s prepareWeights()');
      if (weights.disposed) throw new AttentionError('these prepared weights were disposed');
      return weights;
    });
    const raw = this.#module._multiHeadAttention(checked);
    if (raw.error !== undefined) throw new AttentionError(apiNames(raw.error));
    const { batch, querySeq, keySeq, embedDim, heads } = checked;
    return {
      output: raw.output!,
      weights: raw.weights!,
      shapes: { output: [batch, querySeq, embedDim], weights: [batch, heads, querySeq, keySeq] },
    };
  }

  /**
   * Copies and packs one attention layer's weights once, for many
   * `multiHeadAttention({ ..., weights })` calls: each call then skips copying,
   * checking and packing them. Throws {@link AttentionError} for bad arrays.
   */
  prepareWeights(weights: AttentionWeights): PreparedWeights {
    const checked = checkAttentionWeights(weights);
    const raw = this.#module._prepareWeights(checked);
    if (raw.error !== undefined) throw new AttentionError(apiNames(raw.error));
    const handle = raw.handle!;
    const prepared = new Prepared(this, handle, checked.embedDim, () => {
      this.#finalizer.unregister(prepared);
      this.#module._releaseWeights(handle);
    });
    this.#finalizer.register(prepared, handle, prepared);
    return prepared;
  }

  /**
   * The playground model: tokenizes the texts, runs the layers and returns every
   * intermediate as a {@link Trace}. Throws {@link AttentionError} for bad input.
   */
  run(input: RunInput): Trace {
    const { texts, source, mode, config } = checkRunInput(input);
    const raw = this.#module._run(texts, source, { ...config, mode });
    if (raw.error !== undefined) throw new AttentionError(raw.error);
    // One JSON description and one Float32Array for all stages; each stage's data is a view into it.
    const meta = JSON.parse(raw.meta!) as RawTraceMeta;
    const data = raw.data!;
    const stages = meta.stages.map(({ layer, name, axes, shape, offset }) => ({
      layer, name, axes, shape, data: data.subarray(offset, offset + shape.reduce((a, b) => a * b, 1)),
    }));
    return { mode, config, tokens: meta.tokens, sourceTokens: meta.sourceTokens, stages };
  }

  /** Bytes the engine's C++ code holds on the wasm heap right now; back to the same value after every call (no leaks). */
  heapBytesInUse(): number {
    return this.#module._heapInUse();
  }

  /** Size of the wasm memory in bytes (it can grow, never shrink). */
  memoryBytes(): number {
    return this.#module.HEAP8.length;
  }
}

// The core names arrays as PyTorch does; the API as this package does.
const CORE_NAMES: Record<string, string> = {
  in_proj_weight: 'inProjWeight', in_proj_bias: 'inProjBias', out_proj_weight: 'outProjWeight', out_proj_bias: 'outProjBias',
};
function apiNames(message: string): string {
  return message.replace(/\b(in|out)_proj_(weight|bias)\b/g, (name) => CORE_NAMES[name] ?? name);
}

/** The first stage with this name (and layer, if given), or undefined. */
export function findStage(trace: Trace, name: string, layer?: number): Stage | undefined {
  return trace.stages.find((s) => s.name === name && (layer === undefined || s.layer === layer));
}
