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
  const run = spawnSync(process.execPath, ['--experimental-wasm-relaxed-simd', __filename, program, ...args], {
    stdio: 'inherit',
    env: { ...process.env, RUN_RELAXED_FLAGGED: '1' },
  });
  process.exit(run.status ?? 1);
}
