// The playground page: <ap-playground sync-hash> with the engine in a worker.
import { setDefaultEngine } from './components/playground.js';
import { pageEngineClient } from './engine/page-client.js';

setDefaultEngine(pageEngineClient);
