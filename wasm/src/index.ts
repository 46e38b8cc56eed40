/**
 * attention-playground: transformer attention in WebAssembly, with every
 * intermediate. Browser entry (Node gets ./node.js with the same API).
 * @packageDocumentation
 */
import { type LoadOptions, loadWith } from './loader.js';
import type { AttentionEngine } from './engine.js';

export * from './api.js';

async function fetchBinary(url: URL): Promise<ArrayBuffer> {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not load ${url.href}: HTTP ${response.status}`);
  return response.arrayBuffer();
}

/**
 * Loads the engine: the SIMD build where the runtime supports wasm SIMD, else the
 * scalar one (`engine.build` says which).
 */
export function loadAttention(options?: LoadOptions): Promise<AttentionEngine> {
  return loadWith(fetchBinary, options);
}
