// The playground page: Explore (<ap-playground>: type and look, untrained weights), Train
// (<ap-train>: train a small model in a worker and watch it learn) or What heads do
// (<ap-heads>: detectors, ablation, logit lens, attribution and patching on the model),
// chosen by the URL hash ('#train...' is the Train view, '#heads...' the heads view); each
// keeps its settings in the hash. The page's
// theme (light or dark) follows the system until the theme button picks one (ui/theme.ts).
import { type Playground, setDefaultEngine } from '../playground/playground.js';
import '../train/train-view.js';
import '../pretrained/pretrained-loader.js';
import type { HeadsView } from '../heads/heads-view.js';
import '../heads/heads-view.js';
import { isHeadsHash } from '../model/heads-state.js';
import { setCheckpointBase } from '../model/checkpoint.js';
import { pageEngineClient } from '../workers/page-client.js';
import { startTrainingWorker } from '../workers/train-client.js';
import { setTrainingRunner } from '../workers/train-run.js';
import { PAGE_DEFAULT_STATE } from '../settings/settings.js';
import { RUN_BUTTON } from '../model/training-data.js';
import { adoptTokens } from '../ui/tokens.js';
import { setUpTheme } from '../ui/theme.js';
import { attachGeneratePanel } from './generate-slot.js';

adoptTokens(document);
setUpTheme(document.documentElement, document.querySelector<HTMLButtonElement>('#theme'));

setDefaultEngine(pageEngineClient);
setTrainingRunner(startTrainingWorker);
setCheckpointBase(new URL('checkpoints/', location.href)); // web/public/checkpoints, served at the site's root

const INTROS = {
  // What the weights are and what to try is the hint's to say, above the view (playground/first-view.ts): not repeated here.
  explore: {
    long:
      'Type one sentence per line. Every head\u2019s scores, masks, softmax weights and the shape of every tensor update as you ' +
      'type, and every number is the engine\u2019s exact arithmetic.',
    short: 'Type a sentence; watch every head\u2019s attention.',
  },
  // The first screen shows a shipped model, whose run button reads RUN_BUTTON.train; Start comes after a change.
  train: {
    long:
      'The trained models shipped with the page show at once: scrub the timeline to watch their heads form, or press ' +
      `${RUN_BUTTON.train} and a small transformer trains right here, in a worker, while you watch the loss fall and ` +
      'the heads of a held-out example sharpen into the pattern that solves the task. Pick another task or change a ' +
      `setting and press ${RUN_BUTTON.start} to train that from step 0.`,
    short: 'Train a small transformer here and watch its heads form.',
  },
  heads: {
    long:
      'Attention shows where a head looks, not what it does to the answer. Score every head as a previous-token, ' +
      'duplicate or induction head, switch heads off and watch the prediction change, read each layer through the ' +
      'logit lens, see what each head writes into the answer, and patch a clean run into a corrupted one.',
    short: 'What each head does to the prediction.',
  },
};

/** The intro in full, and in one line for a phone (index.html shows one of them). */
function showIntro(intro: HTMLElement, text: { long: string; short: string }): void {
  const long = document.createElement('span');
  long.className = 'long';
  long.textContent = text.long;
  const short = document.createElement('span');
  short.className = 'short';
  short.textContent = text.short;
  intro.replaceChildren(long, short);
}

function route(): void {
  const mode = location.hash.startsWith('#train') ? 'train' : isHeadsHash(location.hash) ? 'heads' : 'explore';
  const tag = { train: 'ap-train', heads: 'ap-heads', explore: 'ap-playground' }[mode];
  const slot = document.getElementById('page')!;
  if (slot.firstElementChild?.localName !== tag) {
    const element = document.createElement(tag);
    element.setAttribute('sync-hash', '');
    if (tag === 'ap-playground') (element as Playground).defaults = PAGE_DEFAULT_STATE; // the first view: positional heads
    if (tag === 'ap-heads') (element as HeadsView).engine = pageEngineClient; // the same worker: a model loaded on Explore is there
    slot.replaceChildren(element);
    if (tag === 'ap-playground') attachGeneratePanel(element as Playground, pageEngineClient());
  }
  showIntro(document.getElementById('intro')!, INTROS[mode]);
  for (const link of document.querySelectorAll<HTMLAnchorElement>('nav a')) {
    if (link.dataset.mode === mode) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
}

window.addEventListener('hashchange', route);
route();
