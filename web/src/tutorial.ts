// The tutorial page: <attention-playground> elements sharing the page's engine worker.
import { EngineClient } from './engine/client.js';
import { setCheckpointBase } from './engine/checkpoint.js';
import { pageEngineClient } from './engine/page-client.js';
import { startTrainingWorker } from './engine/train-client.js';
import { setTrainingRunner } from './engine/train-run.js';
import { AttentionPlaygroundElement, useEngine } from './element/attention-playground.js';

useEngine((): EngineClient => pageEngineClient());
setTrainingRunner(startTrainingWorker);  // each training element in a worker of its own
setCheckpointBase(new URL('checkpoints/', location.href));
customElements.define('attention-playground', AttentionPlaygroundElement);
