// The Generate panel's engine side (workers/generation-run.ts) in Node, on the shipped
// 'reverse' checkpoint and the tiny GPT-2 fixture, and its live redraw of the next-token
// distribution (model/next-token.ts) against the engine's own probabilities: the
// candidates of one draw, re-filtered for other settings, equal what the engine's sampler
// gives under those settings. Also: a branch's recorded attention equals the rows its
// steps report, stop ends a run between steps, and dispose leaves the heap where it was.
import { readFileSync, readdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAttention, type AttentionEngine } from '../../dist/node.js';
import type { CheckpointRecord } from '../../web/src/model/checkpoint.js';
import type { TrainedModelRef } from '../../web/src/workers/trained-trace.js';
import { TrainedModels } from '../../web/src/workers/trained-trace.js';
import { PretrainedModels } from '../../web/src/workers/pretrained-run.js';
import {
  GenerationRuns,
  type GenerationOpen,
  type GenerationOpened,
  type GenerationSource,
  type HeldModels,
  type StepView,
} from '../../web/src/workers/generation-run.js';
import { redistribute, type Filters } from '../../web/src/model/next-token.js';
import {
  DEFAULT_GENERATION_STATE,
  samplerSettings,
  type SamplerSettings,
} from '../../web/src/model/generation-state.js';
import { AttentionRows, cacheLayers } from '../../web/src/model/generation-view.js';

const folder = new URL('../../web/public/checkpoints/', import.meta.url);
const record = JSON.parse(readFileSync(new URL('reverse.json', folder), 'utf8')) as CheckpointRecord;
const reverse: TrainedModelRef = {
  key: 'checkpoint:reverse',
  settings: record.settings,
  weights: new Uint8Array(readFileSync(new URL('reverse.safetensors', folder))),
};
const GPT2 = new URL('../reference/fixtures/pretrained/gpt2-tiny/', import.meta.url);

let engine: AttentionEngine;
let runs: GenerationRuns;
let runsModels: HeldModels;
let gpt2: GenerationSource;
beforeAll(async () => {
  engine = await loadAttention();
  const trained = new TrainedModels(engine);
  const pretrained = new PretrainedModels(engine);
  const files = readdirSync(GPT2)
    .filter((f) => f !== 'expected.json')
    .map((f) => new File([readFileSync(new URL(f, GPT2))], f));
  const loaded = await pretrained.load({ files, name: 'gpt2-tiny' });
  if (!loaded.ok) throw new Error(loaded.error);
  gpt2 = { pretrained: { key: loaded.model.key } };
  runsModels = {
    engine: async () => engine,
    pretrained: async () => pretrained,
    trained: async () => trained,
  };
  runs = new GenerationRuns(runsModels);
});

const DEFAULTS = samplerSettings(DEFAULT_GENERATION_STATE);

async function open(
  source: GenerationSource,
  prompt: string,
  settings: Partial<SamplerSettings> = {},
  path: number[] = [],
) {
  const input: GenerationOpen = { source, prompt, chat: false, settings: { ...DEFAULTS, ...settings }, path };
  const opened = await runs.generationOpen(input);
  if (!opened.ok) throw new Error(opened.error);
  return opened;
}

async function steps(count: number, onStep?: (s: StepView, i: number) => void): Promise<StepView[]> {
  const out: StepView[] = [];
  const ended = await runs.generationRun(count, (s) => {
    out.push(s);
    onStep?.(s, out.length);
  });
  if (!ended.ok) throw new Error(ended.error);
  return out;
}

const filters = (s: Partial<SamplerSettings>): Filters => ({ ...DEFAULTS, ...s });

/** The candidates of the first step after `prompt` under `settings`. */
async function firstStep(source: GenerationSource, prompt: string, settings: Partial<SamplerSettings>) {
  await open(source, prompt, settings);
  return (await steps(1))[0];
}

function expectSameDistribution(shown: ReturnType<typeof redistribute>, engineStep: StepView) {
  const byToken = new Map(engineStep.candidates.map((c) => [c.token, c.probability]));
  expect(shown.bars.length).toBeGreaterThan(0);
  for (const bar of shown.bars)
    expect(bar.probability, `token ${bar.token}`).toBeCloseTo(byToken.get(bar.token) ?? 0, 9);
  // and the engine's top tokens are the bars, in order (ties aside)
  const kept = engineStep.candidates.filter((c) => c.probability > 0).slice(0, shown.bars.length);
  expect(shown.bars.filter((b) => b.kept).map((b) => b.token)).toEqual(kept.map((c) => c.token));
}

