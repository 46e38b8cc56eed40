// The Train view's exports: the curves as CSV or JSON (every run's training and held-out
// points), and the plots as SVG or PNG figures with a title, the settings and a legend.
import type { TrainRun } from '../workers/train-run.js';
import type { TrainState } from '../settings/train-settings.js';
import { exportPng, exportSvg, exportText } from '../ui/export.js';
import { composeFigure } from '../ui/export-figure.js';
import { dashArray } from '../ui/curves.js';
import { trainSummary, valueLabel } from './train-controls.js';

/** Every run's points, one row each: run (its letter), set (train / heldOut), step, loss, accuracy, sequenceAccuracy. */
export function exportCurves(runs: readonly TrainRun[], names: readonly string[], state: TrainState, format: 'csv' | 'json') {
  const rows = runs.flatMap((run, i) => [
    ...run.train.map((p) => ({ run: names[i], set: 'train', ...p })), ...run.heldOut.map((p) => ({ run: names[i], set: 'heldOut', ...p }))]);
  if (format === 'json') exportText(JSON.stringify({ settings: state, curves: rows }, null, 1), 'application/json', 'curves.json');
  else exportText(['run,set,step,loss,accuracy,sequenceAccuracy',
    ...rows.map((r) => `${r.run},${r.set},${r.step},${r.loss},${r.accuracy},${r.sequenceAccuracy}`)].join('\n'), 'text/csv', 'curves.csv');
}

/** Both plots (loss, accuracy) found under `root`, each as its own file. */
export function exportPlots(root: ParentNode, state: TrainState, format: 'svg' | 'png') {
  for (const plot of root.querySelectorAll<HTMLElementTagNameMap['ap-curves']>('ap-curves')) {
    const svg = plot.svgElement();
    if (!svg) continue;
    const figure = composeFigure({
      heading: `${valueLabel(state, 'task')}: ${plot.yLabel} by step`,
      texts: [{ label: 'Settings:', text: trainSummary(state) }],
      legend: { swatches: plot.series.map((s) => ({ label: s.label, color: s.color, shape: 'line', dash: dashArray(s.dash) })) },
      panels: [{ svg, caption: '', data: { plot: plot.dataset.plot ?? '' } }],
    });
    const name = `${state.task}-${plot.dataset.plot}.${format}`;
    if (format === 'svg') exportSvg(figure, name);
    else void exportPng(figure, name);
  }
}
