// The size record of what a tutorial page downloads: each file's bytes, raw and
// gzip-compressed (zlib level 9, as a server's gzip would), printed as `size:` lines and
// written to dist/sizes.json, from which docs/embedding.md states them (npm run docs:tables)
// and tests/package/element-size.test.mjs holds the element to its budget.
// Usage: node scripts/size-record.mjs <file>...   (paths relative to the repository)
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

/** A file's raw and gzip sizes in bytes. */
export function sizeOf(path) {
  const bytes = readFileSync(`${ROOT}${path}`);
  return { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

const files = process.argv.slice(2);
if (files.length) {
  const record = {};
  for (const file of files) {
    record[file] = sizeOf(file);
    console.log(
      `size: ${file.padEnd(40)} ${String(record[file].raw).padStart(8)} bytes raw ${String(record[file].gzip).padStart(8)} bytes gzip`,
    );
  }
  writeFileSync(`${ROOT}dist/sizes.json`, `${JSON.stringify(record, null, 2)}\n`);
}
