// Trains the shipped checkpoints (scripts/train-checkpoints.mjs runs this in Node, and a
// test retrains them to check the shipped files are what these settings give). A run is
// cut at fixed steps (TrainingSession.advance), never at wall-time slices, so the same
// plan gives the same files on any machine.
import type { AttentionEngine } from 'attention-playground';
import { runLimits, trainStateFromHash, trainerOptions } from '../settings/train-settings.js';
import {
  CHECKPOINT_FORMAT,
  packCurve,
  packProbe,
  type CheckpointIndex,
  type CheckpointRecord,
} from '../model/checkpoint.js';
import type { CurvePoint, Probe } from '../model/training-data.js';
import type { CheckpointPlan } from '../model/checkpoint-plans.js';
import { TrainingSession } from './training.js';

// The plans are data that the Train view and the element read too (a checkpoint that cannot be fetched still
// opens on its task and settings): they live in model/.
export { CHECKPOINT_PLANS, type CheckpointPlan } from '../model/checkpoint-plans.js';

/** Probe snapshots a timeline keeps (evenly spaced over the run; the first and the last always). */
const SNAPSHOTS = 24;
/** Training-curve points kept (the held-out curve keeps every evaluation). */
const TRAIN_POINTS = 240;

function thin<T>(items: T[], most: number): T[] {
  if (items.length <= most) return items;
  const kept = new Set(Array.from({ length: most }, (_, i) => Math.round((i * (items.length - 1)) / (most - 1))));
  return items.filter((_, i) => kept.has(i));
}

/** Trains one plan to its limits: the record (curves, snapshots) and the weights. */
export function buildCheckpoint(
  engine: AttentionEngine,
  plan: CheckpointPlan,
): { record: CheckpointRecord; weights: Uint8Array } {
  const { state, problems } = trainStateFromHash(`#train&${plan.settings}`);
  if (problems.length) throw new Error(`checkpoint '${plan.id}': ${problems.join('; ')}`);
  const limits = runLimits(state);
  const session = new TrainingSession(engine);
  const created = session.create(trainerOptions(state), limits);
  if (!created.ok) throw new Error(`checkpoint '${plan.id}': ${created.error.message}`);
  const train: CurvePoint[] = [...created.progress.train];
  const heldOut: CurvePoint[] = [...created.progress.heldOut];
  const snapshots: { step: number; probe: Probe }[] = [{ step: 0, probe: created.progress.probe }];
  let last = created.progress;
  while (last.status !== 'done' && last.status !== 'diverged') {
    last = session.advance(limits.evalEvery);
    train.push(...last.train);
    heldOut.push(...last.heldOut);
    snapshots.push({ step: last.step, probe: last.probe });
  }
  if (last.status === 'diverged') throw new Error(`checkpoint '${plan.id}' diverged: ${last.message}`);
  const weights = session.saveWeights();
  session.dispose();
  const record: CheckpointRecord = {
    format: CHECKPOINT_FORMAT,
    id: plan.id,
    title: plan.title,
    description: plan.description,
    settings: plan.settings,
    step: last.step,
    message: last.message,
    train: packCurve(thin(train, TRAIN_POINTS)),
    heldOut: packCurve(heldOut),
    timeline: thin(snapshots, SNAPSHOTS).map((s) => ({ step: s.step, probe: packProbe(s.probe) })),
  };
  return { record, weights };
}

export function checkpointIndexOf(plans: readonly CheckpointPlan[]): CheckpointIndex {
  return { format: CHECKPOINT_FORMAT, checkpoints: plans.map(({ id, title, settings }) => ({ id, title, settings })) };
}
