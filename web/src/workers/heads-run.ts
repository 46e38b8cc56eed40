// The "What heads do" view's work, where the engine runs (the page's worker; Node in tests):
// the head detectors, ablation and its ranking, the logit lens, direct logit attribution and
// activation patching, on the trained or pretrained model the worker already holds
// (trained-trace.ts, pretrained-run.ts). Long work (a ranking, patching) runs in steps that
// yield to the worker's message loop, so a cancel arrives between them; progress goes out
// after each. The ranking switches each part off in its own forward pass (model.ablationRanking
// computes the same in one call, without progress: tests/web/heads-run.test.ts compares them).
import type { HeadRef, HeadScoreKind, Model, PatchOptions, PretrainedModel } from 'attention-playground';
import { HEAD_SCORE_KINDS } from 'attention-playground';
import { headLabel } from '../model/head-patterns.js';
import type {
  AblateResult,
  AttributeResult,
  DetectResult,
  HeadsModelRef,
  HeadsOutcome,
  HeadsProgress,
  HeadsRequest,
  LensResult,
  PatchMaps,
  PatchResult,
  PredictionRead,
  RankEntry,
  RankResult,
  TokenChoice,
} from '../model/heads-results.js';
import { PATCH_OVER, type Ablation, type HeadRefState, type PatchOver } from '../model/heads-state.js';
import { parseProbeInput } from '../model/probe-input.js';
import { meanReference } from '../model/mean-reference.js';
import { candidateText, displayPiece } from './pretrained-run.js';
import { InputError } from './trained-trace.js';
import type { HeldModels } from './generation-run.js';

/** The detectors' random sequences: 16 of 2 x 7 tokens (docs/heads.md's numbers for the shipped induction model). */
const DETECTOR = { seed: 1, length: 7, batch: 16 };
/** Candidates offered as the token to explain. */
const CANDIDATES = 5;
const LENS_TOP = 3;

/** A model the worker holds, as the tools need it: its handle, how text becomes ids and how an id reads. */
interface Held {
  model: Model;
  layers: number;
  heads: number;
  causal: boolean;
  encode(text: string, field: string): Int32Array;
  /** The position whose prediction the tools read: the last token; in a masked-language model, its last [MASK] if any. */
  position(ids: Int32Array): number;
  tokenText(id: number): string;
  pieces(ids: Int32Array): string[];
}

/** Stops the run: the outcome says 'aborted'. */
class Aborted extends Error {}

/** The heads view's requests of the engine worker (api.ts EngineApi; the site's worker adds them: worker.ts). */
export interface HeadsApi {
  /** Runs one tool on a model held here, with progress out; a newer request replaces the one under way. */
  heads(request: HeadsRequest, onProgress: (p: HeadsProgress) => void): Promise<HeadsOutcome>;
  /** Stops the tool under way: it answers with code 'aborted'. */
  cancelHeads(): void;
}

/** The heads requests on the models an engine API holds (api.ts engineApi's `extend`). */
export function headsApi(held: HeldModels): HeadsApi {
  const runner = new HeadsRunner(held);
  return {
    async heads(request, onProgress) {
      try {
        await held.engine();
      } catch (error) {
        return { ok: false, error: `the engine did not load: ${String(error)}`, code: 'engine' };
      }
      return runner.run(request, onProgress);
    },
    cancelHeads: () => runner.cancel(),
  };
}

const pause = () => new Promise<void>((resolve) => setTimeout(resolve, 0));

export class HeadsRunner {
  #controller: AbortController | null = null;

  constructor(private readonly models: HeldModels) {}

  /** Stops the run under way, if any (it then answers with code 'aborted'). */
  cancel(): void {
    this.#controller?.abort();
  }

