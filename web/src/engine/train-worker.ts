// The Train view's worker: one training run lives here, off the page's thread, so the
// page stays responsive while it trains. Progress comes back through the callback the
// page passes to run() (one call per slice of training).
import * as Comlink from 'comlink';
import { loadAttention } from 'attention-playground/threads';
import { trainingApi } from './training-api.js';
import { TrainingSession } from './training.js';

Comlink.expose(trainingApi(loadAttention().then((engine) => new TrainingSession(engine))));
