// Shared by the wasm tests: the package as built in dist/, the PyTorch fixtures,
// and a closeness check with the same rule as the C++ tests.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import {
  AttentionError,
  loadAttention,
  type AttentionEngine,
  type Build,
  type MultiHeadAttentionInput,
} from '../../dist/node.js';

export const BUILDS: Build[] = ['simd', 'scalar'];
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));

const engines = new Map<Build, Promise<AttentionEngine>>();
export function engineFor(build: Build): Promise<AttentionEngine> {
  if (!engines.has(build)) engines.set(build, loadAttention({ build }));
  return engines.get(build)!;
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function fixture(name: string): { cases: any[] } {
  return JSON.parse(readFileSync(`${ROOT}tests/reference/fixtures/${name}`, 'utf8'));
}

/** |actual - expected| <= rtol * max(1, |expected|) everywhere; -Infinity matches null or -Infinity. */
export function expectClose(actual: ArrayLike<number>, expected: ArrayLike<number | null>, rtol = 1e-5): void {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < actual.length; i++) {
    const e = expected[i];
    if (e === null || e === -Infinity) {
      if (actual[i] !== -Infinity) expect.fail(`element ${i}: ${actual[i]}, expected -Infinity`);
      continue;
    }
    if (!(Math.abs(actual[i] - e) <= rtol * Math.max(1, Math.abs(e))))
      expect.fail(`element ${i}: ${actual[i]}, expected ${e}`);
  }
}

export const f32 = (values: number[]) => Float32Array.from(values);

/** A small valid multi-head attention call: B=2, Sq=Sk=3, E=8, H=2, deterministic values. */
export const MHA_EMBED = 8;
export function smallAttentionInput(): MultiHeadAttentionInput {
  const E = MHA_EMBED;
  const ramp = (n: number, k: number) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * k) * 0.3);
  return {
    query: ramp(2 * 3 * E, 0.7),
    batch: 2,
    querySeq: 3,
    embedDim: E,
    heads: 2,
    inProjWeight: ramp(3 * E * E, 1.3),
    inProjBias: ramp(3 * E, 0.1),
    outProjWeight: ramp(E * E, 2.1),
    outProjBias: ramp(E, 0.4),
  };
}

/** The AttentionError a promise rejects with (fails the test on anything else, or none). */
export async function rejection(promise: Promise<unknown>): Promise<AttentionError> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(AttentionError);
    return error as AttentionError;
  }
  throw new Error('expected an AttentionError');
}

// Real (unpadded) query rows of a (B, G, S, W) array agree with PyTorch to 1e-4 relative.
export function expectRowsClose(
  got: Float32Array,
  want: number[],
  e: { batch: number; seq: number; lengths: number[] },
  groups: number,
  width: number,
  what: string,
) {
  expect(got.length).toBe(want.length);
  for (let b = 0; b < e.batch; b++)
    for (let g = 0; g < groups; g++)
      for (let q = 0; q < e.lengths[b]; q++)
        for (let c = 0; c < width; c++) {
          const i = ((b * groups + g) * e.seq + q) * width + c;
          if (!(Math.abs(got[i] - want[i]) <= 1e-4 * Math.max(1, Math.abs(want[i]))))
            expect.fail(`${what}[${b},${g},${q},${c}]: ${got[i]}, PyTorch ${want[i]}`);
        }
}

/** The AttentionError a call throws (fails the test on anything else, or none). */
export function thrown(call: () => unknown): AttentionError {
  try {
    call();
  } catch (error) {
    expect(error).toBeInstanceOf(AttentionError);
    return error as AttentionError;
  }
  throw new Error('expected an AttentionError');
}

/**
 * A forward input as the package passes it to the engine, every field given (no padding, no
 * ablation): for tests that call model.raw() to check that the engine checks again, whatever
 * reaches it.
 */
export function uncheckedForwardInput({ ids, batch, seq }: { ids: Int32Array; batch: number; seq: number }) {
  return {
    ids,
    batch,
    seq,
    lengths: null,
    tokenTypes: null,
    sourceIds: null,
    sourceSeq: 0,
    sourceLengths: null,
    record: null,
    logits: 'all' as const,
    ablate: [] as { layer: number; head: number }[],
    ablateMlps: [] as number[],
    ablation: 'zero' as 'zero' | 'mean',
    meanOver: null as Int32Array | null,
    meanCount: 0,
  };
}
