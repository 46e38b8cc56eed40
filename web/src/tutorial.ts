// The tutorial page: <attention-playground> elements sharing the page's engine worker.
import { EngineClient } from './engine/client.js';
import { pageEngineClient } from './engine/page-client.js';
import { AttentionPlaygroundElement, useEngine } from './element/attention-playground.js';

useEngine((): EngineClient => pageEngineClient());
customElements.define('attention-playground', AttentionPlaygroundElement);
