// The Train view's worker: one training run lives here, off the page's thread, so the
// page stays responsive while it trains. Progress comes back through the callback the
// page passes to run() (one call per slice of training).
import * as Comlink from 'comlink';
import { loadAttention, type CreateTrainerOptions } from 'attention-playground/threads';
import type { RunLimits } from '../state/train-settings.js';
import { TrainingSession, type Progress } from './training.js';

const session = loadAttention().then((engine) => new TrainingSession(engine));

const api = {
  async create(options: CreateTrainerOptions, limits: RunLimits) { return (await session).create(options, limits); },
  async setLimits(limits: RunLimits) { (await session).setLimits(limits); },
  async run(onProgress: (progress: Progress) => void) { return (await session).run((p) => void onProgress(p)); },
  async pause() { (await session).pause(); },
  async step() { return (await session).step(); },
  async saveWeights() {
    const bytes = (await session).saveWeights();
    return Comlink.transfer(bytes, [bytes.buffer as ArrayBuffer]);
  },
  async loadWeights(bytes: Uint8Array) { return (await session).loadWeights(bytes); },
  async complete(ids: number[]) { return (await session).complete(ids); },
};
export type TrainWorkerApi = typeof api;

Comlink.expose(api);
