// The tutorial page: <attention-playground> elements sharing the page's engine worker, on the
// design tokens and in the reader's theme (the same stored choice as the playground page's).
import { EngineClient } from '../workers/client.js';
import { setCheckpointBase } from '../model/checkpoint.js';
import { pageEngineClient } from '../workers/page-client.js';
import { startTrainingWorker } from '../workers/train-client.js';
import { setTrainingRunner } from '../workers/train-run.js';
import { AttentionPlaygroundElement, useEngine, useGeneration } from '../element/attention-playground.js';
import { adoptTokens } from '../ui/tokens.js';
import { setUpTheme } from '../ui/theme.js';

adoptTokens(document);
setUpTheme(document.documentElement, document.querySelector<HTMLButtonElement>('#theme'));

useEngine((): EngineClient => pageEngineClient());
// Generate mode's panel comes with the page's code when a section first needs it; its worker generates.
useGeneration({
  load: () => import('../generate/embed-part.js').then((m) => m.GENERATE_PART),
  playground: new URL('index.html', location.href),
});
setTrainingRunner(startTrainingWorker); // each training element in a worker of its own
setCheckpointBase(new URL('checkpoints/', location.href));
customElements.define('attention-playground', AttentionPlaygroundElement);
