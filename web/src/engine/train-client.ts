// The page's side of a training run in a worker of its own per run (a run keeps the
// worker busy for as long as it trains, so it never shares the Explore worker, and two
// compared runs train on two cores).
import * as Comlink from 'comlink';
import type { TrainingApi, TrainingRunner } from './training-api.js';

export function startTrainingWorker(): TrainingRunner {
  const worker = new Worker(new URL('./train-worker.ts', import.meta.url), { type: 'module' });
  return { api: Comlink.wrap<TrainingApi>(worker), terminate: () => worker.terminate() };
}
