// The playground page's engine: a module worker next to this file.
import * as Comlink from 'comlink';
import type { EngineApi } from './api.js';
import { EngineClient } from './client.js';

let pageEngine: EngineClient | null = null;

export function pageEngineClient(): EngineClient {
  pageEngine ??= new EngineClient(() => {
    const remote = Comlink.wrap<Required<EngineApi>>(new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' }));
    return {
      run: (input) => remote.run(input),
      // The progress callback stays on the page; the worker calls it through a proxy.
      loadPretrained: (source, onProgress) => remote.loadPretrained(source, Comlink.proxy(onProgress)),
      cancelPretrained: () => remote.cancelPretrained(),
    };
  });
  return pageEngine;
}
