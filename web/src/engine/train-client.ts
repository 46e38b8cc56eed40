// The page's side of a training run: a worker of its own per Train view (a run keeps
// the worker busy for as long as it trains, so it never shares the Explore worker).
import * as Comlink from 'comlink';
import type { TrainWorkerApi } from './train-worker.js';

export interface TrainingWorker {
  api: Comlink.Remote<TrainWorkerApi>;
  terminate(): void;
}

export function startTrainingWorker(): TrainingWorker {
  const worker = new Worker(new URL('./train-worker.ts', import.meta.url), { type: 'module' });
  return { api: Comlink.wrap<TrainWorkerApi>(worker), terminate: () => worker.terminate() };
}

export { Comlink };
