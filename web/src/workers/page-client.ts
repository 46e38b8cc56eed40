// The playground page's engine: a module worker next to this file, started under a
// watchdog (worker-watchdog.ts): if its threaded engine hangs at start, a single-threaded
// one takes over.
import * as Comlink from 'comlink';
import type { EngineApi } from './api.js';
import { EngineClient } from './client.js';
import { SINGLE_THREADED, forwardTo, startWatched, type Readiness } from './worker-watchdog.js';

let pageEngine: EngineClient | null = null;

export function pageEngineClient(): EngineClient {
  pageEngine ??= new EngineClient(() => {
    const watched = startWatched<Required<EngineApi> & Readiness>((threaded) => {
      const worker = new Worker(new URL('./worker.ts', import.meta.url), {
        type: 'module',
        name: threaded ? 'threaded' : SINGLE_THREADED,
      });
      return { endpoint: worker, terminate: () => worker.terminate() };
    });
    const remote = forwardTo<Required<EngineApi>>(watched.remote);
    return {
      run: (input) => remote.run(input),
      // The progress callback stays on the page; the worker calls it through a proxy.
      loadPretrained: (source, onProgress) => remote.loadPretrained(source, Comlink.proxy(onProgress)),
      cancelPretrained: () => remote.cancelPretrained(),
      generationOpen: (input) => remote.generationOpen(input),
      // Each step comes back through a proxy of the panel's callback (one message per step).
      generationRun: (count, onStep) => remote.generationRun(count, Comlink.proxy(onStep)),
      generationStop: () => remote.generationStop(),
      generationDispose: () => remote.generationDispose(),
      heads: (request, onProgress) => remote.heads(request, Comlink.proxy(onProgress)),
      cancelHeads: () => remote.cancelHeads(),
    };
  });
  return pageEngine;
}
