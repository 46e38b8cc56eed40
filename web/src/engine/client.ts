// The page's side of the engine worker. Requests are "latest wins": while one run
// is in flight, newer requests replace each other, and only the newest is sent
// next. So fast typing never queues up stale work.
import * as Comlink from 'comlink';
import type { RunInput } from 'attention-playground';
import type { EngineApi, RunOutcome } from './worker.js';

export type { RunOutcome };

export class EngineClient {
  #api: Comlink.Remote<EngineApi>;
  #busy = false;
  #pending: { input: RunInput; onDone: (outcome: RunOutcome) => void } | null = null;

  constructor() {
    const worker = new Worker(new URL('./worker.ts', import.meta.url), { type: 'module' });
    this.#api = Comlink.wrap<EngineApi>(worker);
  }

  /** Runs the model; a request replaced before it was sent never runs. */
  request(input: RunInput, onDone: (outcome: RunOutcome) => void): void {
    this.#pending = { input, onDone };
    if (!this.#busy) void this.#drain();
  }

  async #drain(): Promise<void> {
    this.#busy = true;
    while (this.#pending) {
      const { input, onDone } = this.#pending;
      this.#pending = null;
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
