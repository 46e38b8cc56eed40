// The docs' generated blocks (between <!-- generated:NAME --> markers) are what
// scripts/docs-tables.mjs makes now: from bench/results/*.json (the bench tables) and from
// the built package, dist/node.js (limits, setting ranges, error codes) and its size record,
// dist/sizes.json (the one-file element's size). And the limits the
// docs print are the ones the engine enforces, probed at each boundary.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { loadAttention, LIMITS } from 'attention-playground';
// @ts-ignore -- a plain .mjs script without type declarations
import * as tables from '../../scripts/docs-tables.mjs';

const { FILES, ROOT, benchBlocks, fillBlocks, limitBlocks, readBlock, sizeBlocks } = tables;
const blocks: Record<string, string[]> = { ...benchBlocks(), ...(await limitBlocks()), ...sizeBlocks() };

describe('generated blocks match the generator', () => {
  for (const [file, names] of Object.entries(FILES as Record<string, string[]>)) {
    const text = readFileSync(`${ROOT}${file}`, 'utf8');
    for (const name of names) {
      test(`${file}: ${name}`, () => {
        const block = readBlock(text, name);
        expect(block, `markers of ${name} in ${file}`).not.toBeNull();
        expect(block).toBe(`${blocks[name].join('\n')}\n`);
      });
    }
  }

  test('a block follows its source: a changed result changes the table', () => {
    const latest = JSON.parse(readFileSync(`${ROOT}bench/results/latest.json`, 'utf8'));
    const results = {
      latest,
      latency: JSON.parse(readFileSync(`${ROOT}bench/results/latency.json`, 'utf8')),
      pretrained: JSON.parse(readFileSync(`${ROOT}bench/results/pretrained.json`, 'utf8')),
      modern: JSON.parse(readFileSync(`${ROOT}bench/results/modern.json`, 'utf8')),
      pretrainedModern: JSON.parse(readFileSync(`${ROOT}bench/results/pretrained-modern.json`, 'utf8')),
      decode: JSON.parse(readFileSync(`${ROOT}bench/results/decode.json`, 'utf8')),
    };
    const before = benchBlocks(results)['bench-attention'].join('\n');
    latest.mha[0].simd *= 2;
    const after = benchBlocks(results)['bench-attention'].join('\n');
    expect(after).not.toBe(before);
    expect(after).toContain(latest.mha[0].simd.toFixed(3));
  });

  test('filling keeps the text around a block and refuses missing markers', () => {
    const text = 'before\n<!-- generated:x -->\nold\n<!-- /generated:x -->\nafter\n';
    expect(fillBlocks(text, { x: ['new'] }, ['x'])).toBe(
      'before\n<!-- generated:x -->\nnew\n<!-- /generated:x -->\nafter\n',
    );
    expect(() => fillBlocks('no markers', { x: ['new'] }, ['x'])).toThrow(/markers/);
  });
});

describe("the documented limits are the engine's", async () => {
  const engine = await loadAttention();
  const words = (n: number) => Array.from({ length: n }, () => 'a').join(' ');
  // false when accepted, else the error's code and field: every stated limit is limit_exceeded on 'texts'.
  const refused = (run: () => unknown) => {
    try {
      run();
      return false;
    } catch (error) {
      const e = error as { code?: string; field?: string };
      expect([e.code, e.field]).toEqual(['limit_exceeded', 'texts']);
      return true;
    }
  };

  test('texts per batch', () => {
    expect(refused(() => engine.run({ texts: Array(LIMITS.texts).fill('a'), mode: 'encoder' }))).toBe(false);
    expect(refused(() => engine.run({ texts: Array(LIMITS.texts + 1).fill('a'), mode: 'encoder' }))).toBe(true);
  });
  test('tokens per text', () => {
    expect(refused(() => engine.run({ texts: [words(LIMITS.tokensPerText)], mode: 'encoder' }))).toBe(false);
    expect(refused(() => engine.run({ texts: [words(LIMITS.tokensPerText + 1)], mode: 'encoder' }))).toBe(true);
  });
  test('UTF-8 bytes per text (two-byte characters: the limit is in bytes, not characters)', () => {
    expect(refused(() => engine.run({ texts: ['é'.repeat(LIMITS.bytesPerText / 2)], mode: 'encoder' }))).toBe(false);
    expect(refused(() => engine.run({ texts: ['é'.repeat(LIMITS.bytesPerText / 2) + 'a'], mode: 'encoder' }))).toBe(
      true,
    );
  });
  test('working memory: a trace past the limit is refused, naming the limit', () => {
    const config = { dModel: LIMITS.dModel.max, heads: LIMITS.heads.max, layers: LIMITS.layers.max };
    expect(() => engine.run({ texts: [words(LIMITS.tokensPerText)], mode: 'encoder', config })).toThrow(
      `the limit is ${LIMITS.workingMemoryBytes / 2 ** 20} MiB`,
    );
    expect(refused(() => engine.run({ texts: [words(LIMITS.tokensPerText)], mode: 'encoder', config }))).toBe(true);
  });
  test("a generation's KV cache: a budget past the limit is refused when it begins, one at it starts", () => {
    // K and V of 2 layers x 16 heads x 512 dims in float32: 128 KiB a position.
    const perPosition = 2 * 2 * 16 * 512 * 4;
    const fits = LIMITS.kvCacheBytes / perPosition;
    const model = engine.createModel({
      vocabSize: 16,
      dModel: 8,
      heads: 16,
      headDim: 512,
      layers: 2,
      ffnDim: 8,
      maxSeq: fits + 8,
      positions: 'learned',
      causal: true,
      norm: 'pre',
      finalNorm: true,
      head: 'tied',
    });
    try {
      let error: unknown;
      try {
        model.generate({ ids: [1, 2], maxNewTokens: fits - 1, temperature: 0 });
      } catch (e) {
        error = e;
      }
      expect(error).toMatchObject({ code: 'limit_exceeded', field: 'maxNewTokens' });
      expect(String((error as Error).message)).toContain(`the limit is ${LIMITS.kvCacheBytes / 2 ** 20} MiB`);
      model.generate({ ids: [1, 2], maxNewTokens: fits - 2, temperature: 0 }).dispose();
    } finally {
      model.dispose();
    }
  });
});
