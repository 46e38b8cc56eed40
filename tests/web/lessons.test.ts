// Issue 31: the why notes (one per view), the weights the Row by row and What changed lessons
// bring with them (item 7), and the numbers behind seeds 001-004: the walk's default row where
// the mask bites and the residual adding x (003), what stands between the weight matrices (002),
// the FFN and the attention weights in What changed (001). On real traces from the engine.
import { describe, expect, it } from 'vitest';
import type { Trace } from 'attention-playground';
import { loadAttention } from '../../dist/node.js';
import { DEFAULT_STATE, PAGE_DEFAULT_STATE, VIEWS, settingByName } from '../../web/src/settings/settings.js';
import { WHY_NOTES, hiddenBy, lessonState, whyNote } from '../../web/src/settings/why-notes.js';
import { headWalk, maskedRow, residualRow } from '../../web/src/model/walk-model.js';
import { betweenWeights, flowRows } from '../../web/src/model/flow-model.js';
import { compare } from '../../web/src/model/comparison.js';
import { rowWise } from '../../web/src/model/rows-model.js';

const engine = await loadAttention();

describe('why notes', () => {
  it('every view has one note of one line, and no note names a view that does not exist', () => {
    expect(Object.keys(WHY_NOTES).sort()).toEqual([...VIEWS].sort());
    for (const view of VIEWS) {
      const { note } = whyNote(view);
      expect(note.length, view).toBeGreaterThan(40);
      expect(note.length, view).toBeLessThan(260);
      expect(note, view).not.toMatch(/\n/);
    }
  });

  it('a lesson that some weights hide names weights the Weights setting offers, and switches to them', () => {
    const presets = (settingByName('preset') as { choices: readonly string[] }).choices;
    for (const view of VIEWS) {
      const weights = whyNote(view).weights;
      if (!weights) continue;
      expect(presets).toContain(weights.preset);
      for (const hidden of Object.keys(weights.hides)) expect(presets).toContain(hidden);
      expect(Object.keys(weights.hides)).not.toContain(weights.preset);
    }
    // The page opens on Positional heads: Row by row and What changed bring random weights, the other views keep them.
    expect(PAGE_DEFAULT_STATE.preset).toBe('positional');
    expect(lessonState({ ...PAGE_DEFAULT_STATE, view: 'rows' }).state.preset).toBe('random');
    expect(lessonState({ ...PAGE_DEFAULT_STATE, view: 'changes' }).state.preset).toBe('random');
    expect(lessonState({ ...PAGE_DEFAULT_STATE, preset: 'identity', view: 'changes' }).state.preset).toBe('random');
    expect(lessonState({ ...PAGE_DEFAULT_STATE, preset: 'identity', view: 'rows' }).state.preset).toBe('identity');
    for (const view of ['heads', 'masks', 'steps', 'shapes'] as const)
      expect(lessonState({ ...PAGE_DEFAULT_STATE, view }).state.preset).toBe('positional');
    // A trained model's weights are its own: nothing switches, nothing is said to hide the point.
    expect(lessonState({ ...PAGE_DEFAULT_STATE, model: 'reverse', view: 'rows' }).state.preset).toBe('positional');
    expect(hiddenBy({ model: 'reverse', preset: 'positional' }, 'rows')).toBeNull();
    expect(hiddenBy({ model: '', preset: 'positional' }, 'rows')).toMatch(/every Q row is the same/);
    expect(hiddenBy({ model: '', preset: 'random' }, 'rows')).toBeNull();
    expect(DEFAULT_STATE.preset).toBe('random'); // embeds: the lessons' weights already
  });

  it('the switch is the lesson’s, not the person’s: leaving the lesson views puts their weights back', () => {
    const toRows = lessonState({ ...PAGE_DEFAULT_STATE, view: 'rows' });
    expect(toRows.override).toEqual({ from: 'positional', to: 'random' });
    // Row by row -> What changed: still random, and still owed back.
    const toChanges = lessonState({ ...toRows.state, view: 'changes' }, toRows.override);
    expect(toChanges.state.preset).toBe('random');
    expect(toChanges.override).toEqual({ from: 'positional', to: 'random' });
    // -> softmax (steps): the person's Positional heads again, nothing owed.
    const back = lessonState({ ...toChanges.state, view: 'steps' }, toChanges.override);
    expect(back.state.preset).toBe('positional');
    expect(back.override).toBeNull();
    // Identity on What changed switches, and Row by row (which identity does not hide) already gives it back.
    const identity = lessonState({ ...PAGE_DEFAULT_STATE, preset: 'identity', view: 'changes' });
    expect(identity.state.preset).toBe('random');
    expect(lessonState({ ...identity.state, view: 'rows' }, identity.override).state.preset).toBe('identity');
    // The person picked Weights while on the lesson: theirs stay when they leave.
    const chosen = lessonState({ ...toRows.state, preset: 'identity', view: 'heads' }, toRows.override);
    expect(chosen.state.preset).toBe('identity');
    expect(chosen.override).toBeNull();
  });
});

