import { describe, expect, it } from 'vitest';
import { AttentionError, LIMITS, loadAttention, type ModelSpec } from '../../dist/node.js';
import {
  ATTENTION_BUDGET,
  forwardFloats,
  longestShown,
  longestWithStages,
  recordedFloats,
  recordedFor,
  recordPatterns,
  unrecordedFor,
  type LogitRows,
  type ModelShape,
} from '../../web/src/model/recorded-stages.js';

// The real models' shapes (from their config.json); head 'tied' or 'mlm' (BERT): an output head.
const shape = (s: Partial<ModelSpec> & { maxSeq: number }): ModelShape =>
  ({ headDim: 0, ffn: 'gated', attnActivation: 'none', head: 'tied', ...s }) as ModelShape;
const QWEN3_06B = shape({
  layers: 28,
  heads: 16,
  dModel: 1024,
  headDim: 128,
  ffnDim: 3072,
  vocabSize: 151936,
  maxSeq: 40960,
});
const SMOLLM2_135M = shape({
  layers: 30,
  heads: 9,
  dModel: 576,
  headDim: 64,
  ffnDim: 1536,
  vocabSize: 49152,
  maxSeq: 8192,
});
const LLAMA32_1B = shape({
  layers: 16,
  heads: 32,
  dModel: 2048,
  headDim: 64,
  ffnDim: 8192,
  vocabSize: 128256,
  maxSeq: 131072,
});
const GPT2 = shape({
  layers: 12,
  heads: 12,
  dModel: 768,
  ffnDim: 3072,
  ffn: 'standard',
  vocabSize: 50257,
  maxSeq: 1024,
});
const GEMMA3_270M = shape({
  layers: 18,
  heads: 4,
  dModel: 640,
  headDim: 256,
  ffnDim: 2048,
  vocabSize: 262144,
  maxSeq: 32768,
});
const BERT = shape({
  layers: 12,
  heads: 12,
  dModel: 768,
  ffnDim: 3072,
  ffn: 'standard',
  head: 'mlm',
  vocabSize: 30522,
  maxSeq: 512,
});
const MODELS = { QWEN3_06B, SMOLLM2_135M, LLAMA32_1B, GPT2, GEMMA3_270M, BERT };
const ENGINE_FLOATS = LIMITS.workingMemoryBytes / 4;

