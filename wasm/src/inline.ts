/**
 * attention-playground/inline: the same API with the .wasm embedded (base64) in the
 * JavaScript, so there is no file to host or fetch: for pages without a bundler,
 * file:// pages, and workers made from blobs. About a third larger than the .wasm.
 * @packageDocumentation
 */
import { AttentionEngine } from './engine.js';
import { chooseBuild } from './build-choice.js';
import type { LoadOptions, Factory } from './loader.js';
import type { Build } from './types.js';
// @ts-ignore -- emcc glue with the .wasm built in (scripts/inline-wasm.mjs), typed by Factory
import createSimd from './wasm/attention-simd-inline.mjs';
// @ts-ignore -- emcc glue with the .wasm built in (scripts/inline-wasm.mjs), typed by Factory
import createScalar from './wasm/attention-scalar-inline.mjs';

export * from './api.js';

const FACTORIES: Record<Exclude<Build, 'simd-threads'>, Factory> = {
  simd: createSimd as Factory,
  scalar: createScalar as Factory,
};

/** Loads the engine (SIMD where supported); options.wasmBinary and locateWasm are not needed here. */
export async function loadAttention(options: Pick<LoadOptions, 'build'> = {}): Promise<AttentionEngine> {
  const build = (await chooseBuild(options.build, false)) as Exclude<Build, 'simd-threads'>; // no threaded build inline
  return new AttentionEngine(await FACTORIES[build]({}), build, 1);
}
