// What the "What heads do" view asks of the engine worker (workers/heads-run.ts) and what
// comes back: plain data that crosses the worker boundary (numbers as arrays, tokens as
// display text). Shapes use L (layers), H (heads), S (positions).
import type { HeadScoreKind } from 'attention-playground';
import type { Ablation, HeadRefState, PatchOver } from './heads-state.js';

export type { PatchOver };

/** A loaded model where the worker keeps it: a trained one by its reference, a pretrained one by its key. */
export type HeadsModelRef =
  { trained: { key: string; settings: string; weights: Uint8Array } } | { pretrained: { key: string } };

export type HeadsRequest =
  | { tool: 'detect'; model: HeadsModelRef; text: string }
  | {
      tool: 'ablate';
      model: HeadsModelRef;
      text: string;
      heads: HeadRefState[];
      mlps: number[];
      ablation: Ablation;
      token: number | null;
      against: number | null;
    }
  | {
      tool: 'rank';
      model: HeadsModelRef;
      text: string;
      ablation: Ablation;
      token: number | null;
      against: number | null;
    }
  | { tool: 'lens'; model: HeadsModelRef; text: string }
  | { tool: 'attribute'; model: HeadsModelRef; text: string; token: number | null; against: number | null }
  | { tool: 'patch'; model: HeadsModelRef; clean: string; corrupted: string };

/** A candidate token: its id, its text as shown, its probability where one was read. */
export interface TokenChoice {
  id: number;
  token: string;
  probability: number;
}

/** A prediction at the last position: the top candidates, the target's probability and its logit (difference). */
export interface PredictionRead {
  top: TokenChoice[];
  /** p(target). */
  probability: number;
  /** logit(target) - logit(against), or logit(target) without against. */
  logit: number;
}

interface Shaped {
  /** The text's tokens as shown. */
  tokens: string[];
  layers: number;
  heads: number;
}

export interface DetectResult extends Shaped {
  tool: 'detect';
  /** Each detector's scores (L * H), row-major by layer; on repeated random tokens (docs/heads.md). */
  scores: Record<HeadScoreKind, number[]>;
  /** The random sequences the detectors read. */
  detector: { seed: number; length: number; batch: number };
  /** Each head's pattern label on the text (model/head-patterns.ts), (L * H). */
  labels: { name: string; score: number }[];
}

export interface AblateResult extends Shaped {
  tool: 'ablate';
  target: TokenChoice;
  against: TokenChoice | null;
  before: PredictionRead;
  after: PredictionRead;
}

/** One part switched off alone and what it did to the target's logit (difference): negative = the prediction needed it. */
export interface RankEntry {
  part: 'head' | 'mlp';
  layer: number;
  /** The head (-1 for an MLP). */
  head: number;
  change: number;
}

export interface RankResult extends Shaped {
  tool: 'rank';
  target: TokenChoice;
  against: TokenChoice | null;
  /** The full run's logit (difference). */
  logit: number;
  /** Most needed first (the largest drop). */
  ranking: RankEntry[];
}

export interface LensResult extends Shaped {
  tool: 'lens';
  topK: number;
  /** (L, S, K): the top tokens after each layer, as text. */
  top: string[];
  /** (L, S, K): their probabilities. */
  probs: number[];
  /** (S): the model's final prediction at each position, as text. */
  prediction: string[];
  /** (L, S): that prediction's probability after each layer. */
  predictionProbs: number[];
}

export interface AttributeResult extends Shaped {
  tool: 'attribute';
  target: TokenChoice;
  against: TokenChoice | null;
  /** The tokens to choose from: the model's top predictions at the last position. */
  candidates: TokenChoice[];
  /** (L, H). */
  headParts: number[];
  /** (L). */
  mlpParts: number[];
  embed: number;
  biases: number;
  logit: number;
}

/** One patching map, exact and estimated: the share of the logit difference recovered, (L, cols). */
export interface PatchMaps {
  /** Columns: S (resid: each position's residual stream) or H (heads: each head's output at every position). */
  cols: number;
  exact: number[];
  /** Attribution patching's first-order estimate of the same. */
  estimate: number[];
  milliseconds: { exact: number; estimate: number };
}

export interface PatchResult extends Shaped {
  tool: 'patch';
  cleanTokens: string[];
  corruptedTokens: string[];
  /** The clean prompt's answer and the corrupted one's: the logit difference is logit(good) - logit(bad). */
  good: TokenChoice;
  bad: TokenChoice;
  /** logit(good) - logit(bad) on the clean and on the corrupted prompt. */
  difference: { clean: number; corrupted: number };
  maps: Record<PatchOver, PatchMaps>;
}

export type HeadsResult = DetectResult | AblateResult | RankResult | LensResult | AttributeResult | PatchResult;

export type HeadsOutcome =
  | { ok: true; result: HeadsResult; milliseconds: number }
  /** field: 'text' / 'clean' / 'corrupted' when what was typed is the problem; code 'aborted' when cancelled. */
  | { ok: false; error: string; field?: string; code?: string };

/** Progress of a long tool: done of total steps, and what is being done. */
export interface HeadsProgress {
  done: number;
  total: number;
  what: string;
}