describe('the Generate panel where the engine runs', () => {
  const PROMPT = '3 7 1 1 1 0 5 6 |';

  it('generates the reverse model\u2019s answer greedily, with the branch\u2019s attention growing one row per step', async () => {
    const opened = await open({ trained: reverse }, PROMPT, { temperature: 0 });
    expect(opened.tokens).toEqual(PROMPT.split(' '));
    expect(opened.promptLength).toBe(9);
    expect(opened.model).toMatchObject({ layers: 2, heads: 4, maxSeq: 17 });
    expect(opened.remaining).toBe(8);
    const got = await steps(100);
    expect(got.map((s) => s.text)).toEqual(['6', '5', '0', '1', '1', '1', '7', '3']);
    expect(got.at(-1)!.done).toBe(true);
    // cache: 2 layers, K and V of 4 heads x 8 per position, 16 positions held after the last step fed its token (17 minus none)
    expect(got.at(-1)!.cacheBytes).toEqual([17 * 2 * 4 * 8 * 4, 17 * 2 * 4 * 8 * 4]);
    // The rows the steps reported equal the recorded forward of the whole branch
    const rows = new AttentionRows(opened.attention, 2, 4, opened.ids.length);
    for (const s of got) rows.add(s.attention);
    const seq = rows.seq;
    const whole = await open(
      { trained: reverse },
      PROMPT,
      { temperature: 0 },
      got.map((s) => s.token),
    );
    expect(whole.ids.length).toBe(seq);
    const wholeAttention = whole.attention;
    // the prompt as ids gives the same
    const byIds = await runs.generationOpen({
      source: { trained: reverse },
      prompt: '',
      ids: opened.ids,
      chat: false,
      settings: { ...DEFAULTS, temperature: 0 },
      path: [],
    });
    expect(byIds).toMatchObject({ ok: true, tokens: opened.tokens, promptLength: 9 });
    expect((await steps(1))[0].text).toBe('6');
    expect(whole.done).toBe(true);
    const once = new AttentionRows(wholeAttention, 2, 4, seq);
    for (let l = 0; l < 2; l++)
      for (let h = 0; h < 4; h++) {
        const grown = rows.head(l, h),
          recorded = once.head(l, h);
        for (let i = 0; i < seq * seq; i++) expect(grown[i]).toBeCloseTo(recorded[i], 5);
      }
  });

  it('redraws the distribution for other settings as the engine\u2019s sampler gives it (every token a candidate)', async () => {
    const vocab = (await open({ trained: reverse }, PROMPT)).model.vocabSize;
    const base = await firstStep({ trained: reverse }, PROMPT, {});
    expect(base.candidates.length).toBe(vocab); // the whole vocabulary: 0-9 and '|'
    expect(vocab).toBe(11);
    for (const next of [
      { temperature: 0.7 },
      { temperature: 2, topK: 3 },
      { temperature: 1.6, topP: 0.9 },
      { temperature: 1.8, minP: 0.01 },
      { temperature: 1.9, topK: 6, topP: 0.95, minP: 0.001 },
    ]) {
      const engineStep = await firstStep({ trained: reverse }, PROMPT, next);
      const shown = redistribute(base.candidates, filters({}), filters(next), vocab);
      expect(shown.exact, JSON.stringify(next)).toBe(true);
      expectSameDistribution(shown, engineStep);
      // the caption's entropy is the redrawn distribution's: the engine's for those settings
      expect(shown.entropy, JSON.stringify(next)).toBeCloseTo(engineStep.entropy, 4);
      // and back: from the filtered draw to the same settings gives what it drew from
      expectSameDistribution(redistribute(engineStep.candidates, filters(next), filters(next), vocab), engineStep);
    }
  });

  it('GPT-2 (557 tokens, 64 candidates): exact within a draw\u2019s top-k, an estimate (said) beyond', async () => {
    const prompt = 'The cat sat on the';
    const drawn = { topK: 40 };
    const base = await firstStep(gpt2, prompt, drawn);
    for (const next of [
      { temperature: 0.6, topK: 40 },
      { temperature: 0.8, topK: 10, topP: 0.7 },
      { temperature: 1.2, topK: 40, minP: 0.3 },
    ]) {
      const shown = redistribute(base.candidates, filters(drawn), filters(next), 557);
      expect(shown.exact).toBe(true);
      const engineStep = await firstStep(gpt2, prompt, next);
      expectSameDistribution(shown, engineStep);
      expect(shown.entropy, JSON.stringify(next)).toBeCloseTo(engineStep.entropy, 4);
    }
    const open = await firstStep(gpt2, prompt, {});
    const estimate = redistribute(open.candidates, filters({}), filters({ temperature: 0.5 }), 557);
    expect(estimate.exact).toBe(false);
    expect(estimate.rest).toBeGreaterThan(0);
    expect(estimate.kept).toBe(557);
    // the same settings keep the draw's entropy (the engine's, over every token)
    expect(redistribute(open.candidates, filters({}), filters({}), 557, open.entropy).entropy).toBe(open.entropy);
  });

  it('stops a run between steps, and a disposed generation leaves the heap where it was', async () => {
    const before = await runs.generationDispose(); // nothing open
    const opened: GenerationOpened = await open(gpt2, 'The cat sat on the', { maxNewTokens: 20, seed: 3 });
    expect(opened.remaining).toBe(20);
    let count = 0;
    const ended = await runs.generationRun(20, () => {
      if (++count === 3) runs.generationStop();
    });
    expect(ended).toMatchObject({ ok: true, steps: 3, stopped: true, done: false });
    const after = await runs.generationDispose();
    expect(after).toBe(before);
    // the same seed, settings and branch give the same tokens
    await open(gpt2, 'The cat sat on the', { maxNewTokens: 5, seed: 3 });
    const first = (await steps(5)).map((s) => s.token);
    await open(gpt2, 'The cat sat on the', { maxNewTokens: 5, seed: 3 });
    expect((await steps(5)).map((s) => s.token)).toEqual(first);
    expect(await runs.generationDispose()).toBe(before);
  });

  it('replays a link\u2019s branch: each token\u2019s distribution and the cache as its steps gave them, forced tokens too', async () => {
    const prompt = 'The cat sat on the';
    const settings = { maxNewTokens: 8, seed: 11, temperature: 1.3 };
    const before = await runs.generationDispose();
    await open(gpt2, prompt, settings);
    const sampled = await steps(6);
    const path = sampled.map((s) => s.token);
    const replay = async (branch: number[], names: number[] = []) => {
      const opened = await runs.generationOpen({
        source: gpt2,
        prompt,
        chat: false,
        settings: { ...DEFAULTS, ...settings },
        path: branch,
        replay: true,
        names,
      });
      if (!opened.ok) throw new Error(opened.error);
      return opened;
    };
    // the same branch: every step's candidates and entropy again, the cache after the last, and the sampler where it
    // was (the next two tokens are the ones the first run went on with)
    const again = await replay(path, [path[0], 99999]);
    expect(again.names).toEqual([sampled[0].text, '#99999']);
    expect(again.replayed.map((r) => r.position)).toEqual(sampled.map((s) => s.position));
    again.replayed.forEach((r, i) => {
      expect(r.candidates.map((c) => c.token)).toEqual(sampled[i].candidates.map((c) => c.token));
      r.candidates.forEach((c, j) => expect(c.probability).toBeCloseTo(sampled[i].candidates[j].probability, 6));
      expect(r.entropy).toBeCloseTo(sampled[i].entropy, 6);
    });
    expect(again.cacheBytes).toEqual(sampled.at(-1)!.cacheBytes);
    expect(again.done).toBe(false);
    const continued = await steps(2);
    await open(gpt2, prompt, settings);
    expect(continued.map((s) => s.token)).toEqual((await steps(8)).slice(6).map((s) => s.token));
    // a forced token the sampler did not draw (a branch): the steps after it are that branch's distributions,
    // as a plain open of the branch's prefix then gives them
    const other = sampled[2].candidates.find((c) => c.token !== path[2])!.token;
    const branch = [...path.slice(0, 2), other, 7];
    const forced = await replay(branch);
    expect(forced.ids.slice(forced.promptLength)).toEqual(branch);
    await open(gpt2, prompt, settings, branch.slice(0, 3));
    const plain = (await steps(1))[0];
    expect(forced.replayed[3].candidates.map((c) => c.token)).toEqual(plain.candidates.map((c) => c.token));
    expect(forced.replayed[3].entropy).toBeCloseTo(plain.entropy, 6);
    expect(forced.cacheBytes).toEqual(plain.cacheBytes);
    // a branch as long as max new tokens is done, and nothing stays on the heap after
    const full = await replay([...path, 5, 6]);
    expect(full.done).toBe(true);
    expect(await runs.generationDispose()).toBe(before);
  });

  it('writes a token one way in the prompt, the new tokens and the candidates: escapes and byte fragments', async () => {
    const opened = await open(gpt2, 'a\u0003\u00e9');
    const fragments = opened.tokens.filter((t) => /^\u27e8\d+\u27e9$/.test(t));
    expect(opened.tokens).toContain('\\x03');
    expect(fragments.length).toBe(2); // é's two bytes, each only part of the character
    expect(fragments).toEqual(opened.ids.slice(-2).map((id) => `\u27e8${id}\u27e9`));
    const shown = [...opened.tokens, ...(await steps(3)).flatMap((s) => [s.text, ...s.candidates.map((c) => c.text)])];
    expect(shown.filter((t) => /[\p{Cc}\uFFFD]/u.test(t))).toEqual([]);
    // the same id is written the same wherever it comes: a byte fragment of the prompt as the tree names it
    const named = await runs.generationOpen({
      source: gpt2,
      prompt: 'x',
      chat: false,
      settings: DEFAULTS,
      path: [],
      names: opened.ids,
    });
    expect(named.ok && named.names).toEqual(opened.tokens);
  });

  it('modern checkpoints: a window layer’s cache holds its window, one K/V head’s bytes; chat turns rendered by the template', async () => {
    const HUB = new URL('../reference/fixtures/hub/', import.meta.url);
    const filesOf = (dir: string) =>
      readdirSync(new URL(dir, HUB))
        .filter((f) => f !== 'expected.json')
        .map((f) => new File([readFileSync(new URL(`${dir}/${f}`, HUB))], f));
    const pretrained = await runsModels.pretrained();
    // Gemma 3: window 3 on every layer but each 2nd, one K/V head of d_h 16 for 4 query heads
    const gemma = await pretrained.load({ files: filesOf('gemma3-text-tiny'), name: 'gemma3' });
    if (!gemma.ok) throw new Error(gemma.error);
    const opened = await open({ pretrained: { key: gemma.model.key } }, 'The cat sat on the mat', { maxNewTokens: 4 });
    expect(opened.model).toMatchObject({ layers: 3, heads: 4, kvHeads: 1, headDim: 16, window: 3, windowPattern: 2 });
    const got = await steps(4);
    const seq = opened.ids.length + 4;
    const perPosition = 2 * 1 * 16 * 4;
    expect(cacheLayers(got.at(-1)!.cacheBytes, 1, 16).map((l) => l.positions)).toEqual([3, seq, 3]);
    expect(got.at(-1)!.cacheBytes).toEqual([3 * perPosition, seq * perPosition, 3 * perPosition]);
    // the window layer's row: 0 outside the last 3 positions
    const row = got.at(-1)!.attention.subarray(0, seq); // layer 0, head 0
    expect(Array.from(row.subarray(0, seq - 3)).every((w) => w === 0)).toBe(true);
    expect(row.subarray(seq - 3).reduce((a, b) => a + b, 0)).toBeCloseTo(1, 5);
    // Qwen 2's chat template renders the turns; the prompt is what it renders, as the playground reads it
    const qwen = await pretrained.load({ files: filesOf('qwen2-tiny'), name: 'qwen2' });
    if (!qwen.ok) throw new Error(qwen.error);
    const turns = 'system: Be brief.\nuser: What sat on the mat?';
    const chat = await runs.generationOpen({
      source: { pretrained: { key: qwen.model.key } },
      prompt: turns,
      chat: true,
      settings: DEFAULTS,
      path: [],
    });
    if (!chat.ok) throw new Error(chat.error);
    const run = await pretrained.trace({ pretrained: { key: qwen.model.key }, text: turns, chat: true });
    expect(chat.rendered).toBe(run.rendered);
    expect(chat.rendered).toMatch(/<\|im_start\|>assistant\n$/);
    expect(chat.tokens).toEqual(run.trace.tokens[0]);
    expect((await steps(1)).length).toBe(1);
    await runs.generationDispose();
  });

  it('answers bad input with a message naming the field, never a throw', async () => {
    const bad = await runs.generationOpen({
      source: { trained: reverse },
      prompt: '3 x',
      chat: false,
      settings: DEFAULTS,
      path: [],
    });
    expect(bad).toMatchObject({ ok: false, field: 'prompt' });
    const path = await runs.generationOpen({
      source: { trained: reverse },
      prompt: PROMPT,
      chat: false,
      settings: DEFAULTS,
      path: [999],
    });
    expect(path).toMatchObject({ ok: false, field: 'path' });
    const gone = await runs.generationOpen({
      source: { pretrained: { key: 'nope' } },
      prompt: 'x',
      chat: false,
      settings: DEFAULTS,
      path: [],
    });
    expect(gone.ok).toBe(false);
    const temperature = await runs.generationOpen({
      source: { trained: reverse },
      prompt: PROMPT,
      chat: false,
      settings: { ...DEFAULTS, temperature: -1 },
      path: [],
    });
    expect(temperature).toMatchObject({ ok: false, field: 'temperature' });
    const ids = await runs.generationOpen({
      source: { trained: reverse },
      prompt: '',
      ids: [3, 99],
      chat: false,
      settings: DEFAULTS,
      path: [],
    });
    expect(ids).toMatchObject({ ok: false, field: 'ids' });
    expect(await runs.generationRun(1, () => {})).toMatchObject({ ok: false, field: 'generation' });
  });
});
