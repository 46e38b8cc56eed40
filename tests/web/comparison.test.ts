// The "What changed" comparison model on real traces from the engine (Node, SIMD build).
import { describe, expect, it } from 'vitest';
import type { Trace } from 'attention-playground';
import { loadAttention } from '../../dist/node.js';
import { compare, referenceFor, shortText, type Snapshot } from '../../web/src/model/comparison.js';

const engine = await loadAttention();
const config = { dModel: 16, heads: 2, layers: 2 };
const snap = (texts: string[], extra: Record<string, unknown> = {}, model = ''): Snapshot => ({
  trace: engine.run({ texts, config: { ...config, ...extra } }) as Trace,
  text: texts.join('\n'),
  model,
});
const at = (layer: number, sequence = 0) => ({ block: 'encoder.self_attn' as const, layer, sequence });

describe('referenceFor', () => {
  it('prefers the pinned baseline, else the previous result, else nothing', () => {
    const a = snap(['the cat sat']);
    const b = snap(['the dog sat']);
    expect(referenceFor(a, b)).toEqual({ snapshot: a, pinned: true });
    expect(referenceFor(null, b)).toEqual({ snapshot: b, pinned: false });
    expect(referenceFor(null, null)).toBeNull();
  });
});

describe('compare', () => {
  const cat = snap(['the cat sat']);
  const dog = snap(['the dog sat']);

  it('at layer 0 the linear layer moves the edited row only, attention every row', () => {
    const c = compare(cat, dog, at(0));
    expect(c.kind).toBe('compared');
    if (c.kind !== 'compared') return;
    expect(c.edited).toEqual([1]);
    expect([c.before, c.after]).toEqual([
      ['the', 'cat', 'sat'],
      ['the', 'dog', 'sat'],
    ]);
    expect(c.linear.map((v) => v > 1e-6)).toEqual([false, true, false]);
    expect(c.value.map((v) => v > 1e-6)).toEqual([false, true, false]);
    expect(c.attention.every((v) => v > 1e-6)).toBe(true);
    expect(c.settings).toEqual([]);
    expect(c.otherEdited).toEqual([]);
  });

  it('with the positional preset, Q reads only positions: no row of Q moves, V moves the edited row only', () => {
    const positional = { preset: 'positional' };
    const c = compare(snap(['the cat sat on'], positional), snap(['the dog sat on'], positional), at(0));
    if (c.kind !== 'compared') throw new Error('not compared');
    expect(Math.max(...c.linear)).toBe(0);
    expect(c.value.map((v) => v > 1e-6)).toEqual([false, true, false, false]);
  });

  it('an edit in another sentence of the batch is named when the sentence shown has none', () => {
    const before = snap(['the cat sat', 'a dog barked']);
    const after = snap(['the cat sat', 'a dog slept']);
    const c = compare(before, after, at(0, 0));
    if (c.kind !== 'compared') throw new Error('not compared');
    expect([c.edited, c.otherEdited]).toEqual([[], [1]]);
    const there = compare(before, after, at(0, 1));
    if (there.kind !== 'compared') throw new Error('not compared');
    expect([there.edited, there.otherEdited]).toEqual([[2], []]);
  });

  it('follows the layer: layer 1 compares layer 1 rows', () => {
    const zero = compare(cat, dog, at(0));
    const one = compare(cat, dog, at(1));
    if (zero.kind !== 'compared' || one.kind !== 'compared') throw new Error('not compared');
    expect(one.linear).not.toEqual(zero.linear);
    // Layer 1's input already mixed every token, so its linear layer moves unedited rows too.
    expect(one.linear.every((v) => v > 1e-6)).toBe(true);
  });

  it('compares a result with itself as nothing moved', () => {
    const c = compare(cat, cat, at(1));
    if (c.kind !== 'compared') throw new Error('not compared');
    expect(c.edited).toEqual([]);
    expect(Math.max(...c.linear, ...c.attention)).toBe(0);
  });

  it('names settings that differ without changing shapes', () => {
    const c = compare(cat, snap(['the dog sat'], { seed: 99 }), at(0));
    if (c.kind !== 'compared') throw new Error('not compared');
    expect(c.settings).toEqual(['seed']);
  });

  it('says why shapes cannot be compared', () => {
    expect(compare(cat, snap(['the dog sat'], { heads: 4 }), at(0))).toEqual({
      kind: 'incomparable',
      reasons: ['it has 2 heads, this result 4 heads'],
    });
    expect(compare(cat, snap(['the dog sat'], { layers: 1, dModel: 8 }), at(0))).toEqual({
      kind: 'incomparable',
      reasons: ['it has 2 layers, this result 1 layer', 'it has d_model 16, this result d_model 8'],
    });
    expect(compare(cat, snap(['the dog sat on']), at(0))).toEqual({
      kind: 'incomparable',
      reasons: ['it has 3 tokens, this result 4 tokens'],
    });
    expect(compare(cat, snap(['the dog sat', 'a b']), at(0, 1))).toEqual({
      kind: 'incomparable',
      reasons: ['it has 1 sentence, no sentence 2'],
    });
    expect(compare(cat, { ...dog, model: 'trained:copy' }, at(0))).toEqual({
      kind: 'incomparable',
      reasons: ['it was computed by another model'],
    });
  });

  it('says so when the batch is padded differently', () => {
    const c = compare(snap(['the cat sat', 'a']), snap(['the dog sat', 'a b c d']), at(0));
    expect(c.kind).toBe('incomparable');
    if (c.kind === 'incomparable')
      expect(c.reasons[0]).toMatch(/^its layer 0 output is 2 × 3 × 16, this result’s 2 × 4 × 16$/);
  });
});

describe('shortText', () => {
  it('keeps one line and cuts long texts', () => {
    expect(shortText('the cat\nsat')).toBe('the cat / sat');
    expect(shortText('abcdefghij', 5)).toBe('abcd…');
    expect(shortText('<b>x</b>')).toBe('<b>x</b>');
  });
});