describe('what a long text records', () => {
  it('shows the weights of the modern models up to a few hundred tokens', () => {
    expect(longestShown(QWEN3_06B, 'last')).toBe(257);
    expect(longestShown(SMOLLM2_135M, 'last')).toBe(308);
    expect(longestShown(LLAMA32_1B, 'last')).toBe(231);
    expect(longestShown(GPT2, 'last')).toBe(442);
    expect(longestShown(GEMMA3_270M, 'last')).toBe(487);
    // BERT with a [MASK] asks for every row's logits: (1, S, V) counts against the same bound
    expect(longestShown(BERT, 'none')).toBe(442);
    expect(longestShown(BERT, 'all')).toBe(398);
    // the longest position still bounds it
    expect(longestShown({ ...GPT2, layers: 2, heads: 2, maxSeq: 64 }, 'last')).toBe(64);
  });

  it('keeps every attention stage of a shorter text', () => {
    expect(longestWithStages(QWEN3_06B, 'last')).toBe(41);
    expect(longestWithStages(SMOLLM2_135M, 'last')).toBe(98);
    expect(longestWithStages(LLAMA32_1B, 'last')).toBe(61);
    expect(longestWithStages(GPT2, 'last')).toBe(154);
    expect(longestWithStages(GEMMA3_270M, 'last')).toBe(120);
  });

  it("derives each limit from the engine's check: a text at it passes, one token more does not", () => {
    for (const [name, model] of Object.entries(MODELS))
      for (const logits of ['last', 'all', 'none'] as LogitRows[]) {
        const at = longestShown(model, logits);
        const passes = (seq: number) =>
          forwardFloats(model, 'weights', seq, logits) <= ENGINE_FLOATS &&
          recordedFloats(model, 'weights', seq) <= ATTENTION_BUDGET;
        expect(passes(at), `${name} ${logits} at ${at}`).toBe(true);
        if (at < model.maxSeq) expect(passes(at + 1), `${name} ${logits} at ${at + 1}`).toBe(false);
        const stages = longestWithStages(model, logits);
        expect(forwardFloats(model, 'attention', stages, logits)).toBeLessThanOrEqual(ENGINE_FLOATS);
      }
  });

  it("agrees with the engine's own check: a run at the limit passes it, one token more is refused", async () => {
    // Two layers of 16 heads (2:1 K/V) with a narrow E: one layer's working set (4 H S² of scores …
    // weights) and both layers' weights reach the engine's 64 M floats before the page's 40 M.
    const engine = await loadAttention();
    const model = engine.createModel({
      vocabSize: 64,
      dModel: 32,
      heads: 16,
      kvHeads: 8,
      headDim: 2,
      layers: 2,
      ffnDim: 64,
      ffn: 'gated',
      causal: true,
      positions: 'rope',
      maxSeq: 1024,
    });
    const limit = longestShown({ ...model.spec, maxSeq: 1024 }, 'last');
    expect(limit).toBe(781);
    const run = (seq: number) =>
      model.forward({
        ids: Int32Array.from({ length: seq }, (_, i) => i % 64),
        batch: 1,
        seq,
        logits: 'last',
        record: { stages: recordPatterns('weights', 'decoder') },
      });
    const kept = run(limit).trace!.stages;
    expect(kept.find((s) => s.name === 'decoder.self_attn.weights')?.shape).toEqual([1, 16, limit, limit]);
    expect(kept.some((s) => s.name === 'decoder.self_attn.masked')).toBe(false);
    expect(() => run(limit + 1)).toThrow(AttentionError);
    expect(() => run(limit + 1)).toThrow(/limit/);
    model.dispose();
  });

  it('counts the stages kept as the engine does: the weights (L, H, S, S), the masks, kv_group', () => {
    // per layer: weights H S², combined mask S², causal/window/user/additive 4 S², padding S, kv_group H
    const s = 100;
    expect(recordedFloats(QWEN3_06B, 'weights', s)).toBe(28 * (16 * s * s + 5 * s * s + s + 16));
    // Qwen3-0.6B's working set at 257 tokens: one layer (E = H d_h = 2048, gated F = 2 × 3072) and one row of logits
    const e = 2048,
      f = 6144,
      n = 257;
    const working = 24 * n * e + 4 * 16 * n * n + 2 * n * n + 3 * n * f + 12 * n * e + 151936;
    expect(forwardFloats(QWEN3_06B, 'weights', n, 'last')).toBe(working + recordedFloats(QWEN3_06B, 'weights', n));
  });

  it('records fewer stages as the text grows', () => {
    // every stage of Qwen3-0.6B takes about 1.9 M floats a token: the page keeps them up to 4 tokens
    expect(recordedFor(QWEN3_06B, 4, 'last')).toBe('every');
    expect(recordedFor(QWEN3_06B, 5, 'last')).toBe('attention');
    expect(recordedFor(QWEN3_06B, 41, 'last')).toBe('attention');
    expect(recordedFor(QWEN3_06B, 42, 'last')).toBe('weights');
    expect(recordPatterns('every', 'decoder')).toEqual(['decoder.*']);
    expect(recordPatterns('attention', 'decoder')).toEqual(['decoder.input', 'decoder.self_attn.*']);
    // 'mask' and 'mask.*', not 'mask*': that would keep the (B, H, S, S) masked scores too
    expect(recordPatterns('weights', 'encoder')).toEqual([
      'encoder.self_attn.weights',
      'encoder.self_attn.mask',
      'encoder.self_attn.mask.*',
      'encoder.self_attn.kv_group',
    ]);
  });

  it('says which views read stages a weights-only run left out', () => {
    expect(unrecordedFor('attention', 'steps', 'weights')).toBeNull();
    for (const view of ['lines', 'masks', 'overview', 'shapes', 'values'])
      expect(unrecordedFor('weights', view, 'weights')).toBeNull();
    expect(unrecordedFor('weights', 'heads', 'weights')).toBeNull();
    expect(unrecordedFor('weights', 'heads', 'scores')).toBe('the scores');
    expect(unrecordedFor('weights', 'head', 'masked')).toBe('the masked scores');
    for (const view of ['rows', 'split', 'positions', 'steps', 'changes'])
      expect(unrecordedFor('weights', view, 'weights')).toMatch(/\w/);
  });
});
