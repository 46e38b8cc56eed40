/**
 * attention-playground: transformer attention in WebAssembly, with every
 * intermediate. Browser entry (Node gets ./node.js with the same API).
 * @packageDocumentation
 */
import { fetchBinary } from './fetch-binary.js';
import { type LoadOptions, SINGLE_THREADED_BUILDS, loadWith } from './loader.js';
import type { AttentionEngine } from './engine.js';

export * from './api.js';

/**
 * Loads the engine: the SIMD build where the runtime supports wasm SIMD, else the
 * scalar one (`engine.build` says which). The threaded build comes with
 * 'attention-playground/threads'.
 */
export function loadAttention(options: LoadOptions = {}): Promise<AttentionEngine> {
  return loadWith(fetchBinary, options, SINGLE_THREADED_BUILDS);
}
