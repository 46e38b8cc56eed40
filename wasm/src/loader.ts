import { simd } from 'wasm-feature-detect';
import { AttentionError, describeValue } from './errors.js';
import { AttentionEngine, type RawModule } from './engine.js';
import type { Build } from './types.js';

export interface LoadOptions {
  /** 'auto' (default) picks 'simd' when the runtime supports wasm SIMD, else 'scalar'. */
  build?: Build | 'auto';
  /** The .wasm bytes, if you host or bundle them yourself. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Where the .wasm of a build lives, if not beside this module. */
  locateWasm?: (build: Build) => string | URL;
}

/** Reads the bytes at a URL: fetch in browsers, the file system in Node. */
export type BinaryReader = (url: URL) => Promise<ArrayBuffer | Uint8Array>;

type Factory = (options: { wasmBinary: ArrayBuffer | Uint8Array }) => Promise<RawModule>;

// Literal `new URL(..., import.meta.url)` and `import('...')` so bundlers (Vite)
// see and ship both files.
const WASM_URL: Record<Build, () => URL> = {
  simd: () => new URL('./wasm/attention-simd.wasm', import.meta.url),
  scalar: () => new URL('./wasm/attention-scalar.wasm', import.meta.url),
};
const FACTORY: Record<Build, () => Promise<Factory>> = {
  // @ts-ignore -- emcc output, typed by Factory
  simd: async () => (await import('./wasm/attention-simd.mjs')).default as Factory,
  // @ts-ignore -- emcc output, typed by Factory
  scalar: async () => (await import('./wasm/attention-scalar.mjs')).default as Factory,
};

/** Whether this runtime can run the SIMD build. */
export async function supportsSimd(): Promise<boolean> {
  return simd();
}

export async function loadWith(read: BinaryReader, options: LoadOptions = {}): Promise<AttentionEngine> {
  const requested = options.build ?? 'auto';
  if (requested !== 'auto' && requested !== 'simd' && requested !== 'scalar')
    throw new AttentionError(`build must be 'auto', 'simd' or 'scalar', got ${describeValue(requested)}`);
  const build: Build = requested === 'auto' ? ((await supportsSimd()) ? 'simd' : 'scalar') : requested;
  const url = options.locateWasm ? new URL(String(options.locateWasm(build)), import.meta.url) : WASM_URL[build]();
  const wasmBinary = options.wasmBinary ?? (await read(url));
  const factory = await FACTORY[build]();
  return new AttentionEngine(await factory({ wasmBinary }), build);
}
