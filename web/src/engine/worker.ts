// The engine runs here, off the page's main thread, so typing never waits for it.
import * as Comlink from 'comlink';
import { loadAttention } from 'attention-playground/threads';
import { engineApi } from './api.js';

const api = engineApi(() => loadAttention());

Comlink.expose({
  async run(input: Parameters<typeof api.run>[0]) {
    const outcome = await api.run(input);
    // Hand the tensors' buffer (one, shared by all stages) over instead of copying it.
    return outcome.ok ? Comlink.transfer(outcome, [...new Set(outcome.trace.stages.map((s) => s.data.buffer as ArrayBuffer))])
      : outcome;
  },
  // onProgress is a Comlink proxy of the page's callback (page-client.ts): each call posts a message back.
  loadPretrained: api.loadPretrained,
  cancelPretrained: api.cancelPretrained,
});
