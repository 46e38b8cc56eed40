// The one-tag bundle and `import 'attention-playground/element'`: defines
// <attention-playground> (the class stays reachable as customElements.get(...)). The engine
// comes embedded (wasm/src/element-engine.ts: no .wasm to host, works from file://): one
// SIMD engine without the pretrained loaders, on the page's thread, yielding between runs;
// a trace at tutorial sizes takes about a millisecond. A browser without wasm SIMD gets a
// sentence in each element instead. Loading a pretrained checkpoint (the model picker's
// panel) fetches the full engine on demand: a classic script beside this one
// (PRETRAINED_SCRIPT), which a file:// page can load too. Generate mode (the `generate`
// attribute) loads the Generate panel and its engine side the same way (GENERATE_SCRIPT)
// and generates on the full engine, with the trained and pretrained models it holds.
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
import type { GenerationApi, HeldModels } from '../workers/generation-run.js';
import type { GeneratePart } from '../generate/embed-part.js';
import { AttentionPlaygroundElement, useEngine, useGeneration } from './attention-playground.js';
import { PRETRAINED_SCRIPT } from './pretrained-script.js';
import { GENERATE_SCRIPT, GENERATE_GLOBAL } from './generate-script.js';

let engine: Promise<AttentionEngine> | null = null;
const sharedEngine = () => (engine ??= loadAttention());

// The shipped checkpoints and the on-demand engine sit next to this script (dist/, the site's folder).
const script = typeof document !== 'undefined' ? (document.currentScript as HTMLScriptElement | null)?.src : undefined;
const here = script || location.href;
setCheckpointBase(new URL('./checkpoints/', here));
// Training runs on the page's thread in short slices: a one-file bundle has no worker file to host.
setTrainingRunner(pageTrainingRunner(sharedEngine));

/**
 * Runs a classic script beside this one, once per page (added on first need), and reads
 * what it leaves on `global`; a failed load is tried again at the next call.
 */
const scripts = new Map<string, Promise<unknown>>();
function scriptBeside(file: string, global: string, what: string): Promise<unknown> {
  let loading = scripts.get(file);
  if (loading) return loading;
  loading = new Promise<void>((resolve, reject) => {
    const url = new URL(`./${file}`, here);
    const tag = document.createElement('script');
    tag.src = url.href;
    tag.onload = () => resolve();
    tag.onerror = () =>
      reject(new Error(`${what} (${url.href}) did not load: ${file} must sit next to the element's script`));
    document.head.append(tag);
  }).then(() => {
    const value = (globalThis as Record<string, unknown>)[global];
    if (value === undefined) throw new Error(`${file} did not provide ${what}`);
    return value;
  });
  loading.catch(() => scripts.delete(file));
  scripts.set(file, loading);
  return loading;
}

let fullEngine: Promise<AttentionEngine> | null = null;
/** The full engine, from its script beside this one (added to the page once, on the first pretrained load). */
function loadFullEngine(): Promise<AttentionEngine> {
  return (fullEngine ??= scriptBeside(PRETRAINED_SCRIPT, FULL_ENGINE_GLOBAL, 'the pretrained loaders')
    .then((factory) => {
      if (typeof factory !== 'function') throw new Error(`${PRETRAINED_SCRIPT} did not provide the engine`);
      return loadAttention({ factory: factory as Factory });
    })
    .catch((error: unknown) => {
      fullEngine = null; // tried again at the next load
      throw error;
    }));
}

/** The Generate panel's script: the feature's part for embeds (it defines <ap-generate-panel>) and its engine side. */
const loadGeneratePart = () =>
  scriptBeside(GENERATE_SCRIPT, GENERATE_GLOBAL, 'the Generate panel') as Promise<
    GeneratePart & { GenerationRuns: new (held: HeldModels) => GenerationApi }
  >;

/** Generation on the models the full engine holds, its code fetched on the first request. */
function generationOnFullEngine(held: HeldModels): GenerationApi {
  let runs: Promise<GenerationApi> | null = null;
  const ready = () => (runs ??= loadGeneratePart().then((loaded) => new loaded.GenerationRuns(held)));
  const failed = (error: unknown) => ({ ok: false as const, error: (error as Error).message, field: 'engine' });
  return {
    generationOpen: (input) => ready().then((r) => r.generationOpen(input), failed),
    generationRun: (count, onStep) => ready().then((r) => r.generationRun(count, onStep), failed),
    generationStop: () => void runs?.then((r) => r.generationStop()),
    generationDispose: () => ready().then((r) => r.generationDispose()),
  };
}

useGeneration({ load: loadGeneratePart, playground: new URL('./index.html', here) });

useEngine(
  () =>
    new EngineClient(() => {
      const api = engineApi(sharedEngine);
      // Pretrained models load into, and run on, the full engine, and every model generates there (the
      // element's own leaves generation out); everything else runs on the element's own.
      const pretrained = engineApi(loadFullEngine, generationOnFullEngine);
      return {
        ...generationApiOf(pretrained),
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

function generationApiOf(api: GenerationApi): GenerationApi {
  const { generationOpen, generationRun, generationStop, generationDispose } = api;
  return { generationOpen, generationRun, generationStop, generationDispose };
}

if (!customElements.get('attention-playground'))
  customElements.define('attention-playground', AttentionPlaygroundElement);
