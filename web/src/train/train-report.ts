// What the Train view says about its runs: each run's progress line, the comparison's
// summary (who reached the target, when, the final losses) and the two plots (loss on a
// log scale, accuracy), compared runs overlaid with their own line style.
import { html, nothing } from 'lit';
import type { CurvesSpec, Dash, Series } from '../ui/curves.js';
import '../ui/curves.js';
import type { TrainRun } from '../workers/train-run.js';
import { barelyDiffer, type CurvePoint } from '../model/training-data.js';
import { fixed } from '../model/words.js';

const COLORS = { train: '#1a73e8', heldOut: '#e8175d', sequence: '#2e7d32' };
/** Each compared run's line style (the colours tell the curves apart). */
const DASHES: Dash[] = ['solid', 'dashed', 'dotted', 'dashdot', 'long'];

/** name: the run's name when comparing ('' for a single run); steps: the run's length. */
export function progressLine(run: TrainRun, name: string, steps: number): string {
  const last = run.lastHeldOut;
  const parts = [`${name ? `${name}: ` : ''}step ${run.step} of ${steps}`];
  if (run.rate > 0) parts.push(`${fixed(run.rate, 0)} steps/s`);
  if (run.trainingMs > 0) parts.push(`${fixed(run.trainingMs / 1000, 1)} s training`); // none for a shown checkpoint
  if (run.rate > 0 && run.status === 'running')
    parts.push(`at most ${fixed(Math.max(0, steps - run.step) / run.rate, 0)} s left`);
  if (last)
    parts.push(`held-out: loss ${fixed(last.loss, 3)}, sequences right ${fixed(100 * last.sequenceAccuracy, 1)}%`);
  return parts.join(' · ');
}

/**
 * Comparing: which run reached the target accuracy (stopAt %, or 99% when 0), when, and the final losses. Nothing
 * before the runs have trained (or shown a checkpoint): "has not reached" would read as a result.
 */
export function comparisonSummary(runs: readonly TrainRun[], name: (i: number) => string, stopAt: number) {
  if (runs.every((run) => run.step === 0 && !run.checkpoint)) return nothing;
  const goal = stopAt > 0 ? stopAt / 100 : 0.99;
  const lines = runs.map((run, i) => {
    const reached = run.reached(goal);
    const last = run.lastHeldOut;
    const loss = last ? `held-out loss ${fixed(last.loss, 3)} at step ${last.step}` : 'not evaluated yet';
    return reached
      ? `${name(i)} reached ${fixed(100 * goal, 0)}% of held-out sequences right at step ${reached.step}; ${loss}.`
      : `${name(i)} has not reached ${fixed(100 * goal, 0)}% (best ${fixed(100 * Math.max(0, ...run.heldOut.map((p) => p.sequenceAccuracy)), 1)}%); ${loss}.`;
  });
  // Stop at 0 trains every run to its last step; the summary still needs a yardstick, and says which.
  if (stopAt <= 0) lines.push('(Stop at accuracy is 0, so the runs do not stop early; 99% is the yardstick here.)');
  const barely = barelyDiffer(runs, goal);
  return html`<p class="summary" data-testid="summary" data-verdict=${barely ? 'barely' : 'differ'}>${lines.join(' ')}${
    barely ? html` <strong>${barely}</strong>` : nothing
  }</p>`;
}

/** The Train view's two plots, 'loss' and 'accuracy', of every run; names: the runs' letters, shown when comparing. */
export function plotSpecs(
  runs: readonly TrainRun[],
  names: readonly string[],
  steps: number,
  cursor: number | null = null,
): { plot: string; spec: CurvesSpec }[] {
  const xy = (points: CurvePoint[], key: keyof CurvePoint) => points.map((p) => ({ x: p.step, y: p[key] }));
  const tag = (i: number, label: string) => (runs.length > 1 ? `${names[i]}: ${label}` : label);
  const loss: Series[] = runs.flatMap((run, i) => [
    { label: tag(i, 'training loss'), color: COLORS.train, points: xy(run.train, 'loss'), dash: DASHES[i] },
    { label: tag(i, 'held-out loss'), color: COLORS.heldOut, points: xy(run.heldOut, 'loss'), dash: DASHES[i] },
  ]);
  const accuracy: Series[] = runs.flatMap((run, i) => [
    ...(runs.length > 1
      ? []
      : [{ label: 'training tokens right', color: COLORS.train, points: xy(run.train, 'accuracy') }]),
    {
      label: tag(i, 'held-out tokens right'),
      color: COLORS.heldOut,
      points: xy(run.heldOut, 'accuracy'),
      dash: DASHES[i],
    },
    {
      label: tag(i, 'held-out sequences right'),
      color: COLORS.sequence,
      points: xy(run.heldOut, 'sequenceAccuracy'),
      dash: DASHES[i],
    },
  ]);
  return [
    {
      plot: 'loss',
      spec: { series: loss, log: true, yLabel: 'cross-entropy loss', xLabel: 'step', xMax: steps, cursor },
    },
    {
      plot: 'accuracy',
      spec: { series: accuracy, log: false, yLabel: 'accuracy', xLabel: 'step', yDomain: [0, 1], xMax: steps, cursor },
    },
  ];
}

/** The plots on the page (their exports draw the same specs: train-export.ts); cursor: the step the timeline shows. */
export function trainPlots(runs: readonly TrainRun[], names: readonly string[], steps: number, cursor: number | null) {
  return html`<div class="plots">${plotSpecs(runs, names, steps, cursor).map(
    ({ plot, spec }) => html`
    <ap-curves data-plot=${plot} .series=${spec.series} ?log=${spec.log} .yDomain=${spec.yDomain} y-label=${spec.yLabel}
      x-label=${spec.xLabel} x-max=${spec.xMax} .cursor=${cursor}></ap-curves>`,
  )}
  </div>`;
}
