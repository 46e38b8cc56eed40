// What a training run measures, as plain data (it crosses the worker boundary, and shipped
// checkpoints store it): the points of its curves, and the probe (the model on one held-out
// example: every head's attention and the model's predictions). The runs themselves are
// workers/training.ts's.
import { fixed } from './words.js';

export interface CurvePoint {
  step: number;
  loss: number;
  accuracy: number;
  sequenceAccuracy: number;
}

/** A head by its layer and its index in that layer. */
export interface HeadRef {
  layer: number;
  head: number;
}

/** The model with some heads switched off, next to the same model with all of them on. */
export interface Ablation {
  step: number;
  heads: HeadRef[];
  baseline: CurvePoint;
  ablated: CurvePoint;
  probe: Probe;
}

/** One head's attention on the probe: weights (Sq, Sk) of `layer`, `head`. */
export interface ProbeHead {
  layer: number;
  head: number;
  weights: Float32Array;
}

/** The model on one held-out example: what it attends to and what it predicts. */
export interface Probe {
  /** (S) token texts of the example. */
  tokens: string[];
  /** (S) the right next token where scored, else null. */
  expected: (string | null)[];
  /** (S) the model's most likely next token and its probability. */
  predicted: string[];
  confidence: number[];
  seq: number;
  heads: ProbeHead[];
  /** Your own input: how many leading tokens you typed (the rest the model wrote). */
  typed?: number;
}

/**
 * The Train view's run button, by what it would do: train a shown (shipped) model here from step 0, start, resume,
 * or nothing more (finished). Text that tells people to press it says these words.
 */
export const RUN_BUTTON = {
  train: 'Train it yourself',
  start: 'Start',
  resume: 'Resume',
  finished: 'Finished',
} as const;

/** Runs within this many points of held-out sequence accuracy at their last evaluation are "about as good". */
const SAME_ACCURACY = 0.02;
/** Runs reaching the target within this share of the later one's step reached it "at about the same time". */
const SAME_TIME = 0.15;

/**
 * Said plainly when the compared runs barely differ (the same accuracy at the end, within SAME_ACCURACY, and the
 * target reached by all or none, within SAME_TIME of each other), so that noise is not read as an effect; else ''.
 */
export function barelyDiffer(runs: readonly { heldOut: readonly CurvePoint[] }[], goal: number): string {
  const last = runs.map((run) => run.heldOut.at(-1));
  if (runs.length < 2 || last.some((p) => !p)) return '';
  const accuracies = last.map((p) => p!.sequenceAccuracy);
  const spread = Math.max(...accuracies) - Math.min(...accuracies);
  if (spread > SAME_ACCURACY) return '';
  const reached = runs.map((run) => run.heldOut.find((p) => p.sequenceAccuracy >= goal)?.step ?? null);
  if (reached.some((s) => s === null) && reached.some((s) => s !== null)) return '';
  if (reached.every((s) => s !== null)) {
    const steps = reached as number[];
    if (Math.max(...steps) - Math.min(...steps) > SAME_TIME * Math.max(...steps)) return '';
  }
  return (
    `The runs barely differ (held-out sequences right within ${fixed(100 * spread, 1)} points of each other): ` +
    'on these settings the compared setting makes no clear difference.'
  );
}
