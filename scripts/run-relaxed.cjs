// Runs a one-file wasm test program that uses relaxed SIMD (core_tests_relaxed.js) in Node:
// as is where Node has relaxed SIMD (22+), else again under --experimental-wasm-relaxed-simd
// (Node 20). Fails, saying why, where neither can run it.
'use strict';
const { spawnSync } = require('node:child_process');

// () -> v128 { f32x4.relaxed_madd(v128.const 0, v128.const 0, v128.const 0) }
const zero = () => [0xfd, 0x0c, ...new Array(16).fill(0)];
const body = [0x00, ...zero(), ...zero(), ...zero(), 0xfd, 0x85, 0x02, 0x0b];
const probe = new Uint8Array([
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
  body.length + 2,
  0x01,
  body.length,
  ...body,
]);

const [program, ...args] = process.argv.slice(2);
if (WebAssembly.validate(probe)) {
  process.argv = [process.argv[0], program, ...args];
  require(require('node:path').resolve(program));
} else if (process.env.RUN_RELAXED_FLAGGED) {
  console.error('run-relaxed: this Node cannot run relaxed SIMD, even with --experimental-wasm-relaxed-simd');
  process.exit(1);
} else {
  // --no-liftoff: this V8's baseline compiler gets i32x4.relaxed_dot_i8x16_i7x16_add_s wrong (twice
  // the dot, the accumulator dropped; its optimizing compiler is right): the engine then avoids the
  // instruction (relaxed_simd.hpp's relaxed_dot_adds), and the suite must test it, so no baseline tier.
  const flags = ['--experimental-wasm-relaxed-simd', '--no-liftoff'];
  const run = spawnSync(process.execPath, [...flags, __filename, program, ...args], {
    stdio: 'inherit',
    env: { ...process.env, RUN_RELAXED_FLAGGED: '1' },
  });
  process.exit(run.status ?? 1);
}
