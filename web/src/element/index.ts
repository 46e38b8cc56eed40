// The one-tag bundle and `import 'attention-playground/element'`: defines
// <attention-playground> (the class stays reachable as customElements.get(...)). The engine
// comes embedded (wasm/src/element-engine.ts: no .wasm to host, works from file://): one
// SIMD engine without the pretrained loaders, on the page's thread, yielding between runs;
// a trace at tutorial sizes takes about a millisecond. A browser without wasm SIMD gets a
// sentence in each element instead. Loading a pretrained checkpoint (the model picker's
// panel) fetches the full engine on demand: a classic script beside this one
// (PRETRAINED_SCRIPT), which a file:// page can load too.
import {
  FULL_ENGINE_GLOBAL,
  elementEngineProblem,
  loadAttention,
  type AttentionEngine,
  type Factory,
} from 'attention-playground/element-engine';
import { EngineClient } from '../workers/client.js';
import { engineApi } from '../workers/api.js';
import { isPretrainedRun } from '../workers/pretrained-run.js';
import { setCheckpointBase } from '../model/checkpoint.js';
import { pageTrainingRunner } from '../workers/page-training.js';
import { setTrainingRunner } from '../workers/train-run.js';
import { AttentionPlaygroundElement, useEngine } from './attention-playground.js';
import { PRETRAINED_SCRIPT } from './pretrained-script.js';

let engine: Promise<AttentionEngine> | null = null;
const sharedEngine = () => (engine ??= loadAttention());

// The shipped checkpoints and the on-demand engine sit next to this script (dist/, the site's folder).
const script = typeof document !== 'undefined' ? (document.currentScript as HTMLScriptElement | null)?.src : undefined;
const here = script || location.href;
setCheckpointBase(new URL('./checkpoints/', here));
// Training runs on the page's thread in short slices: a one-file bundle has no worker file to host.
setTrainingRunner(pageTrainingRunner(sharedEngine));

let fullEngine: Promise<AttentionEngine> | null = null;
/** The full engine, from its script beside this one (added to the page once, on the first pretrained load). */
function loadFullEngine(): Promise<AttentionEngine> {
  return (fullEngine ??= new Promise<void>((resolve, reject) => {
    const url = new URL(`./${PRETRAINED_SCRIPT}`, here);
    const tag = document.createElement('script');
    tag.src = url.href;
    tag.onload = () => resolve();
    tag.onerror = () =>
      reject(
        new Error(
          `the pretrained loaders (${url.href}) did not load: ${PRETRAINED_SCRIPT} must sit next to the element's script`,
        ),
      );
    document.head.append(tag);
  })
    .then(() => {
      const factory = (globalThis as Record<string, unknown>)[FULL_ENGINE_GLOBAL];
      if (typeof factory !== 'function') throw new Error(`${PRETRAINED_SCRIPT} did not provide the engine`);
      return loadAttention({ factory: factory as Factory });
    })
    .catch((error: unknown) => {
      fullEngine = null; // tried again at the next load
      throw error;
    }));
}

useEngine(
  () =>
    new EngineClient(() => {
      const api = engineApi(sharedEngine);
      // Pretrained models load into, and run on, the full engine; everything else on the element's own.
      const pretrained = engineApi(loadFullEngine);
      return {
        // Yield to the page before each run, so typing and scrolling go first.
        run: (input) =>
          new Promise((resolve) =>
            setTimeout(() => resolve((isPretrainedRun(input) ? pretrained : api).run(input)), 0),
          ),
        loadPretrained: async (source, onProgress) => {
          try {
            await loadFullEngine();
          } catch (error) {
            return { ok: false, error: (error as Error).message, code: 'engine', field: '' };
          }
          return pretrained.loadPretrained(source, onProgress);
        },
        cancelPretrained: pretrained.cancelPretrained, // on this thread too (no worker here)
      };
    }),
  elementEngineProblem(),
);

if (!customElements.get('attention-playground'))
  customElements.define('attention-playground', AttentionPlaygroundElement);
