import { AttentionEngine, type RawModule } from './engine.js';
import type { Build, Int8Dot } from './types.js';
import { checkInt8Dot, chooseBuild, chooseRelaxedSimd, threadCount } from './build-choice.js';

export { chooseBuild, supportsSimd, supportsThreads } from './build-choice.js';

export interface LoadOptions {
  /**
   * 'auto' (default) picks 'simd-threads' on a cross-origin isolated page with wasm SIMD,
   * else 'simd' when the runtime supports wasm SIMD, else 'scalar'. In Node, 'auto' never
   * picks threads (their workers keep the process alive until `engine.dispose()`); ask for
   * 'simd-threads' to get them. Where the threaded engine cannot be created (its shared memory
   * reserves its 4 GB maximum up front: docs/limits.md), 'auto' loads 'simd' instead.
   */
  build?: Build | 'auto';
  /**
   * 'simd-threads': threads for the engine's parallel loops, the calling thread included
   * (default: the device's cores, at most 4). Started once, with the engine.
   */
  threads?: number;
  /**
   * The SIMD builds' relaxed twin, whose GEMM uses relaxed SIMD's fused multiply-add (faster;
   * results differ from mul + add in the last bits, and may differ between machines): by
   * default where the runtime supports it; `false` never; `true` requires it.
   * `engine.kernels.relaxedSimd` tells what loaded.
   */
  relaxedSimd?: boolean;
  /**
   * The fastest integer dot Q8_0's int8-activations GEMV may use (default: the fastest the
   * engine and runtime compute right; `engine.kernels.int8Dot` tells which runs). Every dot gives
   * the same numbers, so this is only for comparing their speed.
   */
  int8Dot?: Int8Dot;
  /** The .wasm bytes, if you host or bundle them yourself (then they decide relaxedSimd). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Where the .wasm of a build lives, if not beside this module (relaxedSimd: its relaxed twin). */
  locateWasm?: (build: Build, relaxedSimd: boolean) => string | URL;
}

/** Reads the bytes at a URL: fetch in browsers, the file system in Node. */
export type BinaryReader = (url: URL) => Promise<ArrayBuffer | Uint8Array>;

/** An emcc module factory (MODULARIZE): takes the .wasm bytes unless they are embedded. */
export type Factory = (options: {
  wasmBinary?: ArrayBuffer | Uint8Array;
  pthreadPoolSize?: number;
}) => Promise<RawModule>;

/** Where a build's files are: its .wasm, and its emcc module. */
export interface BuildFiles {
  wasm: () => URL;
  /** The SIMD builds' relaxed-SIMD twin (the same glue loads it). */
  relaxedWasm?: () => URL;
  factory: () => Promise<Factory>;
}

// Literal `new URL(..., import.meta.url)` and `import('...')` so bundlers (Vite)
// see and ship both files. The threaded build is listed in its own module
// (threaded-build.ts), imported only by the entry points that offer it.
export const SINGLE_THREADED_BUILDS: Record<'simd' | 'scalar', BuildFiles> = {
  simd: {
    wasm: () => new URL('./wasm/attention-simd.wasm', import.meta.url),
    relaxedWasm: () => new URL('./wasm/attention-simd-relaxed.wasm', import.meta.url),
    // @ts-ignore -- emcc output, typed by Factory
    factory: async () => (await import('./wasm/attention-simd.mjs')).default as Factory,
  },
  scalar: {
    wasm: () => new URL('./wasm/attention-scalar.wasm', import.meta.url),
    // @ts-ignore -- emcc output, typed by Factory
    factory: async () => (await import('./wasm/attention-scalar.mjs')).default as Factory,
  },
};

export async function loadWith(
  read: BinaryReader,
  options: LoadOptions,
  builds: Partial<Record<Build, BuildFiles>>,
): Promise<AttentionEngine> {
  checkInt8Dot(options.int8Dot);
  const build = await chooseBuild(options.build, 'simd-threads' in builds);
  try {
    return await instantiate(read, options, builds, build);
  } catch (error) {
    // The threaded engine's shared memory reserves its 4 GB maximum's address space when it
    // is created; where that is refused (32-bit browsers, some phones) 'auto' takes the
    // single-threaded SIMD engine. Bytes given as wasmBinary are the threaded build's: no retry.
    const picked = (options.build ?? 'auto') === 'auto';
    if (picked && build === 'simd-threads' && options.wasmBinary === undefined && builds.simd)
      return instantiate(read, options, builds, 'simd');
    throw error;
  }
}

async function instantiate(
  read: BinaryReader,
  options: LoadOptions,
  builds: Partial<Record<Build, BuildFiles>>,
  build: Build,
): Promise<AttentionEngine> {
  const threads = build === 'simd-threads' ? threadCount(options.threads) : 1;
  const files = builds[build]!;
  const relaxed = chooseRelaxedSimd(options.relaxedSimd, build) && files.relaxedWasm !== undefined;
  const url = options.locateWasm
    ? new URL(String(options.locateWasm(build, relaxed)), import.meta.url)
    : relaxed
      ? files.relaxedWasm!()
      : files.wasm();
  const wasmBinary = options.wasmBinary ?? (await read(url));
  const factory = await files.factory();
  // The pool holds the workers of threads - 1 threads, started (and loaded) before the factory resolves.
  const module = await factory(
    build === 'simd-threads' ? { wasmBinary, pthreadPoolSize: threads - 1 } : { wasmBinary },
  );
  if (options.int8Dot !== undefined) module._limitInt8Dot(options.int8Dot);
  return new AttentionEngine(module, build, threads);
}
