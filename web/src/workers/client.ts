// The page's side of the engine worker. One worker serves every playground on a
// page. Requests are "latest wins" per requester: while a run is in flight, newer
// requests from the same requester replace each other, so fast typing never queues
// stale work, and one playground never cancels another's.
import type { EngineApi, EngineRequest, RunOutcome } from './api.js';
import type { LoadOutcome, PretrainedProgress, PretrainedSource } from '../model/pretrained-info.js';
import type { GenerationApi } from './generation-run.js';

export type { EngineRequest, LoadOutcome, PretrainedProgress, PretrainedSource, RunOutcome };

interface Pending {
  input: EngineRequest;
  onDone: (outcome: RunOutcome) => void;
}

export class EngineClient {
  #connect: () => EngineApi;
  #api: EngineApi | null = null;
  #busy = false;
  #pending = new Map<object, Pending>();

  /** connect() (e.g. starting a worker) happens on the first request, not before. */
  constructor(connect: () => EngineApi) {
    this.#connect = connect;
  }

  /** Runs the model for a requester; a request replaced before it was sent never runs. */
  request(requester: object, input: EngineRequest, onDone: (outcome: RunOutcome) => void): void {
    this.#pending.delete(requester); // re-insert: requesters take turns in the order they asked
    this.#pending.set(requester, { input, onDone });
    if (!this.#busy) void this.#drain();
  }

  /** Loads a pretrained checkpoint where the engine runs; progress comes back through onProgress. */
  async loadPretrained(source: PretrainedSource, onProgress: (p: PretrainedProgress) => void): Promise<LoadOutcome> {
    const api = (this.#api ??= this.#connect());
    if (!api.loadPretrained)
      return {
        ok: false,
        error: 'this page\u2019s engine cannot load pretrained models',
        code: 'unsupported',
        field: '',
      };
    try {
      return await api.loadPretrained(source, onProgress);
    } catch (error) {
      return { ok: false, error: `the engine failed: ${String(error)}`, code: 'engine', field: '' };
    }
  }

  /** The engine's generation requests (the Generate panel's), or null where this engine has none. */
  generation(): GenerationApi | null {
    const api = (this.#api ??= this.#connect());
    const { generationOpen, generationRun, generationStop, generationDispose } = api;
    if (!generationOpen || !generationRun || !generationStop || !generationDispose) return null;
    return {
      generationOpen: (input) => generationOpen.call(api, input),
      generationRun: (count, onStep) => generationRun.call(api, count, onStep),
      generationStop: () => generationStop.call(api),
      generationDispose: () => generationDispose.call(api),
    };
  }

  /** Stops the pretrained load under way, if any. */
  cancelPretrained(): void {
    void this.#api?.cancelPretrained?.();
  }

  /** The engine's head tools (the heads view's: heads-run.ts), or null where this engine has none. */
  headTools(): Pick<Required<EngineApi>, 'heads' | 'cancelHeads'> | null {
    const api = (this.#api ??= this.#connect());
    return api.heads && api.cancelHeads ? (api as Required<EngineApi>) : null;
  }

  async #drain(): Promise<void> {
    this.#busy = true;
    this.#api ??= this.#connect();
    while (this.#pending.size > 0) {
      const [requester, { input, onDone }] = this.#pending.entries().next().value as [object, Pending];
      this.#pending.delete(requester);
      let outcome: RunOutcome;
      try {
        outcome = await this.#api.run(input);
      } catch (error) {
        outcome = { ok: false, error: `the engine failed: ${String(error)}` };
      }
      onDone(outcome); // even if superseded, it is newer than what is shown
    }
    this.#busy = false;
  }
}
