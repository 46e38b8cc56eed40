// The Generate panel's state (model/generation-state.ts) as the URL hash and the element's
// attributes carry it, and its drawing data (model/generation-view.ts): a state survives a
// round trip, the playground's keys of the hash stay, bad values are named and ignored.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_GENERATION_STATE,
  GENERATION_FIELDS,
  attributeName,
  generationHashPart,
  generationStateFromAttributes,
  generationStateFromHash,
  MAX_TREE_IDS,
  formatTree,
  linkTree,
  withGenerationState,
  type GenerationState,
} from '../../web/src/model/generation-state.js';
import { stateFromHash } from '../../web/src/settings/settings.js';
import {
  AttentionRows,
  branchTree,
  cacheLayers,
  cacheWithoutGrouping,
  doneText,
  futureBlocked,
  MEASURABLE_STEP_MS,
  speedText,
  withPath,
} from '../../web/src/model/generation-view.js';

const STATE: GenerationState = {
  ...DEFAULT_GENERATION_STATE,
  prompt: 'user: Hi & bye\n#1 = 2',
  chat: true,
  temperature: 0.7,
  topK: 40,
  topP: 0.9,
  minP: 0.05,
  repetitionPenalty: 1.2,
  seed: 7,
  maxNewTokens: 30,
  path: [464, 3290, 0],
  tree: [[464, 11], [464, 3290, 0, 5, 6], [464, 3290, 7], [13]],
};

describe('the Generate panel\u2019s state', () => {
  it('goes through the hash and back, beside the playground\u2019s keys, which stay', () => {
    const hash = withGenerationState('#model=reverse&text=3+7', STATE);
    expect(hash.startsWith('#model=reverse&text=3+7&gen.')).toBe(true);
    expect(generationStateFromHash(hash)).toEqual({ state: STATE, problems: [] });
    // the playground reads its own keys and ignores the panel's (no "unknown setting")
    const playground = stateFromHash(hash);
    expect(playground.problems).toEqual([]);
    expect(playground.state.model).toBe('reverse');
    // the panel's part alone, as the playground keeps it when it writes its own
    expect(generationStateFromHash(`#${generationHashPart(hash)}`).state).toEqual(STATE);
    // defaults are left out; writing the defaults removes the panel's keys
    expect(withGenerationState(hash, DEFAULT_GENERATION_STATE)).toBe('#model=reverse&text=3+7');
    expect(withGenerationState('', { ...DEFAULT_GENERATION_STATE, topK: 5 })).toBe('#gen.topK=5');
  });

  it('reads the element\u2019s attributes (kebab-case names)', () => {
    expect(GENERATION_FIELDS.map(attributeName)).toEqual([
      'prompt',
      'chat',
      'temperature',
      'top-k',
      'top-p',
      'min-p',
      'repetition-penalty',
      'seed',
      'max-new-tokens',
      'path',
      'tree',
    ]);
    const attributes: Record<string, string> = { prompt: 'Once', temperature: '0.5', 'top-k': '3', path: '1.2.3' };
    const { state, problems } = generationStateFromAttributes((name) => attributes[name] ?? null);
    expect(problems).toEqual([]);
    expect(state).toEqual({ ...DEFAULT_GENERATION_STATE, prompt: 'Once', temperature: 0.5, topK: 3, path: [1, 2, 3] });
  });

  it('names each bad value and keeps the value it had', () => {
    const { state, problems } = generationStateFromHash(
      '#gen.temperature=-1&gen.topP=0&gen.topK=2.5&gen.path=1.x&gen.seed=abc&gen.chat=maybe&gen.colour=red&gen.minP=0.5&gen.tree=0-1_3-2',
    );
    expect(state).toEqual({ ...DEFAULT_GENERATION_STATE, minP: 0.5 });
    expect(problems).toEqual([
      "unknown generation setting 'gen.colour' in the link",
      "Temperature is '-1'; it must be 0 to 2.",
      "Top-p is '0'; it must be above 0, at most 1.",
      "Top-k is '2.5'; it must be a whole number 0 to 100.",
      "path: 'x' is not a token id (ids are joined by '.').",
      "Seed is 'abc'; it must be a whole number 0 to 2147483647.",
      "chat is 'maybe'; it must be 1 or 0.",
      "tree: '3-2' is not a branch ('shared-ids', shared at most the branch before's length).",
    ]);
  });

  it('writes the tree\u2019s other branches once each, their shared starts once, and within a link\u2019s size', () => {
    expect(formatTree(STATE.tree)).toBe('0-464.11_1-3290.0.5.6_2-7_0-13');
    expect(withGenerationState('', STATE)).toContain('gen.tree=0-464.11_1-3290.0.5.6_2-7_0-13');
    // the path shown is not written again in the tree; the others are, in the order explored
    const explored = [[1, 2], [1, 3, 4], [9]];
    expect(linkTree(explored, [1, 3, 4])).toEqual({ tree: [[1, 2], [9]], dropped: 0 });
    // too many ids: the newest branches are kept, the oldest counted as left out
    const many = Array.from({ length: 40 }, (_, i) => Array.from({ length: 20 }, (_, j) => i * 100 + j));
    const { tree, dropped } = linkTree(many, []);
    expect(tree.length * 20).toBeLessThanOrEqual(MAX_TREE_IDS);
    expect(tree.length + dropped).toBe(40);
    expect(dropped).toBeGreaterThan(0);
    expect(tree.at(-1)).toEqual(many.at(-1));
    expect(generationStateFromHash(withGenerationState('', { ...DEFAULT_GENERATION_STATE, tree })).state.tree).toEqual(
      tree,
    );
  });
});