/** The smallest max |Δ| between the Q rows of two different words of sentence 0. */
function closestQRows(trace: Trace): number {
  const r = rowWise(trace, 'encoder.self_attn', 0, 0)!;
  const q = r.outputs.q_proj!;
  let smallest = Infinity;
  for (let a = 0; a < r.length; a++)
    for (let b = a + 1; b < r.length; b++) {
      if (r.tokens[a] === r.tokens[b]) continue;
      let d = 0;
      for (let f = 0; f < q.cols; f++) d = Math.max(d, Math.abs(q.values[a * q.cols + f] - q.values[b * q.cols + f]));
      smallest = Math.min(smallest, d);
    }
  return smallest;
}

describe('item 7: the lessons\u2019 weights make their point', () => {
  const texts = ['the cat sat on the mat'];
  it('Row by row, positions off: Positional heads give every word the same Q row and K = 0; random weights do not', () => {
    const positional = engine.run({ texts, mode: 'encoder', config: { preset: 'positional', positional: false } });
    expect(closestQRows(positional)).toBe(0);
    const k = rowWise(positional, 'encoder.self_attn', 0, 0)!.outputs.k_proj!;
    expect(Math.max(...k.values.map(Math.abs))).toBe(0);
    const random = engine.run({ texts, mode: 'encoder', config: { preset: 'random', positional: false } });
    expect(closestQRows(random)).toBeGreaterThan(0.1);
    const pair = rowWise(random, 'encoder.self_attn', 0, 0)!.pairs[0];
    expect([pair.inputDifference, pair.outputDifference.q_proj]).toEqual([0, 0]);
  });

  it('What changed: with random weights the edited word\u2019s own output, its FFN row and the weights move visibly', () => {
    const run = (text: string, preset: 'random' | 'positional') => ({
      trace: engine.run({ texts: [text], mode: 'encoder', config: { preset } }),
      text,
      model: '',
    });
    const where = { block: 'encoder.self_attn' as const, layer: 0, sequence: 0 };
    const positional = compare(
      run('the cat sat on the mat', 'positional'),
      run('the dog sat on the mat', 'positional'),
      where,
    );
    const random = compare(run('the cat sat on the mat', 'random'), run('the dog sat on the mat', 'random'), where);
    if (positional.kind !== 'compared' || random.kind !== 'compared') throw new Error('not compared');
    // Positional heads: the edited word's own output barely moves, no weight moves, the FFN is zero.
    expect(positional.attention[1]).toBeLessThan(0.05);
    expect(Math.max(...positional.weights)).toBeLessThan(1e-3);
    expect(Math.max(...positional.ffn!)).toBe(0);
    // Random weights: the edited word's output moves by more than 0.5, every row's weights move, the FFN moves the
    // edited row most (the others only as far as attention moved what they read).
    expect(random.edited).toEqual([1]);
    expect(random.attention[1]).toBeGreaterThan(0.5);
    expect(random.weights.every((w) => w > 0.01)).toBe(true);
    const others = random.ffn!.filter((_, i) => i !== 1);
    expect(random.ffn![1]).toBeGreaterThan(3 * Math.max(...others));
    expect(random.ffnInput!.every((d) => d > 0)).toBe(true);
    expect(random.linear.map((d) => d > 1e-6)).toEqual([false, true, false, false, false, false]);
  });
});

