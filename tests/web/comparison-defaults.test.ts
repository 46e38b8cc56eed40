// Each comparison of the Train view opens on settings where its effect shows: real runs of
// the comparison's opening settings (seeded, so these are the numbers a person sees),
// trained to their limits. And the summary says plainly when runs barely differ (on the
// view's default two-layer sort, residual connections on or off reach 99% at the same step).
import { describe, expect, it } from 'vitest';
import { loadAttention } from '../../dist/node.js';
import { TrainingSession } from '../../web/src/workers/training.js';
import { barelyDiffer, type CurvePoint } from '../../web/src/model/training-data.js';
import {
  DEFAULT_TRAIN_STATE,
  comparisonOpening,
  runLabel,
  runLimits,
  runStates,
  trainSettingByName,
  trainerOptions,
  type TrainState,
} from '../../web/src/settings/train-settings.js';

const GOAL = 0.99;

/** Every run of a comparison trained to its limits: each run's label and held-out curve. */
async function trainAll(state: TrainState): Promise<{ label: string; heldOut: CurvePoint[] }[]> {
  const engine = await loadAttention({ build: 'simd' });
  return runStates(state).map((run, i) => {
    const session = new TrainingSession(engine);
    const limits = runLimits(run);
    const created = session.create(trainerOptions(run), limits);
    if (!created.ok) throw new Error(created.error.message);
    const heldOut = [...created.progress.heldOut];
    let progress = created.progress;
    while (progress.status !== 'done' && progress.status !== 'diverged') {
      progress = session.advance(limits.evalEvery);
      heldOut.push(...progress.heldOut);
    }
    session.dispose();
    return { label: runLabel(state, i), heldOut };
  });
}

const opened = (compare: string): TrainState => ({
  ...DEFAULT_TRAIN_STATE,
  ...comparisonOpening(compare),
  compare,
});
const reachedAt = (heldOut: CurvePoint[]) => heldOut.find((p) => p.sequenceAccuracy >= GOAL)?.step ?? null;

// The comparisons whose lesson is a difference (attnActivation's is that there is none: below; the modern
// block's have lessons of their own, other than reaching 99% first: comparison-modern.test.ts).
const MODERN = ['lengthPositions', 'kvHeads', 'window', 'normType', 'swiglu'];
const compareSetting = trainSettingByName('compare')!;
const compared = (compareSetting.type === 'choice' ? compareSetting.choices : []).filter(
  (c) => c !== 'none' && c !== 'attnActivation' && !MODERN.includes(c),
);

describe('each comparison opens where its effect shows', () => {
  it('lists its comparisons', () => {
    expect(compared).toEqual(['residual', 'scale', 'scale64', 'norm', 'layerNorm', 'positions']);
  });

  // scale and scale64 open on the same runs: trained once.
  const runsOf = (c: string) => JSON.stringify(runStates(opened(c)).map(({ compare: _, ...run }) => run));
  const distinct = compared.filter((c, i) => compared.findIndex((d) => runsOf(d) === runsOf(c)) === i);

  it.each(distinct)(
    '%s: run A reaches 99% of held-out sequences, the other run at least twice as late or never',
    async (compare) => {
      const runs = await trainAll(opened(compare));
      const [a, ...others] = runs.map((r) => reachedAt(r.heldOut));
      const said = runs.map((r, i) => `${r.label}: ${[a, ...others][i] ?? 'never'}`).join(', ');
      expect(a, said).not.toBeNull();
      for (const other of others) if (other !== null) expect(other, said).toBeGreaterThanOrEqual(2 * a!);
      expect(barelyDiffer(runs, GOAL), said).toBe('');
    },
    120_000,
  );

  it('attention activation: none / ReLU / GELU barely differ, and the summary says so', async () => {
    expect(comparisonOpening('attnActivation')).toEqual({});
    const runs = await trainAll(opened('attnActivation'));
    expect(runs.map((r) => reachedAt(r.heldOut))).not.toContain(null);
    expect(barelyDiffer(runs, GOAL)).toMatch(/^The runs barely differ/);
  }, 120_000);

  it('on the view’s default two-layer sort, residual on / off barely differ: the reason the comparison opens elsewhere', async () => {
    const runs = await trainAll({ ...DEFAULT_TRAIN_STATE, compare: 'residual' });
    expect(barelyDiffer(runs, GOAL)).toMatch(
      /^The runs barely differ \(held-out sequences right within 0\.0 points of each other\): on these settings/,
    );
    expect(comparisonOpening('residual')).toMatchObject({ task: 'reverse', layers: 4 });
  }, 120_000);
});