  async run(request: HeadsRequest, onProgress?: (p: HeadsProgress) => void): Promise<HeadsOutcome> {
    this.#controller?.abort(); // one run at a time: a newer request replaces the one under way
    const controller = new AbortController();
    this.#controller = controller;
    const started = performance.now();
    const step = async (done: number, total: number, what: string) => {
      onProgress?.({ done, total, what });
      await pause(); // lets a cancel message in
      if (controller.signal.aborted) throw new Aborted();
    };
    try {
      const held = await this.#held(request.model);
      if (controller.signal.aborted) throw new Aborted();
      const report = (p: HeadsProgress) => onProgress?.(p);
      const result = await this.#tool(held, request, step, controller.signal, report);
      return { ok: true, result, milliseconds: performance.now() - started };
    } catch (error) {
      if (error instanceof Aborted || controller.signal.aborted)
        return { ok: false, error: 'cancelled', code: 'aborted' };
      const e = error as { message?: string; code?: string; field?: string };
      const message = e?.message ?? String(error);
      if (error instanceof FieldError) return { ok: false, error: message, field: error.field };
      if (error instanceof InputError) return { ok: false, error: message, field: 'text' };
      return {
        ok: false,
        error: message,
        ...(e?.code ? { code: e.code } : {}),
        ...(e?.field ? { field: e.field } : {}),
      };
    } finally {
      if (this.#controller === controller) this.#controller = null;
    }
  }

  #tool(
    held: Held,
    request: HeadsRequest,
    step: (done: number, total: number, what: string) => Promise<void>,
    signal: AbortSignal,
    report: (p: HeadsProgress) => void,
  ) {
    switch (request.tool) {
      case 'detect':
        return this.#detect(held, request.text, step);
      case 'ablate':
        return Promise.resolve(ablate(held, request));
      case 'rank':
        return rank(held, request, step);
      case 'lens':
        return Promise.resolve(lens(held, request.text));
      case 'attribute':
        return Promise.resolve(attribute(held, request));
      case 'patch':
        return patch(held, request, step, signal, report);
    }
  }

  async #held(ref: HeadsModelRef): Promise<Held> {
    if ('trained' in ref) {
      const built = (await this.models.trained()).built(ref.trained);
      const { model } = built.trainer;
      const vocabulary = built.vocabulary;
      return {
        model,
        layers: model.spec.layers,
        heads: model.spec.heads,
        causal: model.spec.causal,
        encode(text, field) {
          const parsed = parseProbeInput(text.split('\n')[0], vocabulary, built.characters);
          if ('error' in parsed) throw new FieldError(parsed.error, field);
          if (parsed.ids.length > model.spec.maxSeq)
            throw new FieldError(`${parsed.ids.length} tokens: this model reads at most ${model.spec.maxSeq}.`, field);
          return Int32Array.from(parsed.ids);
        },
        position: (ids) => ids.length - 1,
        tokenText: (id) => vocabulary[id] ?? `#${id}`,
        pieces: (ids) => Array.from(ids, (id) => vocabulary[id] ?? `#${id}`),
      };
    }
    const loaded = (await this.models.pretrained()).loaded(ref.pretrained.key);
    if (!loaded)
      throw new Error(
        'This pretrained model is not loaded in this tab: load it on the Explore page (\u201cLoad a pretrained model\u2026\u201d), then come back.',
      );
    const { model, info } = loaded;
    return pretrainedHeld(model, info.family, info.maxSeq);
  }

  async #detect(
    held: Held,
    text: string,
    step: (done: number, total: number, what: string) => Promise<void>,
  ): Promise<DetectResult> {
    const { model, layers, heads } = held;
    const length = Math.min(DETECTOR.length, Math.floor(model.spec.maxSeq / 2));
    const detector = { ...DETECTOR, length };
    const scores = {} as Record<HeadScoreKind, number[]>;
    let done = 0;
    for (const kind of HEAD_SCORE_KINDS) {
      await step(done++, HEAD_SCORE_KINDS.length + 1, `${kind} detector`);
      scores[kind] = Array.from(model.headScores({ kind, ...detector }));
    }
    await step(done, HEAD_SCORE_KINDS.length + 1, 'pattern labels on the text');
    const ids = held.encode(text, 'text');
    const tokens = held.pieces(ids);
    const stack = held.causal ? 'decoder' : 'encoder';
    const name = `${stack}.self_attn.weights`;
    const run = model.forward({ ids, batch: 1, seq: ids.length, logits: 'none', record: { stages: [name] } });
    const labels: DetectResult['labels'] = [];
    const seq = ids.length;
    for (let layer = 0; layer < layers; layer++) {
      const stage = run.trace!.stages.find((s) => s.name === name && s.layer === layer);
      for (let head = 0; head < heads; head++) {
        if (!stage || seq < 2) {
          labels.push({ name: 'unclear', score: 0 });
          continue;
        }
        // weights: (B = 1, H, S, S)
        const weights = stage.data.subarray(head * seq * seq, (head + 1) * seq * seq);
        const label = headLabel(weights, seq, tokens);
        labels.push({ name: label.name, score: label.score });
      }
    }
    return { tool: 'detect', tokens, layers, heads, scores, detector, labels };
  }
}

