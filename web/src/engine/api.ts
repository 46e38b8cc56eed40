// What the playground asks of an engine, wherever it runs (a worker on the page,
// the page's own thread in the one-tag element): run a model, report the outcome.
import type { AttentionEngine, RunInput, Trace } from 'attention-playground';

export type RunOutcome =
  | { ok: true; trace: Trace; build: string; milliseconds: number; heapBytes: number }
  | { ok: false; error: string };

export interface EngineApi {
  run(input: RunInput): Promise<RunOutcome>;
}

export function engineApi(load: () => Promise<AttentionEngine>): EngineApi {
  let engine: Promise<AttentionEngine> | null = null;
  return {
    async run(input) {
      const attention = await (engine ??= load());
      const started = performance.now();
      try {
        const trace = attention.run(input);
        const milliseconds = performance.now() - started;
        const heapBytes = attention.heapBytesInUse();  // shown in the status line: it must stay flat
        return { ok: true, trace, build: attention.build, milliseconds, heapBytes };
      } catch (error) {
        return { ok: false, error: error instanceof Error ? error.message : String(error) };
      }
    },
  };
}
