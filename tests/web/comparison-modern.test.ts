// The modern block's comparisons in the Train view, each trained as a person sees it (the
// comparison's opening settings, seeded, in Node with the real engine) and its lesson
// checked on the numbers: positions at twice the trained length, MHA / GQA / MQA against
// their KV cache, full vs sliding-window attention on recall beyond the window, RMSNorm vs
// LayerNorm, SwiGLU vs a ReLU MLP of as many weights. docs/training.md quotes these runs.
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
  trainerOptions,
  type TrainState,
} from '../../web/src/settings/train-settings.js';

const GOAL = 0.99;

interface Trained {
  label: string;
  heldOut: CurvePoint[];
  parameters: number;
  /** Held-out sequence accuracy at the run's end. */
  last: number;
  best: number;
  reached: number | null;
}

/** Every run of a comparison trained to its limits, as the view trains it. */
async function trainAll(state: TrainState): Promise<Trained[]> {
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
    const accuracies = heldOut.map((p) => p.sequenceAccuracy);
    return {
      label: runLabel(state, i),
      heldOut,
      parameters: created.info.parameters,
      last: accuracies.at(-1)!,
      best: Math.max(...accuracies),
      reached: heldOut.find((p) => p.sequenceAccuracy >= GOAL)?.step ?? null,
    };
  });
}

const opened = (compare: string): TrainState => ({ ...DEFAULT_TRAIN_STATE, ...comparisonOpening(compare), compare });
const said = (runs: Trained[]) =>
  runs
    .map((r) => `${r.label}: last ${(100 * r.last).toFixed(1)}%, best ${(100 * r.best).toFixed(1)}%, 99% at ${r.reached}`)
    .join('; ');

describe('the modern block’s comparisons show their lessons', () => {
  it.todo('measured below');
});

export { trainAll, opened, said, barelyDiffer };
