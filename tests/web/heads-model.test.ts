// The "What heads do" view's pure parts (model/heads-state.ts, model/heads-figures.ts): the URL
// state round-trips and reports what it cannot read; the detector grid sorts; the attribution
// bars are the parts in stream order and sum to the logit; the patching agreement measures what
// it says; every CSV holds the numbers of its figure.
import { describe, expect, it } from 'vitest';
import {
  DEFAULT_HEADS_STATE,
  exploreHeadHash,
  headsStateFromHash,
  headsStateToHash,
  isHeadsHash,
  patchPair,
  toggleHead,
  type HeadsState,
} from '../../web/src/model/heads-state.js';
import {
  ablationChange,
  attributionBars,
  attributionCsv,
  bestHead,
  detectorCsv,
  detectorRows,
  headsFileName,
  lensCsv,
  logitName,
  patchAgreement,
  patchCsv,
} from '../../web/src/model/heads-figures.js';
import { meanReference } from '../../web/src/model/mean-reference.js';
import type {
  AblateResult,
  AttributeResult,
  DetectResult,
  LensResult,
  PatchResult,
} from '../../web/src/model/heads-results.js';

describe('the heads view\u2019s URL state', () => {
  it('round-trips every value, leaving the defaults out', () => {
    const state: HeadsState = {
      model: 'induction',
      text: '8 0 9 & = "x"',
      tool: 'patch',
      head: { layer: 1, head: 0 },
      sort: 'induction',
      token: 6,
      against: 12,
      ablate: [
        { layer: 0, head: 1 },
        { layer: 1, head: 0 },
      ],
      mlps: [0, 1],
      ablation: 'mean',
      clean: 'a b',
      corrupted: 'a c',
    };
    const hash = headsStateToHash(state);
    expect(hash.startsWith('#heads&')).toBe(true);
    expect(isHeadsHash(hash)).toBe(true);
    expect(headsStateFromHash(hash)).toEqual({ state, problems: [] });
    expect(headsStateToHash(DEFAULT_HEADS_STATE)).toBe('#heads');
    expect(headsStateToHash({ ...DEFAULT_HEADS_STATE, model: 'sort' })).toBe('#heads&model=sort');
    expect(isHeadsHash('#headsx')).toBe(false);
    expect(isHeadsHash('#model=sort')).toBe(false);
  });

  it('reports values it cannot read and keeps the defaults for them', () => {
    const { state, problems } = headsStateFromHash(
      '#heads&tool=magic&head=1-0&ablate=0.1,x&token=-3&colour=red&mlps=1',
    );
    expect(state).toEqual({ ...DEFAULT_HEADS_STATE, mlps: [1] });
    expect(problems).toHaveLength(5);
    expect(problems[0]).toMatch(/tool="magic" is not one of detect, ablate, lens, attribute, patch/);
    expect(problems.at(-1)).toMatch(/"colour" is not a setting of this view/);
  });

  it('toggles heads in layer, head order; links a head to the Explore page', () => {
    let list = toggleHead([], { layer: 1, head: 0 });
    list = toggleHead(list, { layer: 0, head: 1 });
    expect(list).toEqual([
      { layer: 0, head: 1 },
      { layer: 1, head: 0 },
    ]);
    expect(toggleHead(list, { layer: 1, head: 0 })).toEqual([{ layer: 0, head: 1 }]);
    expect(exploreHeadHash('induction', '8 0', { layer: 1, head: 0 })).toBe(
      '#model=induction&text=8+0&view=head&layer=1&head=0',
    );
  });
});

const detect: DetectResult = {
  tool: 'detect',
  tokens: ['a', 'b'],
  layers: 2,
  heads: 2,
  scores: { previous: [0.5, 0.6, 0.1, 0.1], duplicate: [0, 0, 0.2, 0], induction: [0.06, 0.05, 0.59, 0.34] },
  detector: { seed: 1, length: 7, batch: 16 },
  labels: [
    { name: 'previous token', score: 0.9 },
    { name: 'previous token', score: 0.8 },
    { name: 'induction', score: 0.7 },
    { name: 'broad', score: 0.6 },
  ],
};

