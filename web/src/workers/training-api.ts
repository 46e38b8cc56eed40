// What a training run offers the page, wherever its session lives: a worker of its own
// (train-worker.ts, through Comlink) or the page's own thread (page-training.ts, for the
// one-file element, which has no worker file to host). Both expose this object.
import * as Comlink from 'comlink';
import type { CreateTrainerOptions } from 'attention-playground';
import type { RunLimits } from '../settings/train-settings.js';
import type { HeadRef } from '../model/training-data.js';
import type { Progress, TrainingSession } from './training.js';

export function trainingApi(session: Promise<TrainingSession>) {
  return {
    async create(options: CreateTrainerOptions, limits: RunLimits) {
      return (await session).create(options, limits);
    },
    async setLimits(limits: RunLimits) {
      (await session).setLimits(limits);
    },
    async run(onProgress: (progress: Progress) => void) {
      return (await session).run((p) => void onProgress(p));
    },
    async pause() {
      (await session).pause();
    },
    async step() {
      return (await session).step();
    },
    async saveWeights() {
      const bytes = (await session).saveWeights();
      return Comlink.transfer(bytes, [bytes.buffer as ArrayBuffer]);
    },
    async loadWeights(bytes: Uint8Array) {
      return (await session).loadWeights(bytes);
    },
    async complete(ids: number[]) {
      return (await session).complete(ids);
    },
    async ablate(heads: HeadRef[]) {
      return (await session).ablate(heads);
    },
    async dispose() {
      (await session).dispose();
    },
  };
}
export type TrainingApi = ReturnType<typeof trainingApi>;

/** A run's session as the page holds it: its API (remote or local) and how to end it. */
export interface TrainingRunner {
  api: Comlink.Remote<TrainingApi>;
  terminate(): void;
}
