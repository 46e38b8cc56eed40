// The Train view's exports: the curves as CSV or JSON (every run's training and held-out
// points), and the plots as SVG or PNG figures with a title, the settings and a legend,
// each plot drawn from the runs' points as on the page (train-report.ts plotSpecs), not
// copied off the screen.
import type { TrainRun } from '../workers/train-run.js';
import type { TrainState } from '../settings/train-settings.js';
import { exportPng, exportSvg, exportText } from '../ui/export.js';
import { composeFigure } from '../ui/export-figure.js';
import { curvesPicture, dashArray } from '../ui/curves.js';
import { trainSummary, valueLabel } from './train-controls.js';
import { plotSpecs } from './train-report.js';

/** Every run's points, one row each: run (its letter), set (train / heldOut), step, loss, accuracy, sequenceAccuracy. */
export function exportCurves(
  runs: readonly TrainRun[],
  names: readonly string[],
  state: TrainState,
  format: 'csv' | 'json',
) {
  const rows = runs.flatMap((run, i) => [
    ...run.train.map((p) => ({ run: names[i], set: 'train', ...p })),
    ...run.heldOut.map((p) => ({ run: names[i], set: 'heldOut', ...p })),
  ]);
  if (format === 'json')
    exportText(JSON.stringify({ settings: state, curves: rows }, null, 1), 'application/json', 'curves.json');
  else
    exportText(
      [
        'run,set,step,loss,accuracy,sequenceAccuracy',
        ...rows.map((r) => `${r.run},${r.set},${r.step},${r.loss},${r.accuracy},${r.sequenceAccuracy}`),
      ].join('\n'),
      'text/csv',
      'curves.csv',
    );
}

/** Both plots (loss, accuracy) of the runs, each as its own file; cursor: the step marked on the page, if any. */
export function exportPlots(
  runs: readonly TrainRun[],
  names: readonly string[],
  state: TrainState,
  format: 'svg' | 'png',
  cursor: number | null = null,
) {
  for (const { plot, spec } of plotSpecs(runs, names, state.steps as number, cursor)) {
    const figure = composeFigure({
      heading: `${valueLabel(state, 'task')}: ${spec.yLabel} by step`,
      texts: [{ label: 'Settings:', text: trainSummary(state) }],
      legend: {
        swatches: spec.series.map((s) => ({ label: s.label, color: s.color, shape: 'line', dash: dashArray(s.dash) })),
      },
      panels: [{ svg: curvesPicture(spec), caption: '', data: { plot } }],
    });
    const name = `${state.task}-${plot}.${format}`;
    if (format === 'svg') exportSvg(figure, name);
    else void exportPng(figure, name);
  }
}
