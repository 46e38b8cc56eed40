// The iframe page: the same settings as the playground, from the URL's query string
// (?text=...&view=masks&controls=none), and its height posted to the parent page
// whenever it changes: { type: 'attention-playground:height', height } so the parent
// can size the iframe.
import type { Playground } from './components/playground.js';
import { setDefaultEngine } from './components/playground.js';
import { pageEngineClient } from './engine/page-client.js';
import { stateFromHash } from './state/settings.js';

setDefaultEngine(pageEngineClient);

const params = new URLSearchParams(location.search);
const playground = document.querySelector('ap-playground') as Playground;
playground.controls = params.get('controls') ?? 'text,views';
playground.compareText = params.get('compare-text') ?? '';
params.delete('controls');
params.delete('compare-text');
playground.state = stateFromHash(params.toString()).state;

let reported = -1;
new ResizeObserver(() => {
  const height = Math.ceil(document.documentElement.scrollHeight);
  if (height === reported || window.parent === window) return;
  reported = height;
  window.parent.postMessage({ type: 'attention-playground:height', height, src: location.href }, '*');
}).observe(document.body);
