// Training on the page's own thread, for the one-file element (no worker file to host):
// the same session and API as in a worker, in short slices so that no task keeps input
// waiting for long (the Train view's worker uses training.ts's longer SLICE_MS).
import * as Comlink from 'comlink';
import type { AttentionEngine } from 'attention-playground';
import { trainingApi, type TrainingApi, type TrainingRunner } from './training-api.js';
import { TrainingSession, type Progress } from './training.js';

/** Training between two yields to the page: a step of the shipped models takes a few ms. */
const PAGE_SLICE_MS = 12;

export function pageTrainingRunner(engine: () => Promise<AttentionEngine>): () => TrainingRunner {
  return () => {
    const session = engine().then((e) => new TrainingSession(e, PAGE_SLICE_MS));
    const api = trainingApi(session);
    // Same calls as through Comlink. Progress reaches the page in a task of its own (as a
    // worker's message would), so a slice of training and the redraw it causes never add up.
    const run = (onProgress: (p: Progress) => void) => api.run((p) => setTimeout(() => onProgress(p), 0));
    return { api: { ...api, run } as unknown as Comlink.Remote<TrainingApi>, terminate: () => void api.dispose() };
  };
}
