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

/** An emcc module factory (MODULARIZE): takes the .wasm bytes unless they are embedded. */
export type Factory = (options: { wasmBinary?: ArrayBuffer | Uint8Array }) => Promise<RawModule>;

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

// The smallest module that uses a 128-bit SIMD instruction: () -> v128 { i8x16.splat(i32.const 0) }.
// A runtime without wasm SIMD rejects it. (The same probe wasm-feature-detect makes,
// inlined so the package has no dependencies and loads from a plain <script type="module">.)
const SIMD_PROBE = new Uint8Array([
  0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
  0x01, 0x05, 0x01, 0x60, 0x00, 0x01, 0x7b,       // type section: one func type () -> v128
  0x03, 0x02, 0x01, 0x00,                         // function section: one function of type 0
  0x0a, 0x08, 0x01, 0x06, 0x00, 0x41, 0x00, 0xfd, 0x0f, 0x0b, // code: i32.const 0; i8x16.splat; end
]);

/** Whether this runtime can run the SIMD build. */
export async function supportsSimd(): Promise<boolean> {
  return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
}

export async function chooseBuild(requested: unknown = 'auto'): Promise<Build> {
  if (requested !== 'auto' && requested !== 'simd' && requested !== 'scalar')
    throw new AttentionError(`build must be 'auto', 'simd' or 'scalar', got ${describeValue(requested)}`,
      { field: 'build', value: requested });
  if (requested === 'simd' && !(await supportsSimd()))
    // Compiling the SIMD build here would fail with a bare CompileError: say why instead.
    throw new AttentionError("build 'simd' needs WebAssembly SIMD, which this runtime does not support: " +
      "use build 'auto' or 'scalar'", { field: 'build', value: requested });
  return requested === 'auto' ? ((await supportsSimd()) ? 'simd' : 'scalar') : requested;
}

export async function loadWith(read: BinaryReader, options: LoadOptions = {}): Promise<AttentionEngine> {
  const build = await chooseBuild(options.build);
  const url = options.locateWasm ? new URL(String(options.locateWasm(build)), import.meta.url) : WASM_URL[build]();
  const wasmBinary = options.wasmBinary ?? (await read(url));
  const factory = await FACTORY[build]();
  return new AttentionEngine(await factory({ wasmBinary }), build);
}
