// Node entry: the same API as index.ts, reading the .wasm from the file system
// (Node's fetch cannot read file: URLs).
import { readFile } from 'node:fs/promises';
import { type LoadOptions, SINGLE_THREADED_BUILDS, loadWith } from './loader.js';
import { THREADED_BUILD } from './threaded-build.js';
import type { AttentionEngine } from './engine.js';

export * from './api.js';

async function readBinary(url: URL): Promise<Uint8Array> {
  if (url.protocol === 'file:') return readFile(url);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`could not load ${url.href}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** Loads the engine (see the browser entry); reads the .wasm from disk. */
export function loadAttention(options: LoadOptions = {}): Promise<AttentionEngine> {
  return loadWith(readBinary, options, { ...SINGLE_THREADED_BUILDS, ...THREADED_BUILD });
}