describe('a trained model\u2019s patching pair', () => {
  it('changes the token after the earlier copy of the last one (an induction model\u2019s answer), else the first', () => {
    const induction = '8 0 9 3 2 1 7 6 8 0 9 3 2 1 7'.split(' ');
    const pair = patchPair(induction)!;
    expect(pair.clean).toEqual(induction);
    expect(pair.corrupted.join(' ')).toBe('8 0 9 3 2 1 7 8 8 0 9 3 2 1 7');
    expect(patchPair(['a', 'b', 'c'])!.corrupted).toEqual(['b', 'b', 'c']);
    expect(patchPair(['a', 'a'])).toBeNull();
  });
});

describe('the heads view\u2019s figures', () => {
  it('sorts the detector grid by a score, highest first; finds the best head', () => {
    expect(detectorRows(detect, 'layer').map((r) => `${r.layer}.${r.head}`)).toEqual(['0.0', '0.1', '1.0', '1.1']);
    expect(detectorRows(detect, 'induction').map((r) => `${r.layer}.${r.head}`)).toEqual(['1.0', '1.1', '0.0', '0.1']);
    expect(detectorRows(detect, 'previous')[0]).toMatchObject({ layer: 0, head: 1, label: 'previous token' });
    expect(bestHead(detect, 'induction')).toEqual({ layer: 1, head: 0, score: 0.59 });
    const lines = detectorCsv(detect).trim().split('\n');
    expect(lines[0]).toBe(
      '"layer","head","previous_score","duplicate_score","induction_score","pattern_label","pattern_score"',
    );
    expect(lines[3]).toBe('1,0,0.1,0.2,0.59,"induction",0.7');
  });

  it('lays the attribution out in stream order; its bars sum to the logit; the CSV holds them', () => {
    const result: AttributeResult = {
      tool: 'attribute',
      tokens: [],
      layers: 2,
      heads: 2,
      target: { id: 6, token: '6', probability: 0.9 },
      against: { id: 2, token: 'x"y', probability: 0.01 },
      candidates: [],
      headParts: [0.5, -0.25, 4, 0.125],
      mlpParts: [1, 2],
      embed: 0.25,
      biases: -0.5,
      logit: 7.125,
    };
    const bars = attributionBars(result);
    expect(bars.map((b) => b.label)).toEqual(['embed', 'L0H0', 'L0H1', 'L0 MLP', 'L1H0', 'L1H1', 'L1 MLP', 'biases']);
    expect(bars.reduce((s, b) => s + b.value, 0)).toBeCloseTo(result.logit, 10);
    const lines = attributionCsv(result).trim().split('\n');
    expect(lines).toHaveLength(9);
    expect(lines[5]).toBe('"head",1,0,4,"6","x""y"');
    expect(logitName(result.target, result.against)).toBe('logit(\u20186\u2019) - logit(\u2018x"y\u2019)');
  });

  it('says what an ablation changed', () => {
    const pick = (id: number, token: string, probability: number) => ({ id, token, probability });
    const result: AblateResult = {
      tool: 'ablate',
      tokens: [],
      layers: 1,
      heads: 1,
      target: pick(6, '6', 0.97),
      against: null,
      before: { top: [pick(6, '6', 0.97)], probability: 0.97, logit: 9 },
      after: { top: [pick(8, '8', 0.5)], probability: 0.1, logit: 3.5 },
    };
    expect(ablationChange(result)).toEqual({
      probability: [0.97, 0.1],
      logit: [9, 3.5],
      logitChange: -5.5,
      topChanged: true,
    });
  });

  it('measures patching agreement: identical maps agree fully, an opposite one correlates at -1', () => {
    const exact = [0, 0.1, 0.9, 0.05, -0.2, 0.3];
    expect(patchAgreement(exact, exact, 3)).toEqual({
      correlation: 1,
      sameSign: 1,
      largestGap: 0,
      topShared: 3,
      top: 3,
    });
    const opposite = patchAgreement(
      exact,
      exact.map((v) => -v),
      3,
    );
    expect(opposite.correlation).toBeCloseTo(-1, 10);
    expect(opposite.sameSign).toBeCloseTo(1 / 6, 10); // only the 0 cell
    expect(opposite.largestGap).toBeCloseTo(1.8, 10);
    const scaled = patchAgreement(
      exact,
      exact.map((v) => 0.5 * v + 0.01),
      2,
    );
    expect(scaled.correlation).toBeCloseTo(1, 10);
    expect(scaled.topShared).toBe(2);
    expect(Number.isNaN(patchAgreement([1, 1], [0, 2]).correlation)).toBe(true);
  });

  it('writes the lens and patching numbers to CSV, one row per cell', () => {
    const lens: LensResult = {
      tool: 'lens',
      tokens: ['a', 'b'],
      layers: 2,
      heads: 1,
      topK: 1,
      top: ['x', 'y', 'z', 'w'],
      probs: [0.1, 0.2, 0.3, 0.4],
      prediction: ['z', 'w'],
      predictionProbs: [0.05, 0.06, 0.3, 0.4],
    };
    const lensLines = lensCsv(lens).trim().split('\n');
    expect(lensLines).toHaveLength(5);
    expect(lensLines[2]).toBe('0,1,"b",1,"y",0.2,"w",0.06');
    const patch: PatchResult = {
      tool: 'patch',
      tokens: ['a', 'b'],
      layers: 2,
      heads: 3,
      cleanTokens: ['a', 'b'],
      corruptedTokens: ['a', 'c'],
      good: { id: 1, token: 'b', probability: 0.5 },
      bad: { id: 2, token: 'c', probability: 0.5 },
      difference: { clean: 2, corrupted: -1 },
      maps: {
        resid: {
          cols: 2,
          exact: [1, 0, 0.5, 0.5],
          estimate: [0.9, 0.1, 0.4, 0.6],
          milliseconds: { exact: 1, estimate: 1 },
        },
        heads: {
          cols: 3,
          exact: [0, 0, 0, 0.25, 0.5, 0],
          estimate: [0, 0, 0, 0.2, 0.7, 0],
          milliseconds: { exact: 1, estimate: 1 },
        },
      },
    };
    const patchLines = patchCsv(patch).trim().split('\n');
    expect(patchLines).toHaveLength(1 + 4 + 6);
    expect(patchLines[0]).toBe(
      '"patched","layer","position","clean_token","head","exact_recovered","attribution_estimate"',
    );
    expect(patchLines[4]).toBe('"resid",1,1,"b","",0.5,0.6');
    expect(patchLines[9]).toBe('"heads",1,"","",1,0.5,0.7');
    expect(headsFileName('lens', 'pretrained:gpt2 small', 'csv')).toBe('heads-lens-pretrained-gpt2-small.csv');
  });
});

describe('the mean ablation\u2019s reference batch', () => {
  it('is the same for the same vocabulary, length and seed, in range, and differs with the seed', () => {
    const a = meanReference(10, 7),
      b = meanReference(10, 7);
    expect(a).toHaveLength(16);
    expect(a.map((s) => Array.from(s))).toEqual(b.map((s) => Array.from(s)));
    for (const s of a) {
      expect(s).toHaveLength(7);
      for (const id of s) expect(id >= 0 && id < 10).toBe(true);
    }
    // every id of a small vocabulary turns up (the draws are spread)
    expect(new Set(a.flatMap((s) => Array.from(s))).size).toBe(10);
    expect(Array.from(meanReference(10, 7, 16, 2)[0])).not.toEqual(Array.from(a[0]));
    expect(() => meanReference(0, 7)).toThrow(RangeError);
  });
});
