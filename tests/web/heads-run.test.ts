// The "What heads do" view's worker tools (workers/heads-run.ts through engine/api.ts, in Node)
// on the shipped checkpoints: the induction detector finds the induction model's head 1.0,
// ablating it breaks the prediction the lens and the attribution credit to it, the ranking puts
// it first, bad input comes back as an error at its box, and a cancelled ranking says so.
import { readFileSync, readdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadAttention, type AttentionEngine } from '../../dist/node.js';
import { engineApi } from '../../web/src/workers/api.js';
import { headsApi } from '../../web/src/workers/heads-run.js';
import { TrainedModels } from '../../web/src/workers/trained-trace.js';
import { meanReference } from '../../web/src/model/mean-reference.js';
import type { CheckpointRecord } from '../../web/src/model/checkpoint.js';
import type { HeadsModelRef, HeadsOutcome, HeadsResult } from '../../web/src/model/heads-results.js';

const folder = new URL('../../web/public/checkpoints/', import.meta.url);
function checkpoint(id: string): HeadsModelRef {
  const record = JSON.parse(readFileSync(new URL(`${id}.json`, folder), 'utf8')) as CheckpointRecord;
  const weights = new Uint8Array(readFileSync(new URL(`${id}.safetensors`, folder)));
  return { trained: { key: `checkpoint:${id}`, settings: record.settings, weights } };
}
const induction = checkpoint('induction');
/** The induction model's probe: 8 random symbols, then the same 8 again; at position 14 it predicts '6'. */
const REPEAT = '8 0 9 3 2 1 7 6 8 0 9 3 2 1 7';

let engine: AttentionEngine;
let api: ReturnType<typeof engineApi<ReturnType<typeof headsApi>>>;
beforeAll(async () => {
  engine = await loadAttention();
  api = engineApi(() => Promise.resolve(engine), headsApi);
});

function resultOf<T extends HeadsResult['tool']>(outcome: HeadsOutcome, tool: T): Extract<HeadsResult, { tool: T }> {
  if (!outcome.ok) throw new Error(outcome.error);
  expect(outcome.result.tool).toBe(tool);
  return outcome.result as Extract<HeadsResult, { tool: T }>;
}

const progress = () => {};

describe('the heads view on a pretrained BERT (a masked-language model)', () => {
  it('reads the prediction at the last [MASK], the one the Explore page shows there', async () => {
    const dir = new URL('../reference/fixtures/pretrained/bert-tiny/', import.meta.url);
    const files = readdirSync(dir)
      .filter((f) => f !== 'expected.json')
      .map((f) => new File([readFileSync(new URL(f, dir))], f));
    const loaded = await api.loadPretrained({ files }, () => {});
    if (!loaded.ok) throw new Error(loaded.error);
    const text = 'The cat [MASK] on the mat.';
    const explored = await api.run({ pretrained: { key: loaded.model.key }, text });
    if (!explored.ok) throw new Error(explored.error);
    const [mask] = explored.predictions!;
    expect(mask.kind).toBe('mask');
    const model: HeadsModelRef = { pretrained: { key: loaded.model.key } };
    const r = resultOf(
      await api.heads(
        {
          tool: 'ablate',
          model,
          text,
          heads: [{ layer: 0, head: 0 }],
          mlps: [],
          ablation: 'zero',
          token: null,
          against: null,
        },
        progress,
      ),
      'ablate',
    );
    expect(r.target.id).toBe(mask.candidates[0].id);
    expect(r.before.probability).toBeCloseTo(mask.candidates[0].probability, 5);
    expect(r.before.top.map((c) => c.id)).toEqual(mask.candidates.map((c) => c.id));
    expect(r.tokens).toEqual(explored.trace.tokens[0]);
    // Detectors run on an encoder too (its attention to later keys counts against every pattern).
    const d = resultOf(await api.heads({ tool: 'detect', model, text }, progress), 'detect');
    expect(d.scores.previous).toHaveLength(loaded.model.layers * loaded.model.heads);
  });
});

describe('the heads view on the shipped sort model', () => {
  it('labels its second layer’s head 3 a content head on a sorting example (no position pattern explains it)', async () => {
    const r = resultOf(
      await api.heads(
        { tool: 'detect', model: checkpoint('sort'), text: '2 1 9 9 7 2 0 1 | 0 1 1 2 2 7 9 9' },
        progress,
      ),
      'detect',
    );
    expect([r.layers, r.heads]).toEqual([2, 4]);
    expect(r.labels.map((l) => l.name).indexOf('content')).toBe(7);
    // no induction head: every score near the chance level of its pattern
    for (const score of r.scores.induction) expect(score).toBeLessThan(0.2);
  });
});

