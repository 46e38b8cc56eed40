// The page's side of a training run in a worker of its own per run (a run keeps the
// worker busy for as long as it trains, so it never shares the Explore worker, and two
// compared runs train on two cores). Started under a watchdog (worker-watchdog.ts): a
// worker whose threaded engine hangs at start is replaced by a single-threaded one.
import type { TrainingApi, TrainingRunner } from './training-api.js';
import { SINGLE_THREADED, forwardTo, startWatched, type Readiness } from './worker-watchdog.js';

export function startTrainingWorker(): TrainingRunner {
  const watched = startWatched<TrainingApi & Readiness>((threaded) => {
    const worker = new Worker(new URL('./train-worker.ts', import.meta.url), {
      type: 'module',
      name: threaded ? 'threaded' : SINGLE_THREADED,
    });
    return { endpoint: worker, terminate: () => worker.terminate() };
  });
  return { api: forwardTo<TrainingApi>(watched.remote), terminate: watched.terminate };
}
