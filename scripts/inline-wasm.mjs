// Makes a one-file engine, attention-<build>-inline.mjs, from the engine emcc linked
// (attention-<build>.mjs + .wasm): the same glue with the .wasm embedded as base64 and
// handed over as Module.wasmBinary, so there is nothing to host or fetch (the one-tag
// element bundle, the package's "attention-playground/inline", file:// pages).
// This replaces a second emcc link with -sSINGLE_FILE (the same engine, linked again:
// ~45 s per build in CI). Edits to the glue, each checked to apply exactly once:
// - the glue's `new URL("<name>.wasm", import.meta.url)` (its default .wasm location,
//   unused once wasmBinary is given) becomes the bare name, so a bundler that meets
//   this file does not copy the .wasm in a second time as an asset;
// - its script directory, `import.meta.url`, used only to find the .wasm, is dropped, so
//   the file bundles into non-module output (the element's IIFE) without a warning;
// - its `export default` moves to a wrapper that passes the decoded bytes.
// With --gzip the .wasm is embedded gzip-compressed (by Zopfli: a gzip stream about 5% smaller
// than zlib's level 9, ~13 KB off the element's engine; ~3 s per engine), unpacked with the browser's
// DecompressionStream: base64 of compressed bytes barely shrinks under a server's gzip,
// but is still far smaller than gzip of base64 of the .wasm itself, and a file:// page gets
// no gzip at all. Browsers with wasm SIMD but no DecompressionStream (Firefox 89-112) get
// an error that says so; the package's own inline engines stay plain base64 (they also
// serve browsers without SIMD, older ones).
// Usage: node scripts/inline-wasm.mjs [--gzip] <glue.mjs> <engine.wasm> <out-inline.mjs>
import { readFileSync, writeFileSync } from 'node:fs';
import { basename } from 'node:path';
import { gzipAsync } from '@gfx/zopfli';

const args = process.argv.slice(2);
const gzip = args[0] === '--gzip';
const [gluePath, wasmPath, outPath] = gzip ? args.slice(1) : args;
if (!outPath) {
  console.error('usage: node scripts/inline-wasm.mjs [--gzip] <glue.mjs> <engine.wasm> <out-inline.mjs>');
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

const plain = `
// ${wasmName}, ${wasm.length} bytes, as base64 (scripts/inline-wasm.mjs).
const wasmBase64 = "${wasm.toString('base64')}";

/** The engine's factory with the .wasm built in: options as createAttentionModule's, minus wasmBinary. */
export default function createInlineAttentionModule(options = {}) {
  const wasmBinary = Uint8Array.from(atob(wasmBase64), (c) => c.charCodeAt(0));
  return createAttentionModule({ ...options, wasmBinary });
}
`;

const packed = gzip ? Buffer.from(await gzipAsync(wasm, { numiterations: 15 })) : Buffer.alloc(0);
const compressed = `
// ${wasmName}, ${wasm.length} bytes, gzip-compressed to ${packed.length} bytes, as base64 (scripts/inline-wasm.mjs --gzip).
const wasmGzipBase64 = "${packed.toString('base64')}";

/** The engine's factory with the .wasm built in: options as createAttentionModule's, minus wasmBinary. */
export default async function createInlineAttentionModule(options = {}) {
  if (typeof DecompressionStream !== 'function')
    throw new Error(
      'this browser cannot unpack the embedded engine (it has no DecompressionStream; ' +
        'Chrome 80, Firefox 113 and Safari 16.4 have): use a current browser',
    );
  const bytes = Uint8Array.from(atob(wasmGzipBase64), (c) => c.charCodeAt(0));
  const unpacked = new Blob([bytes]).stream().pipeThrough(new DecompressionStream('gzip'));
  const wasmBinary = new Uint8Array(await new Response(unpacked).arrayBuffer());
  return createAttentionModule({ ...options, wasmBinary });
}
`;

writeFileSync(outPath, `${glue}${gzip ? compressed : plain}`);
