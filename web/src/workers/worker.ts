// The engine runs here, off the page's main thread, so typing never waits for it. Named
// SINGLE_THREADED, it loads the single-threaded engine (the page's fallback when the
// threaded one hangs at start: worker-watchdog.ts).
import * as Comlink from 'comlink';
import { loadAttention as loadSingleThreaded } from 'attention-playground';
import { loadAttention } from 'attention-playground/threads';
import { engineApi } from './api.js';
import { HeadsRunner } from './heads-run.js';
import { SINGLE_THREADED } from './worker-watchdog.js';

const engine = self.name === SINGLE_THREADED ? loadSingleThreaded() : loadAttention();
const api = engineApi(() => engine, {
  heads: ({ trained, pretrained }) => new HeadsRunner(trained, pretrained),
});

Comlink.expose({
  async run(input: Parameters<typeof api.run>[0]) {
    const outcome = await api.run(input);
    // Hand the tensors' buffer (one, shared by all stages) over instead of copying it.
    return outcome.ok
      ? Comlink.transfer(outcome, [...new Set(outcome.trace.stages.map((s) => s.data.buffer as ArrayBuffer))])
      : outcome;
  },
  // onProgress is a Comlink proxy of the page's callback (page-client.ts): each call posts a message back.
  loadPretrained: api.loadPretrained,
  cancelPretrained: api.cancelPretrained,
  heads: api.heads, // onProgress: a Comlink proxy, as loadPretrained's
  cancelHeads: api.cancelHeads,
  ready: () =>
    engine.then(
      (e) => e.build,
      (error: unknown) => `failed: ${String(error)}`,
    ),
});