/** A problem with one typed box (field: 'text', 'clean', 'corrupted'). */
class FieldError extends Error {
  constructor(
    message: string,
    readonly field: string,
  ) {
    super(message);
  }
}

function pretrainedHeld(loaded: PretrainedModel, family: PretrainedModel['family'], maxSeq: number): Held {
  const { model, tokenizer } = loaded;
  return {
    model,
    layers: model.spec.layers,
    heads: model.spec.heads,
    causal: model.spec.causal,
    encode(text, field) {
      if (text.trim() === '') throw new FieldError('Type some text first.', field);
      const { ids } = tokenizer.encode(text);
      if (ids.length > maxSeq)
        throw new FieldError(`The text is ${ids.length} tokens long; this model reads at most ${maxSeq}.`, field);
      return ids;
    },
    position(ids) {
      const mask = model.spec.causal ? null : tokenizer.idOf('[MASK]');
      const at = mask === null ? -1 : ids.lastIndexOf(mask);
      return at >= 0 ? at : ids.length - 1;
    },
    tokenText: (id) => candidateText(tokenizer.decode([id]), id, family),
    pieces: (ids) => Array.from(ids, (id) => displayPiece(tokenizer.decode([id]), tokenizer.decode([id]), family)),
  };
}

/** The logits (V) at the position the tools read (Held.position) of a run with these ablations. */
function lastLogits(held: Held, ids: Int32Array, heads: HeadRef[], mlps: number[], ablation: Ablation): Float32Array {
  const result = ablatedForward(held.model, ids, held.position(ids), heads, mlps, ablation);
  if (!result) throw new Error('This model has no output head: there is no prediction to change.');
  return result;
}

function softmaxAt(logits: Float32Array, id: number): number {
  let max = -Infinity;
  for (const v of logits) if (v > max) max = v;
  let sum = 0;
  for (const v of logits) sum += Math.exp(v - max);
  return Math.exp(logits[id] - max) / sum;
}

function topChoices(held: Held, logits: Float32Array, k: number): TokenChoice[] {
  let max = -Infinity;
  for (const v of logits) if (v > max) max = v;
  let sum = 0;
  for (const v of logits) sum += Math.exp(v - max);
  const best: number[] = [];
  for (let id = 0; id < logits.length; id++) {
    if (best.length < k || logits[id] > logits[best[best.length - 1]]) {
      best.push(id);
      best.sort((a, b) => logits[b] - logits[a] || a - b);
      if (best.length > k) best.pop();
    }
  }
  return best.map((id) => ({ id, token: held.tokenText(id), probability: Math.exp(logits[id] - max) / sum }));
}

function choice(held: Held, logits: Float32Array, id: number): TokenChoice {
  if (!(id >= 0 && id < logits.length))
    throw new FieldError(`token ${id} is not in this model's vocabulary (0..${logits.length - 1})`, 'token');
  return { id, token: held.tokenText(id), probability: softmaxAt(logits, id) };
}

function read(held: Held, logits: Float32Array, target: number, against: number | null): PredictionRead {
  return {
    top: topChoices(held, logits, CANDIDATES),
    probability: softmaxAt(logits, target),
    logit: logits[target] - (against === null ? 0 : logits[against]),
  };
}

/** The target (the chosen token, else the full run's prediction) and the against token of a request. */
function targetOf(held: Held, base: Float32Array, token: number | null, against: number | null) {
  const target = choice(held, base, token ?? topChoices(held, base, 1)[0].id);
  return { target, against: against === null ? null : choice(held, base, against) };
}

