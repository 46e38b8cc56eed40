// Makes the one-file engine, attention-<build>-inline.mjs, from the engine emcc linked
// (attention-<build>.mjs + .wasm): the same glue with the .wasm embedded as base64 and
// handed over as Module.wasmBinary, so there is nothing to host or fetch (the one-tag
// element bundle, the package's "attention-playground/inline", file:// pages).
// This replaces a second emcc link with -sSINGLE_FILE (the same engine, linked again:
// ~45 s per build in CI). Two edits to the glue, each checked to apply exactly once:
// - the glue's `new URL("<name>.wasm", import.meta.url)` (its default .wasm location,
//   unused once wasmBinary is given) becomes the bare name, so a bundler that meets
//   this file does not copy the .wasm in a second time as an asset;
// - its script directory, `import.meta.url`, used only to find the .wasm, is dropped, so
//   the file bundles into non-module output (the element's IIFE) without a warning;
// - its `export default` moves to a wrapper that passes the decoded bytes.
// Usage: node scripts/inline-wasm.mjs <glue.mjs> <engine.wasm> <out-inline.mjs>
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';

const [gluePath, wasmPath, outPath] = process.argv.slice(2);
if (!outPath) {
  console.error('usage: node scripts/inline-wasm.mjs <glue.mjs> <engine.wasm> <out-inline.mjs>');
  process.exit(2);
}

function replaceOnce(text, search, replacement, what) {
  const count = text.split(search).length - 1;
  if (count !== 1) throw new Error(`${gluePath}: expected ${what} exactly once, found it ${count} times`);
  return text.replace(search, () => replacement);
}

const wasmName = basename(wasmPath);
const wasm = readFileSync(wasmPath);
let glue = readFileSync(gluePath, 'utf8');
glue = replaceOnce(
  glue,
  `new URL("${wasmName}",import.meta.url).toString()`,
  JSON.stringify(wasmName),
  `the .wasm's default location (new URL("${wasmName}", import.meta.url))`,
);
glue = replaceOnce(
  glue,
  'var _scriptDir = import.meta.url;',
  'var _scriptDir = undefined;',
  'the script directory (import.meta.url)',
);
glue = replaceOnce(glue, 'export default createAttentionModule;', '', 'the default export of createAttentionModule');

writeFileSync(
  outPath,
  `${glue}
// ${wasmName}, ${wasm.length} bytes, as base64 (scripts/inline-wasm.mjs).
const wasmBase64 = "${wasm.toString('base64')}";

/** The engine's factory with the .wasm built in: options as createAttentionModule's, minus wasmBinary. */
export default function createInlineAttentionModule(options = {}) {
  const wasmBinary = Uint8Array.from(atob(wasmBase64), (c) => c.charCodeAt(0));
  return createAttentionModule({ ...options, wasmBinary });
}
`,
);
