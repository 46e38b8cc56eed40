import { AttentionEngine, type RawModule } from './engine.js';
import type { Build } from './types.js';
import { chooseBuild, threadCount } from './build-choice.js';

export { chooseBuild, supportsSimd, supportsThreads } from './build-choice.js';

export interface LoadOptions {
  /**
   * 'auto' (default) picks 'simd-threads' on a cross-origin isolated page with wasm SIMD,
   * else 'simd' when the runtime supports wasm SIMD, else 'scalar'. In Node, 'auto' never
   * picks threads (their workers keep the process alive until `engine.dispose()`); ask for
   * 'simd-threads' to get them.
   */
  build?: Build | 'auto';
  /**
   * 'simd-threads': threads for the engine's parallel loops, the calling thread included
   * (default: the device's cores, at most 4). Started once, with the engine.
   */
  threads?: number;
  /** The .wasm bytes, if you host or bundle them yourself. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Where the .wasm of a build lives, if not beside this module. */
  locateWasm?: (build: Build) => string | URL;
}

/** Reads the bytes at a URL: fetch in browsers, the file system in Node. */
export type BinaryReader = (url: URL) => Promise<ArrayBuffer | Uint8Array>;

/** An emcc module factory (MODULARIZE): takes the .wasm bytes unless they are embedded. */
export type Factory = (options: { wasmBinary?: ArrayBuffer | Uint8Array; pthreadPoolSize?: number }) => Promise<RawModule>;

// Literal `new URL(..., import.meta.url)` and `import('...')` so bundlers (Vite)
// see and ship both files.
const WASM_URL: Record<Build, () => URL> = {
  simd: () => new URL('./wasm/attention-simd.wasm', import.meta.url),
  scalar: () => new URL('./wasm/attention-scalar.wasm', import.meta.url),
  'simd-threads': () => new URL('./wasm/attention-simd-threads.wasm', import.meta.url),
};
const FACTORY: Record<Build, () => Promise<Factory>> = {
  // @ts-ignore -- emcc output, typed by Factory
  simd: async () => (await import('./wasm/attention-simd.mjs')).default as Factory,
  // @ts-ignore -- emcc output, typed by Factory
  scalar: async () => (await import('./wasm/attention-scalar.mjs')).default as Factory,
  // @ts-ignore -- emcc output, typed by Factory
  'simd-threads': async () => (await import('./wasm/attention-simd-threads.mjs')).default as Factory,
};

export async function loadWith(read: BinaryReader, options: LoadOptions = {}): Promise<AttentionEngine> {
  const build = await chooseBuild(options.build);
  const threads = build === 'simd-threads' ? threadCount(options.threads) : 1;
  const url = options.locateWasm ? new URL(String(options.locateWasm(build)), import.meta.url) : WASM_URL[build]();
  const wasmBinary = options.wasmBinary ?? (await read(url));
  const factory = await FACTORY[build]();
  // The pool holds the workers of threads - 1 threads, started (and loaded) before the factory resolves.
  const module = await factory(build === 'simd-threads' ? { wasmBinary, pthreadPoolSize: threads - 1 } : { wasmBinary });
  return new AttentionEngine(module, build, threads);
}
