// What the playground asks of an engine, wherever it runs (a worker on the page,
// the page's own thread in the one-tag element): run a model, report the outcome.
// Two kinds of request: the untrained playground model on sentences (engine.run), or a
// trained model on tokens of its task (trained-trace.ts); both give a Trace.
import type { AttentionEngine, RunInput, Trace } from 'attention-playground';
import { InputError, TrainedModels, isTrainedRun, type TrainedRunInput } from './trained-trace.js';

export type EngineRequest = RunInput | TrainedRunInput;

export type RunOutcome =
  | { ok: true; trace: Trace; build: string; milliseconds: number; heapBytes: number }
  /** field: 'text' when what was typed is the problem (shown at the text box). */
  | { ok: false; error: string; field?: 'text' };

export interface EngineApi {
  run(input: EngineRequest): Promise<RunOutcome>;
}

export function engineApi(load: () => Promise<AttentionEngine>): EngineApi {
  let engine: Promise<AttentionEngine> | null = null;
  let trained: TrainedModels | null = null;
  return {
    async run(input) {
      const attention = await (engine ??= load());
      const started = performance.now();
      try {
        const trace = isTrainedRun(input) ? (trained ??= new TrainedModels(attention)).trace(input) : attention.run(input);
        const milliseconds = performance.now() - started;
        const heapBytes = attention.heapBytesInUse();  // shown in the status line: it must stay flat
        return { ok: true, trace, build: attention.build, milliseconds, heapBytes };
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        return error instanceof InputError ? { ok: false, error: message, field: 'text' } : { ok: false, error: message };
      }
    },
  };
}
