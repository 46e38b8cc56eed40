// The engines' wasm memory reaches 4 GB (wasm/CMakeLists.txt), so pointers pass 2^31: every
// build, in Node, with its first 2 GiB of heap taken and every free chunk below filled, loads
// hub checkpoints (F32 Llama, BF16 Qwen3: the low-bit GEMM) whose weights, activations and
// results therefore all live above the 2 GiB mark, and matches their PyTorch outputs (1e-4),
// traces and strings included (the JS glue reads pointers unsigned); and where the threaded
// engine cannot be created (its shared memory reserves the 4 GB up front), 'auto' loads the
// SIMD engine. The 2 GiB block is never written, so the process commits little of it.
import { readFile } from 'node:fs/promises';
import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, describe, expect, it } from 'vitest';
import type { AttentionEngine, Build } from '../../dist/node.js';
import { SINGLE_THREADED_BUILDS, loadWith, type BuildFiles, type Factory } from '../../dist/loader.js';
import { THREADED_BUILD } from '../../dist/threaded-build.js';
import { ROOT, expectRowsClose } from './helpers.js';

const GiB = 2 ** 30;
const DIR = `${ROOT}tests/reference/fixtures/hub/`;
const filesOf = (dir: string): Record<string, Uint8Array> =>
  Object.fromEntries(
    readdirSync(DIR + dir)
      .filter((f) => f !== 'expected.json')
      .map((f) => [f, new Uint8Array(readFileSync(DIR + dir + '/' + f))]),
  );
const read = async (url: URL) => readFile(url);
const ALL_BUILDS: Record<Build, BuildFiles> = { ...SINGLE_THREADED_BUILDS, ...THREADED_BUILD };

type Raw = { _malloc(bytes: number): number };

// An engine of the build whose raw module the test can allocate in (the factory, wrapped).
async function engineWithRaw(build: Build): Promise<{ engine: AttentionEngine; raw: Raw }> {
  let raw: Raw | undefined;
  const files = ALL_BUILDS[build];
  const wrapped: BuildFiles = {
    ...files,
    factory: async () => {
      const factory = await files.factory();
      return (async (options: Parameters<Factory>[0]) =>
        (raw = (await factory(options)) as unknown as Raw)) as unknown as Factory;
    },
  };
  const engine = await loadWith(read, { build, threads: 2 }, { [build]: wrapped });
  return { engine, raw: raw! };
}

// Takes the first 2 GiB of the heap (blocks of 256 MiB until one ends past the 2^31 mark,
// never written: dlmalloc takes less than 2 GiB in one request) and then every free chunk
// below: malloc(1) takes the smallest free chunk that fits, and only when none is left does
// it return an address past the blocks. From then on every allocation lies above 2^31.
// Returns that first address.
function fillBelow2GiB(raw: Raw): number {
  let end = 0;
  while (end <= 2 ** 31) {
    const block = raw._malloc(GiB / 4) >>> 0;
    expect(block).not.toBe(0);
    end = Math.max(end, block + GiB / 4);
  }
  for (let i = 0; i < 4_000_000; i++) {
    const p = raw._malloc(1) >>> 0;
    expect(p).not.toBe(0);
    if (p >= end) return p;
  }
  throw new Error('the free chunks below the blocks did not run out');
}

const engines: AttentionEngine[] = [];
afterAll(() => {
  for (const e of engines) e.dispose();
});

describe.each(['simd', 'scalar', 'simd-threads'] as Build[])('%s build', (build) => {
  it('loads and runs hub checkpoints whose memory lies above 2 GiB, as PyTorch', { timeout: 60_000 }, async () => {
    const { engine, raw } = await engineWithRaw(build);
    engines.push(engine);
    const above = fillBelow2GiB(raw);
    expect(above).toBeGreaterThan(2 ** 31);
    expect(engine.memoryBytes()).toBeGreaterThan(2 ** 31);
    for (const dir of ['llama-tiny', 'qwen3-tiny-bf16']) {
      const model = await engine.loadPretrained({ files: filesOf(dir) });
      // eslint-disable-next-line @typescript-eslint/no-explicit-any
      const e: any = JSON.parse(readFileSync(`${DIR}${dir}/expected.json`, 'utf8'));
      const out = model.forward({
        ids: Int32Array.from(e.input_ids),
        batch: e.batch,
        seq: e.seq,
        lengths: e.lengths,
        record: { stages: ['*.self_attn.weights'] },
      });
      const weights = out.trace!.stages.filter((s) => s.name.endsWith('self_attn.weights'));
      // The stages' names and shapes come as strings built above 2 GiB; their data as copies from there.
      expect(weights.map((s) => s.layer)).toEqual([...Array(model.spec.layers).keys()]);
      weights.forEach((s, l) =>
        expectRowsClose(s.data, e.attentions[l], e, model.spec.heads, e.seq, `${dir} attentions[${l}]`),
      );
      expectRowsClose(out.hidden, e.hidden_states.at(-1), e, 1, model.spec.dModel, `${dir} final hidden`);
      expectRowsClose(out.logits!, e.logits, e, 1, model.spec.vocabSize, `${dir} logits`);
      model.dispose();
    }
  });
});

describe('where the threaded engine cannot be created', () => {
  it("'auto' loads the SIMD engine; 'simd-threads' asked for fails with the reason", async () => {
    const refused: BuildFiles = {
      ...THREADED_BUILD['simd-threads'],
      factory: async () =>
        (async () => {
          throw new RangeError('WebAssembly.Memory(): could not allocate memory');
        }) as unknown as Factory,
    };
    const isolated = globalThis as { crossOriginIsolated?: boolean };
    isolated.crossOriginIsolated = true; // as a cross-origin isolated page, where 'auto' picks threads
    try {
      const engine = await loadWith(read, {}, { ...SINGLE_THREADED_BUILDS, 'simd-threads': refused });
      engines.push(engine);
      expect(engine.build).toBe('simd');
      await expect(
        loadWith(read, { build: 'simd-threads' }, { ...SINGLE_THREADED_BUILDS, 'simd-threads': refused }),
      ).rejects.toThrow('could not allocate memory');
    } finally {
      delete isolated.crossOriginIsolated;
    }
  });
});
