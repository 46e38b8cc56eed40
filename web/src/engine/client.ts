// The page's side of the engine worker. One worker serves every playground on a
// page. Requests are "latest wins" per requester: while a run is in flight, newer
// requests from the same requester replace each other, so fast typing never queues
// stale work, and one playground never cancels another's.
import * as Comlink from 'comlink';
import type { RunInput } from 'attention-playground';
import type { EngineApi, RunOutcome } from './worker.js';

export type { RunOutcome };

interface Pending { input: RunInput; onDone: (outcome: RunOutcome) => void }

export class EngineClient {
  #makeWorker: () => Worker;
  #api: Comlink.Remote<EngineApi> | null = null;
  #busy = false;
  #pending = new Map<object, Pending>();

  /** The worker starts on the first request, not before. */
  constructor(makeWorker: () => Worker) {
    this.#makeWorker = makeWorker;
  }

  /** Runs the model for a requester; a request replaced before it was sent never runs. */
  request(requester: object, input: RunInput, onDone: (outcome: RunOutcome) => void): void {
    this.#pending.delete(requester);  // re-insert: requesters take turns in the order they asked
    this.#pending.set(requester, { input, onDone });
    if (!this.#busy) void this.#drain();
  }

  async #drain(): Promise<void> {
    this.#busy = true;
    this.#api ??= Comlink.wrap<EngineApi>(this.#makeWorker());
    while (this.#pending.size > 0) {
      const [requester, { input, onDone }] = this.#pending.entries().next().value as [object, Pending];
      this.#pending.delete(requester);
      let outcome: RunOutcome;
      try {
        outcome = await this.#api.run(input);
      } catch (error) {
        outcome = { ok: false, error: `the engine failed: ${String(error)}` };
      }
      onDone(outcome);  // even if superseded, it is newer than what is shown
    }
    this.#busy = false;
  }
}

let pageEngine: EngineClient | null = null;

/** The playground page's engine: a module worker next to this file. */
export function pageEngineClient(): EngineClient {
  pageEngine ??= new EngineClient(() => new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' }));
  return pageEngine;
}