describe('seed 003: the walk follows a row where the mask bites; the residual adds x, not Q', () => {
  it('picks the causal row blocking closest to half its keys, padding only when nothing else bites, else the last', () => {
    const causal = (n: number) => Uint8Array.from({ length: n * n }, (_, k) => (k % n > Math.floor(k / n) ? 1 : 0));
    expect(maskedRow(causal(6), 6, 6, 6, 6)).toBe(2);
    expect(maskedRow(causal(3), 3, 3, 3, 3)).toBe(1); // rows 0 and 1 block 2 and 1 of 3 keys: a tie, the later row
    expect(maskedRow(new Uint8Array(9), 3, 3, 3, 3)).toBe(2); // nothing blocked: the last word
  });

  it('on real traces: decoder sentence 1 follows "sat"; an encoder sentence with no padding follows the last word', () => {
    const trace = engine.run({ texts: ['the cat sat on the mat', 'a dog barked'], mode: 'decoder', config: {} });
    const w = headWalk(trace, 'decoder.self_attn', 0, 0, 0, 0)!;
    expect(maskedRow(w.blocked, w.sq, w.sk, 6, 6)).toBe(2);
    const enc = engine.run({ texts: ['the cat sat on the mat', 'a dog barked'], mode: 'encoder', config: {} });
    const e0 = headWalk(enc, 'encoder.self_attn', 0, 0, 0, 0)!;
    expect(maskedRow(e0.blocked, e0.sq, e0.sk, 6, 6)).toBe(5);
    const e1 = headWalk(enc, 'encoder.self_attn', 0, 1, 0, 0)!;
    expect(maskedRow(e1.blocked, e1.sq, e1.sk, 3, 3)).toBe(2); // every row blocks the padding alike: the last word
  });

  it('residual = x + output to float rounding, in post-LN and pre-LN, encoder and decoder (both blocks); x + Q is not', () => {
    for (const norm of ['post', 'pre'] as const) {
      const trace = engine.run({
        texts: ['the cat sat'],
        mode: 'cross',
        source: ['le chat est assis'],
        config: { norm, layers: 2 },
      });
      for (const block of ['encoder.self_attn', 'decoder.self_attn', 'decoder.cross_attn'] as const)
        for (const layer of [0, 1]) {
          const r = residualRow(trace, block, layer, 0, 1)!;
          expect(r, `${norm} ${block} ${layer}`).not.toBeNull();
          expect(r.maxDifference, `${norm} ${block} ${layer}`).toBeLessThan(1e-5);
          expect(r.qDifference, `${norm} ${block} ${layer}`).toBeGreaterThan(1e-2);
          if (norm === 'pre') expect(r.x.name.includes('norm'), `${block} ${layer}: ${r.x.name}`).toBe(false);
        }
    }
    const off = engine.run({ texts: ['the cat sat'], mode: 'encoder', config: { residual: false } });
    expect(residualRow(off, 'encoder.self_attn', 0, 0, 1)).toBeNull();
  });
});

describe('seed 002: what stands between one weight matrix and the next', () => {
  const gaps = (config: Record<string, unknown>, stack: 'encoder' | 'decoder' = 'encoder') => {
    const trace = engine.run({ texts: ['the cat sat'], mode: stack, config });
    return betweenWeights(flowRows(trace, stack, 0)).map(
      (g) => `${g.from}>${g.to}: ${g.ops.map((o) => o.name).join(',')}`,
    );
  };
  it('post-LN: softmax weights, then + x and LayerNorm, then the activation; residual off leaves LayerNorm alone', () => {
    expect(gaps({})).toEqual(['W_v>W_o: self_attn.weights', 'W_o>W_1: residual1,norm1', 'W_1>W_2: ffn.activated']);
    expect(gaps({ norm: 'pre' })[1]).toBe('W_o>W_1: residual1,norm2');
    expect(gaps({ residual: false })[1]).toBe('W_o>W_1: norm1');
    for (const gap of gaps({ residual: false })) expect(gap).not.toMatch(/: $/); // no gap is empty
  });
});
