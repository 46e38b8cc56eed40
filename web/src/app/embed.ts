// The iframe page: the same settings as the playground, from the URL's query string
// (?text=...&view=masks&controls=none), and its height posted to the parent page
// whenever it changes: { type: 'attention-playground:height', height } so the parent
// can size the iframe. Train mode, as the element's attributes: ?checkpoint=sort shows a
// trained checkpoint, ?train&task=reverse&steps=200[&autostart] trains live.
import type { Playground } from '../playground/playground.js';
import { setDefaultEngine } from '../playground/playground.js';
import type { TrainView } from '../train/train-view.js';
import '../train/train-view.js';
import '../pretrained/pretrained-loader.js';
import { setCheckpointBase } from '../model/checkpoint.js';
import { pageEngineClient } from '../workers/page-client.js';
import { startTrainingWorker } from '../workers/train-client.js';
import { setTrainingRunner } from '../workers/train-run.js';
import { stateFromHash } from '../settings/settings.js';
import { trainStateFromHash } from '../settings/train-settings.js';

setDefaultEngine(pageEngineClient);
setTrainingRunner(startTrainingWorker);
setCheckpointBase(new URL('checkpoints/', location.href));

const params = new URLSearchParams(location.search);
const controls = params.get('controls');
const checkpoint = params.get('checkpoint');
const compareText = params.get('compare-text') ?? '';
const autostart = params.has('autostart');
const trainMode = params.has('train');
for (const own of ['controls', 'compare-text', 'checkpoint', 'train', 'autostart']) params.delete(own);
const playground = document.querySelector('ap-playground') as Playground;
const problems: string[] = [];
if (checkpoint !== null || trainMode) {
  const train = document.createElement('ap-train') as TrainView;
  const parsed = trainStateFromHash(`#train&${params.toString()}`);
  problems.push(...parsed.problems);
  Object.assign(train, {
    state: parsed.state,
    controls: controls ?? 'buttons',
    checkpoint: checkpoint ?? '',
    autostart,
  });
  playground.replaceWith(train);
} else {
  playground.controls = controls ?? 'text,views';
  playground.compareText = compareText;
  const parsed = stateFromHash(params.toString());
  problems.push(...parsed.problems);
  playground.state = parsed.state;
}
// Parameters the page could not use are said, not silently dropped.
if (problems.length) {
  const note = document.createElement('p');
  note.setAttribute('role', 'alert');
  note.style.cssText = 'color: #b00020; font: 0.85rem system-ui, sans-serif; margin: 0 0 0.4rem;';
  note.textContent = `Ignored in the link: ${problems.join('; ')}`;
  document.body.prepend(note);
}

let reported = -1;
new ResizeObserver(() => {
  const height = Math.ceil(document.documentElement.scrollHeight);
  if (height === reported || window.parent === window) return;
  reported = height;
  window.parent.postMessage({ type: 'attention-playground:height', height, src: location.href }, '*');
}).observe(document.body);
