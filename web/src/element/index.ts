// The one-tag bundle and `import 'attention-playground/element'`: defines
// <attention-playground> (the class stays reachable as customElements.get(...)). The engine comes embedded (attention-playground/inline:
// no .wasm to host, works from file://) and runs on the page's thread, yielding
// between runs; a trace at tutorial sizes takes about a millisecond.
import { loadAttention, type AttentionEngine } from 'attention-playground/inline';
import { EngineClient } from '../workers/client.js';
import { engineApi } from '../workers/api.js';
import { setCheckpointBase } from '../model/checkpoint.js';
import { pageTrainingRunner } from '../workers/page-training.js';
import { setTrainingRunner } from '../workers/train-run.js';
import { AttentionPlaygroundElement, useEngine } from './attention-playground.js';

let engine: Promise<AttentionEngine> | null = null;
const sharedEngine = () => (engine ??= loadAttention());

// The shipped checkpoints sit next to this script (dist/checkpoints/, the site's checkpoints/).
const script = typeof document !== 'undefined' ? (document.currentScript as HTMLScriptElement | null)?.src : undefined;
setCheckpointBase(new URL('./checkpoints/', script || location.href));
// Training runs on the page's thread in short slices: a one-file bundle has no worker file to host.
setTrainingRunner(pageTrainingRunner(sharedEngine));

useEngine(
  () =>
    new EngineClient(() => {
      const api = engineApi(sharedEngine);
      // Yield to the page before each run, so typing and scrolling go first.
      return {
        run: (input) => new Promise((resolve) => setTimeout(() => resolve(api.run(input)), 0)),
        loadPretrained: api.loadPretrained,
        cancelPretrained: api.cancelPretrained, // on this thread too (no worker here)
      };
    }),
);

if (!customElements.get('attention-playground'))
  customElements.define('attention-playground', AttentionPlaygroundElement);
