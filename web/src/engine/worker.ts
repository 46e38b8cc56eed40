// The engine runs here, off the page's main thread, so typing never waits for it.
import * as Comlink from 'comlink';
import { loadAttention, type RunInput, type Trace } from 'attention-playground';

export type RunOutcome =
  | { ok: true; trace: Trace; build: string; milliseconds: number; heapBytes: number }
  | { ok: false; error: string };

const engine = loadAttention();

const api = {
  async run(input: RunInput): Promise<RunOutcome> {
    const attention = await engine;
    const started = performance.now();
    try {
      const trace = attention.run(input);
      const milliseconds = performance.now() - started;
      // Hand the tensors' buffers over instead of copying them.
      const heapBytes = attention.heapBytesInUse();  // shown in the status line: it must stay flat
      return Comlink.transfer({ ok: true, trace, build: attention.build, milliseconds, heapBytes },
        trace.stages.map((s) => s.data.buffer as ArrayBuffer));
    } catch (error) {
      return { ok: false, error: error instanceof Error ? error.message : String(error) };
    }
  },
};

export type EngineApi = typeof api;
Comlink.expose(api);