function ablate(held: Held, request: Extract<HeadsRequest, { tool: 'ablate' }>): AblateResult {
  const ids = held.encode(request.text, 'text');
  const base = lastLogits(held, ids, [], [], 'zero');
  const { target, against } = targetOf(held, base, request.token, request.against);
  checkHeads(held, request.heads, request.mlps);
  const after = lastLogits(held, ids, request.heads, request.mlps, request.ablation);
  return {
    tool: 'ablate',
    tokens: held.pieces(ids),
    layers: held.layers,
    heads: held.heads,
    target,
    against,
    before: read(held, base, target.id, against?.id ?? null),
    after: read(held, after, target.id, against?.id ?? null),
  };
}

function checkHeads(held: Held, heads: HeadRefState[], mlps: number[]): void {
  for (const h of heads)
    if (h.layer >= held.layers || h.head >= held.heads)
      throw new FieldError(
        `head ${h.layer}.${h.head} is not in this model (${held.layers} layers of ${held.heads} heads)`,
        'ablate',
      );
  for (const layer of mlps)
    if (layer >= held.layers)
      throw new FieldError(`layer ${layer} is not in this model (${held.layers} layers)`, 'mlps');
}

async function rank(
  held: Held,
  request: Extract<HeadsRequest, { tool: 'rank' }>,
  step: (done: number, total: number, what: string) => Promise<void>,
): Promise<RankResult> {
  const ids = held.encode(request.text, 'text');
  const base = lastLogits(held, ids, [], [], 'zero');
  const { target, against } = targetOf(held, base, request.token, request.against);
  const measure = (logits: Float32Array) => logits[target.id] - (against ? logits[against.id] : 0);
  const full = measure(base);
  const parts: Omit<RankEntry, 'change'>[] = [];
  for (let layer = 0; layer < held.layers; layer++)
    for (let head = 0; head < held.heads; head++) parts.push({ part: 'head', layer, head });
  for (let layer = 0; layer < held.layers; layer++) parts.push({ part: 'mlp', layer, head: -1 });
  const ranking: RankEntry[] = [];
  for (const [i, part] of parts.entries()) {
    if (i % 4 === 0) await step(i, parts.length, 'switching off each part in turn');
    const logits =
      part.part === 'head'
        ? lastLogits(held, ids, [{ layer: part.layer, head: part.head }], [], request.ablation)
        : lastLogits(held, ids, [], [part.layer], request.ablation);
    ranking.push({ ...part, change: measure(logits) - full });
  }
  ranking.sort((a, b) => a.change - b.change);
  return {
    tool: 'rank',
    tokens: held.pieces(ids),
    layers: held.layers,
    heads: held.heads,
    target,
    against,
    logit: full,
    ranking,
  };
}

function lens(held: Held, text: string): LensResult {
  const ids = held.encode(text, 'text');
  const result = held.model.logitLens({ ids, topK: LENS_TOP });
  return {
    tool: 'lens',
    tokens: held.pieces(ids),
    layers: result.layers,
    heads: held.heads,
    topK: result.topK,
    top: Array.from(result.topIds, (id) => held.tokenText(id)),
    probs: Array.from(result.topProbs),
    prediction: Array.from(result.prediction, (id) => held.tokenText(id)),
    predictionProbs: Array.from(result.predictionProbs),
  };
}

function attribute(held: Held, request: Extract<HeadsRequest, { tool: 'attribute' }>): AttributeResult {
  const ids = held.encode(request.text, 'text');
  const base = lastLogits(held, ids, [], [], 'zero');
  const { target, against } = targetOf(held, base, request.token, request.against);
  const parts = held.model.logitAttribution({
    ids,
    position: held.position(ids),
    token: target.id,
    ...(against ? { against: against.id } : {}),
  });
  return {
    tool: 'attribute',
    tokens: held.pieces(ids),
    layers: held.layers,
    heads: held.heads,
    target,
    against,
    candidates: topChoices(held, base, CANDIDATES),
    headParts: Array.from(parts.heads),
    mlpParts: Array.from(parts.mlps),
    embed: parts.embed,
    biases: parts.biases,
    logit: parts.logit,
  };
}

