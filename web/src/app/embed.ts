// The iframe page: the same settings as the playground, from the URL's query string
// (?text=...&view=masks&controls=none), and its height posted to the parent page
// whenever it changes: { type: 'attention-playground:height', height } so the parent
// can size the iframe. Train mode, as the element's attributes: ?checkpoint=sort shows a
// trained checkpoint, ?train&task=reverse&steps=200[&autostart] trains live. Generate mode,
// as the element's: ?generate&model=reverse&prompt=5+1+7+|&temperature=0.7 shows the Generate
// panel on the playground's model (the playground itself only with ?controls=...), and a
// link that reopens it in the playground page.
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
import {
  GENERATION_FIELDS,
  attributeName,
  parseGenerationState,
  type GenerationField,
} from '../model/generation-state.js';
import { playgroundLink } from '../settings/playground-link.js';
import { attachGeneratePanel } from './generate-slot.js';
import { adoptTokens } from '../ui/tokens.js';
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
const generateMode = params.has('generate');
for (const own of ['controls', 'compare-text', 'checkpoint', 'train', 'autostart', 'generate']) params.delete(own);
// Generate mode: the panel's fields by their attribute names (the sampler's `seed` among them).
const generationEntries: [GenerationField, string][] = [];
if (generateMode)
  for (const field of GENERATION_FIELDS) {
    const raw = params.get(attributeName(field));
    if (raw === null) continue;
    generationEntries.push([field, raw]);
    params.delete(attributeName(field));
  }
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
  playground.controls = controls ?? (generateMode ? 'none' : 'text,views');
  playground.compareText = compareText;
  const parsed = stateFromHash(params.toString());
  problems.push(...parsed.problems);
  playground.state = parsed.state;
  if (generateMode) showGeneration();
}

/** The Generate panel after the playground (hidden without ?controls), and the link to the playground page. */
function showGeneration(): void {
  adoptTokens(document); // the panel reads the design tokens from the page, as on the playground page
  const generation = parseGenerationState(generationEntries);
  problems.push(...generation.problems);
  if (!params.has('text')) playground.state = { ...playground.state, text: generation.state.prompt };
  if (controls === null) playground.style.display = 'none'; // it still loads the model and runs
  const panel = attachGeneratePanel(playground, pageEngineClient(), generation.state);
  const link = document.createElement('a');
  link.textContent = 'Open in the playground';
  link.target = '_blank';
  link.rel = 'noopener';
  link.dataset.testid = 'open-in-playground';
  link.style.cssText = 'display: inline-block; margin-top: 0.4rem; font: 0.85rem system-ui, sans-serif;';
  const update = (state = generation.state) =>
    (link.href = playgroundLink(new URL('index.html', location.href), playground.state, state));
  panel.addEventListener('generation-state', (e) => update((e as CustomEvent).detail.state));
  update();
  panel.after(link);
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