describe('the heads view on the shipped induction model', () => {
  it('detectors: head 1.0 is the strongest induction head, the first layer\u2019s heads previous-token heads', async () => {
    const r = resultOf(await api.heads({ tool: 'detect', model: induction, text: REPEAT }, progress), 'detect');
    expect([r.layers, r.heads]).toEqual([2, 2]);
    expect(r.detector).toEqual({ seed: 1, length: 7, batch: 16 });
    const best = r.scores.induction.indexOf(Math.max(...r.scores.induction));
    expect(best).toBe(2); // layer 1, head 0
    // docs/heads.md's numbers at these settings
    expect(r.scores.induction[2]).toBeCloseTo(0.589, 2);
    expect(r.scores.previous[0]).toBeGreaterThan(0.5);
    expect(r.scores.previous[1]).toBeGreaterThan(0.5);
    expect(r.labels).toHaveLength(4);
    expect(r.labels[2].name).toBe('induction');
    expect(r.tokens).toEqual(REPEAT.split(' '));
  });

  it('ablation: switching off head 1.0 takes the predicted token\u2019s probability down; the ranking puts it first', async () => {
    const r = resultOf(
      await api.heads(
        {
          tool: 'ablate',
          model: induction,
          text: REPEAT,
          heads: [{ layer: 1, head: 0 }],
          mlps: [],
          ablation: 'zero',
          token: null,
          against: null,
        },
        progress,
      ),
      'ablate',
    );
    expect(r.target.token).toBe('6');
    expect(r.before.top[0].token).toBe('6');
    expect(r.before.probability).toBeGreaterThan(0.9);
    expect(r.after.probability).toBeLessThan(r.before.probability - 0.3);
    expect(r.after.logit).toBeLessThan(r.before.logit);
    const ranked = resultOf(
      await api.heads(
        { tool: 'rank', model: induction, text: REPEAT, ablation: 'zero', token: null, against: null },
        progress,
      ),
      'rank',
    );
    expect(ranked.ranking.filter((e) => e.part === 'head')).toHaveLength(4);
    expect(ranked.ranking.filter((e) => e.part === 'mlp')).toHaveLength(2);
    // The circuit's two heads first (the previous-token head 0.1 that the induction head 1.0 reads), each a drop of
    // several logits; the other two heads change it by less than one (the MLPs come between or after).
    const top = ranked.ranking.slice(0, 2).map((e) => `${e.layer}.${e.head}`);
    expect(top.sort()).toEqual(['0.1', '1.0']);
    expect(ranked.ranking[1].change).toBeLessThan(-3);
    for (const e of ranked.ranking.slice(2).filter((p) => p.part === 'head'))
      expect(Math.abs(e.change)).toBeLessThan(1);
    const inductionHead = ranked.ranking.find((e) => e.layer === 1 && e.head === 0)!;
    expect(inductionHead.change).toBeCloseTo(r.after.logit - r.before.logit, 4);
  });

  it('the ranking equals the engine\u2019s model.ablationRanking, every head and MLP, zero and mean', async () => {
    const built = new TrainedModels(engine).built((induction as Extract<HeadsModelRef, { trained: unknown }>).trained);
    const { model } = built.trainer;
    const ids = Int32Array.from(REPEAT.split(' '), (t) => built.vocabulary.indexOf(t));
    for (const ablation of ['zero', 'mean'] as const) {
      const mine = resultOf(
        await api.heads(
          { tool: 'rank', model: induction, text: REPEAT, ablation, token: null, against: null },
          progress,
        ),
        'rank',
      );
      const theirs = model.ablationRanking({
        ids,
        token: mine.target.id,
        ablation,
        ...(ablation === 'mean' ? { meanOver: meanReference(model.spec.vocabSize, ids.length) } : {}),
      });
      expect(mine.logit).toBeCloseTo(theirs.logitDiff, 4);
      for (const e of mine.ranking) {
        const change =
          e.part === 'head' ? theirs.heads.logitDiffChange[e.layer * 2 + e.head] : theirs.mlps.logitDiffChange[e.layer];
        expect(e.change, `${ablation} ${e.part} ${e.layer}.${e.head}`).toBeCloseTo(change, 3);
      }
    }
  });

  it('lens and attribution: the last layer predicts \u20186\u2019, and head 1.0 writes most of its logit', async () => {
    const lens = resultOf(await api.heads({ tool: 'lens', model: induction, text: REPEAT }, progress), 'lens');
    const seq = 15;
    expect([lens.layers, lens.topK, lens.prediction.length]).toEqual([2, 3, seq]);
    expect(lens.prediction[seq - 1]).toBe('6');
    expect(lens.top[(1 * seq + seq - 1) * 3]).toBe('6'); // (L, S, K): the last layer's top token at the last position
    expect(lens.predictionProbs[seq + seq - 1]).toBeGreaterThan(lens.predictionProbs[seq - 1]);
    const a = resultOf(
      await api.heads({ tool: 'attribute', model: induction, text: REPEAT, token: null, against: null }, progress),
      'attribute',
    );
    expect(a.target.token).toBe('6');
    expect(a.headParts).toHaveLength(4);
    const sum = a.embed + a.biases + a.headParts.reduce((x, y) => x + y, 0) + a.mlpParts.reduce((x, y) => x + y, 0);
    expect(sum).toBeCloseTo(a.logit, 3);
    expect(a.headParts.indexOf(Math.max(...a.headParts))).toBe(2);
  });

  it('patching: both maps of the induction model, exact and attribution; head 1.0 recovers most of the difference', async () => {
    const corrupted = '8 0 9 3 2 1 7 8 8 0 9 3 2 1 7'; // the token after the earlier '7' changed: the copy points elsewhere
    const seen: string[] = [];
    const r = resultOf(
      await api.heads({ tool: 'patch', model: induction, clean: REPEAT, corrupted }, (p) => seen.push(p.what)),
      'patch',
    );
    expect(r.good.token).toBe('6');
    expect(r.bad.token).not.toBe('6');
    expect(r.difference.clean).toBeGreaterThan(r.difference.corrupted);
    expect([r.maps.resid.cols, r.maps.resid.exact.length, r.maps.resid.estimate.length]).toEqual([15, 30, 30]);
    expect([r.maps.heads.cols, r.maps.heads.exact.length, r.maps.heads.estimate.length]).toEqual([2, 4, 4]);
    // The induction head 1.0 carries most of the difference, exactly and by the (smaller, first-order) estimate.
    expect(r.maps.heads.exact[2]).toBeGreaterThan(0.85);
    expect(r.maps.heads.estimate[2]).toBeGreaterThan(0.5);
    expect(r.maps.heads.estimate[2]).toBeLessThan(r.maps.heads.exact[2]);
    for (const map of [r.maps.heads.exact, r.maps.heads.estimate]) expect(map.indexOf(Math.max(...map))).toBe(2);
    // The residual stream: the changed position (7) restores the clean run entering either layer; the last position
    // (the same token in both prompts) restores nothing entering layer 0.
    expect(r.maps.resid.exact[7]).toBeCloseTo(1, 3);
    expect(r.maps.resid.exact[15 + 7]).toBeCloseTo(1, 1);
    expect(Math.abs(r.maps.resid.exact[14])).toBeLessThan(1e-3);
    expect(seen).toContain('exact patching of the residual stream');
    expect(seen).toContain('attribution patching of each head');
  });

  it('bad input comes back at its box; a mean or MLP ablation this engine lacks is said so; a cancel says cancelled', async () => {
    const bad = await api.heads({ tool: 'lens', model: induction, text: '8 0 x' }, progress);
    expect(bad).toMatchObject({ ok: false, field: 'text' });
    const far = await api.heads(
      {
        tool: 'ablate',
        model: induction,
        text: REPEAT,
        heads: [{ layer: 5, head: 0 }],
        mlps: [],
        ablation: 'zero',
        token: null,
        against: null,
      },
      progress,
    );
    expect(far).toMatchObject({ ok: false, field: 'ablate' });
    const lengths = await api.heads({ tool: 'patch', model: induction, clean: '8 0 9', corrupted: '8 0' }, progress);
    expect(lengths).toMatchObject({ ok: false, field: 'corrupted' });
    expect((lengths as { error: string }).error).toMatch(/clean one is 3 tokens, the corrupted one 2/);
    const seen: number[] = [];
    const cancelled = await api.heads(
      { tool: 'rank', model: induction, text: REPEAT, ablation: 'zero', token: null, against: null },
      (p) => {
        seen.push(p.done);
        void api.cancelHeads(); // as the page's Cancel button: between two steps
      },
    );
    expect(cancelled).toMatchObject({ ok: false, code: 'aborted' });
    expect(seen).toEqual([0]);
  });
});
