// The engine runs here, off the page's main thread, so typing never waits for it. Named
// SINGLE_THREADED, it loads the single-threaded engine (the page's fallback when the
// threaded one hangs at start: worker-watchdog.ts).
import * as Comlink from 'comlink';
import { loadAttention as loadSingleThreaded } from 'attention-playground';
import { loadAttention } from 'attention-playground/threads';
import { engineApi } from './api.js';
import { GenerationRuns } from './generation-run.js';
import { headsApi } from './heads-run.js';
import { SINGLE_THREADED } from './worker-watchdog.js';

const engine = self.name === SINGLE_THREADED ? loadSingleThreaded() : loadAttention();
// The site's worker adds the Generate panel's and the heads view's requests (the element's engine leaves them out:
// its size budget).
const api = engineApi(
  () => engine,
  (held) => {
    const runs = new GenerationRuns(held);
    return {
      generationOpen: runs.generationOpen.bind(runs),
      generationRun: runs.generationRun.bind(runs),
      generationStop: runs.generationStop.bind(runs),
      generationDispose: runs.generationDispose.bind(runs),
      ...headsApi(held),
    };
  },
);

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
  // The Generate panel (generation-run.ts): onStep is a Comlink proxy of the panel's callback.
  async generationOpen(input: Parameters<typeof api.generationOpen>[0]) {
    const opened = await api.generationOpen(input);
    return opened.ok && opened.attention ? Comlink.transfer(opened, [opened.attention.buffer as ArrayBuffer]) : opened;
  },
  generationRun: api.generationRun,
  generationStop: api.generationStop,
  generationDispose: api.generationDispose,
  // The heads view (heads-run.ts): onProgress is a Comlink proxy, as loadPretrained's.
  heads: api.heads,
  cancelHeads: api.cancelHeads,
  ready: () =>
    engine.then(
      (e) => e.build,
      (error: unknown) => `failed: ${String(error)}`,
    ),
});
