// The size record of what a tutorial page downloads: each file's bytes, raw and
// gzip-compressed (zlib level 9, as a server's gzip would), printed as `size:` lines and
// written to dist/sizes.json, from which docs/embedding.md states them (npm run docs:tables)
// and tests/package/element-size.test.mjs holds the element to its budget. Written by
// the element's build (vite.element.config.ts), so every rebuild of the element renews it.
// Usage: node scripts/size-record.mjs <file>...   (paths relative to the repository)
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** A file's raw and gzip sizes in bytes. */
export function sizeOf(path) {
  const bytes = readFileSync(`${ROOT}${path}`);
  return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

/** Prints each file's `size:` line and writes dist/sizes.json. */
export function recordSizes(files) {
  const record = {};
  for (const file of files) {
    record[file] = sizeOf(file);
    const { raw, gzip } = record[file];
    console.log(`size: ${file.padEnd(40)} ${String(raw).padStart(8)} bytes raw ${String(gzip).padStart(8)} bytes gzip`);
  }
  writeFileSync(`${ROOT}dist/sizes.json`, `${JSON.stringify(record, null, 2)}\n`);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) recordSizes(process.argv.slice(2));
