// The relaxed SIMD engine end to end in Node 20, where relaxed SIMD needs a flag, so each engine
// runs in a child Node (relaxed-engine-run.mjs): a Q8_0 model with q8Activations 'int8' decodes
// with the relaxed integer dot (i32x4.relaxed_dot_i8x16_i7x16_add_s) where the engine trusts it.
// - With Liftoff off (TurboFan compiles every function), the relaxed twin runs the relaxed dot
//   (the split dot: Node 20's lowering saturates where the unsigned dot needs exact sums, so the
//   unsigned dot runs in Chromium's test, tests/e2e/int8-dot.test.mjs).
// - With Liftoff on, Node 20's baseline compiler miscompiles that instruction (twice the dot, the
//   accumulator dropped): the engine's check (relaxed_simd.hpp, relaxed_dot_adds) sees it and
//   falls back to the plain twin. Without that fallback these steps would be far off.
// Both must decode as the plain SIMD engine does: the same greedy tokens and top candidates, and
// the candidates' probabilities within 1e-5 of theirs, relatively (the relaxed twin's float32
// products may fuse their multiply-adds, so the bits differ: measured 5e-7; the int8 GEMV itself
// gives the plain twin's bits, test_low_bit.cpp).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bf16Checkpoint } from './gpt2-checkpoint.js';
import { ROOT } from './helpers.js';

interface Run {
  kernels: { gemm: string; relaxedSimd: boolean; int8Dot: string };
  steps: { token: number; ids: number[]; probabilities: number[] }[];
}

let dir = '';
const decode = (relaxed: boolean, nodeFlags: string[] = [], int8Dot?: string): Run =>
  JSON.parse(
    execFileSync(
      process.execPath,
      [
        ...nodeFlags,
        `${ROOT}tests/wasm/relaxed-engine-run.mjs`,
        dir,
        relaxed ? 'relaxed' : 'plain',
        ...(int8Dot ? [int8Dot] : []),
      ],
      { encoding: 'utf8', timeout: 50_000 }, // under Vitest's 60 s test timeout, so a slow child says why
    ),
  );

function expectSameDecoding(got: Run, want: Run): void {
  expect(got.steps.map((s) => s.token)).toEqual(want.steps.map((s) => s.token));
  got.steps.forEach((s, i) => {
    expect(s.ids).toEqual(want.steps[i].ids);
    s.probabilities.forEach((p, j) => {
      const q = want.steps[i].probabilities[j];
      expect(Math.abs(p - q)).toBeLessThanOrEqual(1e-5 * q);
    });
  });
}

describe('the relaxed SIMD engine, int8 activations, in Node with the relaxed SIMD flag', () => {
  let plain: Run;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ap-relaxed-'));
    for (const [name, bytes] of Object.entries(bf16Checkpoint())) writeFileSync(join(dir, name), bytes);
    plain = decode(false);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('the plain engine decodes 8 steps with mul + add', () => {
    expect(plain.kernels).toMatchObject({ relaxedSimd: false, int8Dot: 'plain' });
    expect(plain.steps).toHaveLength(8);
    // Random weights: a spread of candidates, not one token with all the mass.
    expect(plain.steps[0].probabilities[0]).toBeLessThan(0.5);
  });

  it('with Liftoff off, the relaxed twin (and its integer dot) decodes as the plain engine', () => {
    const run = decode(true, ['--experimental-wasm-relaxed-simd', '--no-liftoff']);
    expect(run.kernels.relaxedSimd).toBe(true);
    // Node 20's optimizing tier saturates the relaxed dot's products to int16 pairs where its
    // second operand's bytes pass 127 (pmaddubsw): the split dot, not the unsigned one
    if (process.versions.node.startsWith('20.')) expect(run.kernels.int8Dot).toBe('split');
    else expect(['split', 'unsigned']).toContain(run.kernels.int8Dot);
    expectSameDecoding(run, plain);
    // capped at the plain dot (loadAttention's int8Dot), the same twin gives the same bits: the dots'
    // integer sums are the same, and nothing else changes
    const capped = decode(true, ['--experimental-wasm-relaxed-simd', '--no-liftoff'], 'plain');
    expect(capped.kernels).toMatchObject({ relaxedSimd: true, int8Dot: 'plain' });
    expect(capped.steps).toEqual(run.steps);
  });

  it("with Liftoff on, the engine sees Node 20's miscompiled dot and decodes as the plain engine", () => {
    const run = decode(true, ['--experimental-wasm-relaxed-simd']);
    expect(run.kernels.relaxedSimd).toBe(true);
    // Node 20's V8 has the bug: its engine must have seen it (a later Node may compute it right).
    if (process.versions.node.startsWith('20.')) expect(run.kernels.int8Dot).toBe('plain');
    expectSameDecoding(run, plain);
  });
});