async function patch(
  held: Held,
  request: Extract<HeadsRequest, { tool: 'patch' }>,
  step: (done: number, total: number, what: string) => Promise<void>,
  signal: AbortSignal,
  report: (p: HeadsProgress) => void,
): Promise<PatchResult> {
  const clean = held.encode(request.clean, 'clean');
  const corrupted = held.encode(request.corrupted, 'corrupted');
  if (clean.length !== corrupted.length)
    throw new FieldError(
      `The prompts differ in length: the clean one is ${clean.length} tokens, the corrupted one ${corrupted.length}. ` +
        'Patching swaps position for position, so both need the same number of tokens: change a word for one of the same length in tokens.',
      'corrupted',
    );
  const cleanLogits = lastLogits(held, clean, [], [], 'zero');
  const corruptedLogits = lastLogits(held, corrupted, [], [], 'zero');
  const good = topChoices(held, cleanLogits, 1)[0];
  let bad = topChoices(held, corruptedLogits, 1)[0];
  if (bad.id === good.id) bad = topChoices(held, cleanLogits, 2)[1];
  const options = { clean, corrupted, position: held.position(clean), tokens: [good.id, bad.id] as [number, number] };
  // Four runs, each a step of the progress: exact and attribution patching over the residual stream, then over heads.
  const maps = {} as Record<PatchOver, PatchMaps>;
  const total = PATCH_OVER.length * 2;
  let done = 0;
  for (const over of PATCH_OVER) {
    const what = over === 'resid' ? 'the residual stream' : 'each head';
    await step(done, total, `exact patching of ${what}`);
    const at = done;
    const t0 = performance.now();
    const exact = await patchMap(held.model, { ...options, over, method: 'exact' }, signal, (share) =>
      report({ done: at + share, total, what: `exact patching of ${what}` }),
    );
    const t1 = performance.now();
    await step(++done, total, `attribution patching of ${what}`);
    const estimate = await patchMap(held.model, { ...options, over, method: 'attribution' }, signal, () => {});
    const t2 = performance.now();
    done++;
    maps[over] = {
      cols: over === 'resid' ? clean.length : held.heads,
      exact: Array.from(exact),
      estimate: Array.from(estimate),
      milliseconds: { exact: t1 - t0, estimate: t2 - t1 },
    };
  }
  const measure = (logits: Float32Array) => logits[good.id] - logits[bad.id];
  return {
    tool: 'patch',
    tokens: held.pieces(clean),
    layers: held.layers,
    heads: held.heads,
    cleanTokens: held.pieces(clean),
    corruptedTokens: held.pieces(corrupted),
    good: { ...good, probability: softmaxAt(cleanLogits, good.id) },
    bad: { ...bad, probability: softmaxAt(corruptedLogits, bad.id) },
    difference: { clean: measure(cleanLogits), corrupted: measure(corruptedLogits) },
    maps,
  };
}

/** The logits (V) at `position` with heads and MLPs switched off, or null without an output head. */
function ablatedForward(
  model: Model,
  ids: Int32Array,
  position: number,
  heads: HeadRef[],
  mlps: number[],
  ablation: Ablation,
): Float32Array | null {
  const ablating = heads.length > 0 || mlps.length > 0;
  const last = position === ids.length - 1;
  const result = model.forward({
    ids,
    batch: 1,
    seq: ids.length,
    // The last row alone where that is the one read (GPT-2's output layer is a third of its forward).
    logits: last ? 'last' : 'all',
    ...(heads.length ? { ablate: heads } : {}),
    ...(mlps.length ? { ablateMlps: mlps } : {}),
    ...(ablating && ablation === 'mean'
      ? { ablation: 'mean' as const, meanOver: meanReference(model.spec.vocabSize, ids.length) }
      : {}),
  });
  if (!result.logits) return null;
  const vocab = model.spec.vocabSize;
  return last ? result.logits : result.logits.subarray(position * vocab, (position + 1) * vocab);
}

/** The (L, S) or (L, H) patching map of one method; progress as a share 0..1 of the run. */
async function patchMap(
  model: Model,
  options: PatchOptions,
  signal: AbortSignal,
  progress: (share: number) => void,
): Promise<Float32Array> {
  const result = await model.patch({
    ...options,
    signal,
    onProgress: (p) => progress(p.total ? p.done / p.total : 0),
  });
  return result.recovered;
}
