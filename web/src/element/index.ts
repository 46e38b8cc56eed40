// The one-tag bundle and `import 'attention-playground/element'`: defines
// <attention-playground> (the class stays reachable as customElements.get(...)). The engine comes embedded (attention-playground/inline:
// no .wasm to host, works from file://) and runs on the page's thread, yielding
// between runs; a trace at tutorial sizes takes about a millisecond.
import { loadAttention } from 'attention-playground/inline';
import { EngineClient } from '../engine/client.js';
import { engineApi } from '../engine/api.js';
import { AttentionPlaygroundElement, useEngine } from './attention-playground.js';

useEngine(() => new EngineClient(() => {
  const api = engineApi(() => loadAttention());
  // Yield to the page before each run, so typing and scrolling go first.
  return { run: (input) => new Promise((resolve) => setTimeout(() => resolve(api.run(input)), 0)) };
}));

if (!customElements.get('attention-playground')) customElements.define('attention-playground', AttentionPlaygroundElement);

