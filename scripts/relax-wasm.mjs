// Makes the relaxed-SIMD twin of a linked .wasm (see core/kernels/relaxed_simd.hpp): every
// call of the import attention_relaxed_madd_f32x4 becomes f32x4.relaxed_madd, of
// attention_relaxed_dot_i8x16_i7x16_add_s i32x4.relaxed_dot_i8x16_i7x16_add_s, and of
// attention_relaxed_simd_rewritten i32.const 1. Binaryen reads the module and
// writes it back; only those calls change.
//
//   node scripts/relax-wasm.mjs <glue.mjs> <in.wasm> <out.wasm>   an engine: glue + .wasm
//   node scripts/relax-wasm.mjs <in.js> <out.js>                   a one-file build (base64 inside)
//   --keep-names (first): keep the name section of a build linked with --profiling-funcs, so a
//   CPU profile of the relaxed twin names its functions (bench/profile_decode.mjs).
//
// emcc -O2+ renames imports (e.g. "a"."q"): the glue's import object tells which is which.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import binaryen from 'binaryen';

const PLACEHOLDERS = {
  attention_relaxed_madd_f32x4: {
    params: ['v128', 'v128', 'v128'],
    result: 'v128',
    replacement: '(f32x4.relaxed_madd',
  },
  // Only Q8_0's GEMV with int8 activations calls it: a .wasm without the low-bit kernels (the
  // one-tag element's engine) does not import it.
  attention_relaxed_dot_i8x16_i7x16_add_s: {
    params: ['v128', 'v128', 'v128'],
    result: 'v128',
    replacement: '(i32x4.relaxed_dot_i8x16_i7x16_add_s',
    optional: true,
  },
  attention_relaxed_simd_rewritten: { params: [], result: 'i32', replacement: '(i32.const 1' },
};

// The linked files this run reads. This script runs as the link's POST_BUILD step, and ninja
// may keep a linked output whose step failed as up to date; a failure removes them, so the
// next build links them again instead of shipping them without their relaxed twin.
let linkedInputs = [];

function fail(message) {
  console.error(`relax-wasm: ${message}`);
  for (const file of linkedInputs) rmSync(file, { force: true });
  if (linkedInputs.length)
    console.error(`relax-wasm: removed ${linkedInputs.join(', ')} so the next build links again`);
  process.exit(1);
}

/** The import's (possibly minified) field name, from the glue's import object `"q":_name`. */
function importField(glue, name) {
  const matches = [...glue.matchAll(new RegExp(`"?([\\w$]+)"?\\s*:\\s*_${name}\\b`, 'g'))];
  const fields = [...new Set(matches.map((m) => m[1]))];
  if (fields.length !== 1) fail(`expected one import named for _${name} in the glue, found ${fields.length}`);
  return fields[0];
}

/** Does the glue's import object name `_name` at all? */
function importNamed(glue, name) {
  return new RegExp(`"?[\\w$]+"?\\s*:\\s*_${name}\\b`).test(glue);
}

function typeName(type) {
  for (const name of ['i32', 'i64', 'f32', 'f64', 'v128', 'none']) if (binaryen[name] === type) return name;
  return String(type);
}

/** The relaxed twin of `wasm` (bytes), given its glue's text. */
function relax(glue, wasm) {
  binaryen.setDebugInfo(keepNames);
  const module = binaryen.readBinary(wasm);
  const F = binaryen.Features;
  // What emcc 3.1.6 emits (with -pthread: atomics), plus relaxed SIMD.
  const features =
    F.MVP |
    F.SIMD128 |
    F.BulkMemory |
    F.BulkMemoryOpt |
    F.SignExt |
    F.MutableGlobals |
    F.NontrappingFPToInt |
    F.Atomics |
    F.RelaxedSIMD;
  module.setFeatures(features);
  const internalNames = {};
  for (const [name, expected] of Object.entries(PLACEHOLDERS)) {
    if (expected.optional && !importNamed(glue, name)) continue;
    const field = importField(glue, name);
    for (let i = 0; i < module.getNumFunctions(); i++) {
      const info = binaryen.getFunctionInfo(module.getFunctionByIndex(i));
      if (!info.module || info.base !== field) continue;
      const params = binaryen.expandType(info.params).map(typeName);
      if (params.join() !== expected.params.join() || typeName(info.results) !== expected.result)
        fail(`import ${info.module}.${field} (${name}) has type (${params}) -> ${typeName(info.results)}`);
      internalNames[name] = info.name;
    }
    if (!internalNames[name]) {
      // The glue's import object and the module must name imports alike, else the engine
      // cannot even be instantiated: say what went wrong rather than only that it did.
      const minified = field !== name;
      fail(
        `no import ${field} (${name}) in the module: the JS glue names it ${minified ? 'minified' : 'unminified'}, ` +
          'so the glue and the .wasm disagree. emcc renames the imports of both at -O2+ from what wasm-opt prints; ' +
          "a wasm-opt other than Debian's binaryen first on PATH (e.g. node_modules/.bin under npm run) breaks that " +
          '(scripts/env.sh drops node_modules/.bin from PATH). Rebuild after fixing PATH.',
      );
    }
  }
  let text = module.emitText();
  module.dispose();
  for (const [name, { replacement }] of Object.entries(PLACEHOLDERS)) {
    if (!internalNames[name]) continue; // an optional one this module does not import
    const call = new RegExp(`\\(call \\$${internalNames[name].replace(/[$.]/g, '\\$&')}(?=[\\s)])`, 'g');
    const count = (text.match(call) || []).length;
    if (name === 'attention_relaxed_madd_f32x4' && count === 0) fail(`no call of ${name} to rewrite`);
    text = text.replace(call, replacement);
    console.log(`relax-wasm: ${count} call(s) of ${name} -> ${replacement.slice(1)}`);
  }
  const relaxed = binaryen.parseText(text);
  relaxed.setFeatures(features);
  if (!relaxed.validate()) fail('the rewritten module does not validate');
  const bytes = relaxed.emitBinary();
  relaxed.dispose();
  return bytes;
}

const keepNames = process.argv[2] === '--keep-names';
const args = process.argv.slice(keepNames ? 3 : 2);
if (args.length === 3) {
  const [gluePath, inPath, outPath] = args;
  linkedInputs = [gluePath, inPath];
  writeFileSync(outPath, relax(readFileSync(gluePath, 'utf8'), readFileSync(inPath)));
} else if (args.length === 2) {
  const [inPath, outPath] = args;
  linkedInputs = [inPath];
  const js = readFileSync(inPath, 'utf8');
  // The embedded module's data URL (the bare prefix also appears earlier, as a constant).
  const prefix = 'data:application/octet-stream;base64,';
  const start = js.indexOf(`${prefix}AGFzbQ`);
  if (start < 0) fail(`${inPath} embeds no .wasm`);
  const end = js.indexOf('"', start);
  const wasm = Buffer.from(js.slice(start + prefix.length, end), 'base64');
  const relaxed = Buffer.from(relax(js, wasm)).toString('base64');
  writeFileSync(outPath, js.slice(0, start + prefix.length) + relaxed + js.slice(end));
} else {
  fail('usage: relax-wasm.mjs [--keep-names] <glue.mjs> <in.wasm> <out.wasm> | <in.js> <out.js>');
}
