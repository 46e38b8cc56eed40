// The Train view's worker: one training run lives here, off the page's thread, so the
// page stays responsive while it trains. Progress comes back through the callback the
// page passes to run() (one call per slice of training). Named SINGLE_THREADED, it loads
// the single-threaded engine (the page's fallback when the threaded one hangs at start:
// worker-watchdog.ts).
import * as Comlink from 'comlink';
import { loadAttention as loadSingleThreaded } from 'attention-playground';
import { loadAttention } from 'attention-playground/threads';
import { trainingApi } from './training-api.js';
import { TrainingSession } from './training.js';
import { SINGLE_THREADED } from './worker-watchdog.js';

const engine = self.name === SINGLE_THREADED ? loadSingleThreaded() : loadAttention();
Comlink.expose({
  ...trainingApi(engine.then((e) => new TrainingSession(e))),
  ready: () =>
    engine.then(
      (e) => e.build,
      (error: unknown) => `failed: ${String(error)}`,
    ),
});
