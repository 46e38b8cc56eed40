// The playground page's engine: a module worker next to this file.
import * as Comlink from 'comlink';
import type { EngineApi } from './api.js';
import { EngineClient } from './client.js';

let pageEngine: EngineClient | null = null;

export function pageEngineClient(): EngineClient {
  pageEngine ??= new EngineClient(() =>
    Comlink.wrap<EngineApi>(new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' })));
  return pageEngine;
}
