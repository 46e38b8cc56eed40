/**
 * attention-playground/threads: the same API, plus the threaded engine ('simd-threads',
 * Emscripten pthreads), which `loadAttention()` picks on cross-origin isolated pages.
 * Bundlers must emit workers as ES modules (Vite: `worker: { format: 'es' }`).
 * @packageDocumentation
 */
import { fetchBinary } from './fetch-binary.js';
import { type LoadOptions, SINGLE_THREADED_BUILDS, loadWith } from './loader.js';
import { THREADED_BUILD } from './threaded-build.js';
import type { AttentionEngine } from './engine.js';

export * from './api.js';

/** Loads the engine: 'simd-threads' on a cross-origin isolated page with wasm SIMD, else as `loadAttention` of the main entry. */
export function loadAttention(options: LoadOptions = {}): Promise<AttentionEngine> {
  return loadWith(fetchBinary, options, { ...SINGLE_THREADED_BUILDS, ...THREADED_BUILD });
}
