// The one-file element's size: dist/element.js, gzip-compressed as a server sends it, stays
// within the budget declared in web/src/element/size-budget.json, and the build's size
// record (dist/sizes.json, which docs/embedding.md states) is the size of the file built.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { sizeOf } from '../../scripts/size-record.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const budget = JSON.parse(readFileSync(`${ROOT}web/src/element/size-budget.json`, 'utf8'));

test('the one-file element stays within its gzip budget', () => {
  assert.ok(existsSync(`${ROOT}dist/element.js`), 'run `npm run build` first');
  const { raw, gzip } = sizeOf('dist/element.js');
  assert.ok(
    gzip <= budget.maxGzipBytes,
    `dist/element.js is ${gzip} bytes gzip (${raw} raw), over its budget of ${budget.maxGzipBytes}`,
  );
  // One engine in it, gzip-compressed ("H4sI": base64 of gzip's magic bytes); none as bare base64 ("AGFzbQ": "\0asm").
  const text = readFileSync(`${ROOT}dist/element.js`, 'utf8');
  const embedded = (start) => text.match(new RegExp(`["'\`]${start}[A-Za-z0-9+/=]{10000,}`, 'g'))?.length ?? 0;
  assert.deepEqual({ gzip: embedded('H4sI'), bare: embedded('AGFzbQ') }, { gzip: 1, bare: 0 });
});

test("the build's size record is the size of the files built", () => {
  const record = JSON.parse(readFileSync(`${ROOT}dist/sizes.json`, 'utf8'));
  for (const file of [
    'dist/element.js',
    'dist/attention-playground-pretrained.js',
    'dist/attention-playground-generate.js',
  ])
    assert.deepEqual(record[file], sizeOf(file), file);
});