describe('the Generate panel\u2019s drawing data', () => {
  it('adds each new token\u2019s row to every head\u2019s matrix', () => {
    // L = 1, H = 2, S = 2 -> 3
    const rows = new AttentionRows(Float32Array.from([1, 0, 0.5, 0.5, 1, 0, 0.25, 0.75]), 1, 2, 2);
    rows.add(Float32Array.from([0.2, 0.3, 0.5, 0.1, 0.1, 0.8]));
    expect(rows.seq).toBe(3);
    expect(Array.from(rows.head(0, 0))).toEqual([1, 0, 0, 0.5, 0.5, 0, 0.2, 0.3, 0.5].map(Math.fround));
    expect(Array.from(rows.head(0, 1))).toEqual([1, 0, 0, 0.25, 0.75, 0, 0.1, 0.1, 0.8].map(Math.fround));
    expect(Array.from(rows.row(0, 1, 1))).toEqual([0.25, 0.75]);
    expect(() => rows.add(new Float32Array(5))).toThrow(/expected 1 x 2 x 4/);
    expect(() => new AttentionRows(new Float32Array(7), 1, 2, 2)).toThrow(/expected 1 x 2 x 2 x 2/);
    expect(Array.from(futureBlocked(3))).toEqual([0, 1, 1, 0, 0, 1, 0, 0, 0]);
    // the opened tokens' rows not recorded (a long text): 0, and the new rows as given
    const bare = new AttentionRows(null, 1, 1, 2);
    bare.add(Float32Array.from([0.25, 0.25, 0.5]));
    expect(bare.recorded).toBe(false);
    expect(Array.from(bare.head(0, 0))).toEqual([0, 0, 0, 0, 0, 0, 0.25, 0.25, 0.5]);
  });

  it('turns the engine\u2019s step time into a rate only when the step clock can measure it', () => {
    expect(speedText(0, 100, 10, 0)).toBe('');
    // 20 tokens in 400 ms of wall time, 16 engine steps of 5 ms each
    expect(speedText(20, 400, 80, 16)).toBe('50.0 tokens/s (engine alone 200.0 tokens/s)');
    // a replayed branch of a small model: 16 steps timed 0 or 0.1 ms (the clock's ticks), not 6250 tokens/s
    expect(speedText(16, 204.8, 2.56, 16)).toBe(`78.1 tokens/s (engine alone <${MEASURABLE_STEP_MS} ms per token)`);
    expect(speedText(4, 100, 0, 4)).toBe(`40.0 tokens/s (engine alone <${MEASURABLE_STEP_MS} ms per token)`);
    // just at the bound: a rate
    expect(speedText(2, 1000, 2 * MEASURABLE_STEP_MS, 2)).toBe(
      `2.0 tokens/s (engine alone ${1000 / MEASURABLE_STEP_MS}.0 tokens/s)`,
    );
    // no engine steps timed: the wall rate alone
    expect(speedText(3, 1000, 0, 0)).toBe('3.0 tokens/s');
  });

  it('reads the cache\u2019s bytes as positions held, and what grouped-query attention saves', () => {
    // SmolLM2-135M-like: H_kv = 3, d_h = 64; a window layer holding 4 of 10 positions
    const per = 2 * 3 * 64 * 4;
    expect(cacheLayers([10 * per, 4 * per], 3, 64)).toEqual([
      { layer: 0, bytes: 10 * per, positions: 10 },
      { layer: 1, bytes: 4 * per, positions: 4 },
    ]);
    expect(cacheWithoutGrouping(10, 30, 9, 64)).toBe(30 * 10 * 2 * 9 * 64 * 4);
  });

  it('keeps the branches explored as a tree', () => {
    let paths: number[][] = [];
    paths = withPath(paths, [1]);
    paths = withPath(paths, [1, 2, 3]); // extends [1]: replaces it
    paths = withPath(paths, [1, 2]); // already on [1, 2, 3]
    paths = withPath(paths, [1, 5]);
    expect(paths).toEqual([
      [1, 2, 3],
      [1, 5],
    ]);
    const root = branchTree(paths);
    expect(root.children.map((c) => c.token)).toEqual([1]);
    expect(root.children[0].children.map((c) => [c.token, c.path])).toEqual([
      [2, [1, 2]],
      [5, [1, 5]],
    ]);
    expect(root.children[0].children[0].children[0].path).toEqual([1, 2, 3]);
  });

  it('says why a branch is done: max new tokens, the context, or the end-of-sequence token', () => {
    const end = { newTokens: 16, maxNewTokens: 16, length: 25, maxSeq: 26, lastToken: '3' };
    expect(doneText(end)).toBe('done: max new tokens (16) reached; raise it under More settings to go on');
    expect(doneText({ ...end, newTokens: 10, length: 26 })).toBe(
      'done: the context is full (the model reads at most 26 tokens)',
    );
    expect(doneText({ ...end, newTokens: 3, length: 10, lastToken: '<|endoftext|>' })).toBe(
      'done: the model wrote its end-of-sequence token \u201c<|endoftext|>\u201d',
    );
  });
});
