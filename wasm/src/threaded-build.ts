// The threaded engine's files (Emscripten pthreads). Only the entry points that offer it
// import this: bundling it needs workers in ES module format (Vite: worker.format 'es'),
// which a default bundler setup does not give, so the package's main browser entry
// leaves it out and 'attention-playground/threads' brings it in.
import type { BuildFiles, Factory } from './loader.js';

export const THREADED_BUILD: { 'simd-threads': BuildFiles } = {
  'simd-threads': {
    wasm: () => new URL('./wasm/attention-simd-threads.wasm', import.meta.url),
    relaxedWasm: () => new URL('./wasm/attention-simd-threads-relaxed.wasm', import.meta.url),
    // @ts-ignore -- emcc output, typed by Factory
    factory: async () => (await import('./wasm/attention-simd-threads.mjs')).default as Factory,
  },
};
