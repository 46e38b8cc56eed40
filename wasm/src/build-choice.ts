// Which compiled engine a runtime can run, and how many threads: no engine code here, so
// entry points that ship only some builds (inline.ts) import it without the others.
import { AttentionError, describeValue } from './errors.js';
import type { Build, Int8Dot } from './types.js';

// The smallest module that uses a 128-bit SIMD instruction: () -> v128 { i8x16.splat(i32.const 0) }.
// A runtime without wasm SIMD rejects it. (The same probe wasm-feature-detect makes,
// inlined so the package has no dependencies and loads from a plain <script type="module">.)
const SIMD_PROBE = new Uint8Array([
  0x00,
  0x61,
  0x73,
  0x6d,
  0x01,
  0x00,
  0x00,
  0x00, // "\0asm", version 1
  0x01,
  0x05,
  0x01,
  0x60,
  0x00,
  0x01,
  0x7b, // type section: one func type () -> v128
  0x03,
  0x02,
  0x01,
  0x00, // function section: one function of type 0
  0x0a,
  0x08,
  0x01,
  0x06,
  0x00,
  0x41,
  0x00,
  0xfd,
  0x0f,
  0x0b, // code: i32.const 0; i8x16.splat; end
]);

/** Whether this runtime can run the SIMD build. */
export async function supportsSimd(): Promise<boolean> {
  return runsSimd();
}

/** supportsSimd() without the promise (the one-tag element asks before it draws). */
export function runsSimd(): boolean {
  return typeof WebAssembly === 'object' && WebAssembly.validate(SIMD_PROBE);
}

// () -> v128 { f32x4.relaxed_madd(v128.const 0, v128.const 0, v128.const 0) }. The relaxed twins
// use this and i32x4.relaxed_dot_i8x16_i7x16_add_s (core/kernels/relaxed_simd.hpp); engines ship
// the relaxed SIMD proposal whole, so validating one of its instructions tells whether both run.
const ZERO_V128 = [0xfd, 0x0c, ...new Array<number>(16).fill(0)]; // v128.const 0
const RELAXED_BODY = [0x00, ...ZERO_V128, ...ZERO_V128, ...ZERO_V128, 0xfd, 0x85, 0x02, 0x0b]; // no locals ... end
const RELAXED_SIMD_PROBE = new Uint8Array([
  0x00,
  0x61,
  0x73,
  0x6d,
  0x01,
  0x00,
  0x00,
  0x00,
  0x01,
  0x05,
  0x01,
  0x60,
  0x00,
  0x01,
  0x7b,
  0x03,
  0x02,
  0x01,
  0x00,
  0x0a,
  RELAXED_BODY.length + 2,
  0x01,
  RELAXED_BODY.length,
  ...RELAXED_BODY,
]);

/** Whether this runtime has relaxed SIMD (f32x4.relaxed_madd): then the SIMD builds run their relaxed twin. */
export function supportsRelaxedSimd(): boolean {
  return typeof WebAssembly === 'object' && WebAssembly.validate(RELAXED_SIMD_PROBE);
}

/**
 * Whether to load a SIMD build's relaxed twin: the option (default: where supported). `true`
 * on a runtime without relaxed SIMD, or with the scalar build, is an error.
 */
export function chooseRelaxedSimd(requested: unknown, build: Build): boolean {
  if (requested !== undefined && typeof requested !== 'boolean')
    throw new AttentionError(`relaxedSimd must be true or false, got ${describeValue(requested)}`, {
      field: 'relaxedSimd',
      value: requested,
    });
  if (requested === false) return false;
  const possible = build !== 'scalar' && supportsRelaxedSimd();
  if (requested === true && !possible)
    throw new AttentionError(
      build === 'scalar'
        ? "relaxedSimd needs a SIMD build, not 'scalar'"
        : 'relaxedSimd: this runtime does not support WebAssembly relaxed SIMD',
      { field: 'relaxedSimd', value: requested },
    );
  return possible;
}

const INT8_DOTS: readonly Int8Dot[] = ['unsigned', 'split', 'plain'];

/** The `int8Dot` option checked: one of the dots, or undefined (the fastest the engine can). */
export function checkInt8Dot(requested: unknown): Int8Dot | undefined {
  if (requested === undefined || INT8_DOTS.includes(requested as Int8Dot)) return requested as Int8Dot | undefined;
  throw new AttentionError(
    `int8Dot must be one of ${INT8_DOTS.map((d) => `'${d}'`).join(', ')}, got ${describeValue(requested)}`,
    {
      field: 'int8Dot',
      value: requested,
    },
  );
}

/** Whether this runtime can run the threaded build: shared memory, and on the web a cross-origin isolated page. */
export function supportsThreads(): boolean {
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated;
  return typeof SharedArrayBuffer === 'function' && isolated !== false;
}

/** `withThreads`: whether this entry point ships the threaded build (the inline one does not). */
export async function chooseBuild(requested: unknown = 'auto', withThreads = true): Promise<Build> {
  const builds = withThreads ? "'auto', 'simd', 'scalar' or 'simd-threads'" : "'auto', 'simd' or 'scalar'";
  if (requested === 'simd-threads' && !withThreads)
    throw new AttentionError("build 'simd-threads' comes with the entry point 'attention-playground/threads'", {
      field: 'build',
      value: requested,
    });
  if (requested !== 'auto' && requested !== 'simd' && requested !== 'scalar' && requested !== 'simd-threads')
    throw new AttentionError(`build must be ${builds}, got ${describeValue(requested)}`, {
      field: 'build',
      value: requested,
    });
  if ((requested === 'simd' || requested === 'simd-threads') && !(await supportsSimd()))
    // Compiling the SIMD build here would fail with a bare CompileError: say why instead.
    throw new AttentionError(
      `build '${requested}' needs WebAssembly SIMD, which this runtime does not support: ` +
        "use build 'auto' or 'scalar'",
      { field: 'build', value: requested },
    );
  if (requested === 'simd-threads' && !supportsThreads())
    throw new AttentionError(
      "build 'simd-threads' needs shared memory: serve the page cross-origin isolated " +
        "(Cross-Origin-Opener-Policy: same-origin, Cross-Origin-Embedder-Policy: require-corp), or use build 'auto'",
      { field: 'build', value: requested },
    );
  if (requested !== 'auto') return requested as Build;
  if (!(await supportsSimd())) return 'scalar';
  const isolatedPage = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true;
  return withThreads && isolatedPage && supportsThreads() ? 'simd-threads' : 'simd';
}

/** Threads for the threaded build: the option, or the device's cores (at most 4). */
export function threadCount(requested: unknown): number {
  if (requested === undefined) {
    const cores = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency ?? 2;
    return Math.max(1, Math.min(4, cores));
  }
  if (typeof requested !== 'number' || !Number.isInteger(requested) || requested < 1 || requested > 16)
    throw new AttentionError(`threads must be a whole number from 1 to 16, got ${describeValue(requested)}`, {
      field: 'threads',
      value: requested,
    });
  return requested;
}
