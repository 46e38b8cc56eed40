// A generation where the engine runs (the page's worker; Node in tests), for the Generate
// panel (generate/generate-panel.ts): opened on a model the worker holds (the loaded
// pretrained checkpoint, or a trained toy decoder), a prompt (text, or chat turns the
// model's template renders) and a branch (token ids after the prompt); then stepped, one
// message per step, until the count asked, the end, or a stop. Between steps the loop
// yields to the worker's message queue, so a stop is read at once (within one step).
// Opening again (another branch, other settings) or disposing frees the engine's cache:
// the heap is back where it was. The branch's attention (prompt and path rows, every layer
// and head) comes from one recorded forward; each new token's row from its step. A branch
// whose distributions the page has not seen (a link's) is opened with `replay`: stepped
// through token by token, each step forced to the branch's token (a fork where the sampler
// drew another), so its candidates, the cache and the steps' times come back too.
import type { AttentionEngine, Generation, GenerationStep, Model } from 'attention-playground';
import type { SamplerSettings } from '../model/generation-state.js';
import { TOP_CANDIDATES } from '../model/next-token.js';
import { parseProbeInput } from '../model/probe-input.js';
import { longestShown } from '../model/recorded-stages.js';
import { tokenLabel } from '../model/token-label.js';
import type { PretrainedModels } from './pretrained-run.js';
import { NOT_LOADED, candidateText, displayPiece } from './pretrained-run.js';
import { InputError, type TrainedModelRef, type TrainedModels } from './trained-trace.js';

/** The model to generate with: the pretrained checkpoint loaded under `key`, or a trained model. */
export type GenerationSource = { pretrained: { key: string } } | { trained: TrainedModelRef };

export interface GenerationOpen {
  source: GenerationSource;
  /** Text, or chat turns ("role: text" lines) when `chat` and the model has a chat template. */
  prompt: string;
  chat: boolean;
  /** The prompt as token ids, in place of `prompt` (which is then ignored). */
  ids?: number[];
  settings: SamplerSettings;
  /** The branch: token ids after the prompt. */
  path: number[];
  /**
   * Step through the branch's tokens (forced: where the sampler draws another, the generation forks to the branch's
   * token), so each of its tokens comes with the distribution it was chosen from and the cache as it grew (a link
   * reopened); false: one prefill, the distributions are not known.
   */
  replay?: boolean;
  /** Token ids whose text the page wants (a link's other branches, for the tree's labels). */
  names?: number[];
}

/** A token of the branch stepped through again (GenerationOpen's replay): what its step showed. */
export interface ReplayedStep {
  position: number;
  candidates: StepView['candidates'];
  entropy: number;
  ms: number;
}

/** The model's shape as the panel draws it. */
export interface GenerationModelFacts {
  name: string;
  layers: number;
  /** Query heads (H) and key/value heads (H_kv, fewer with grouped-query attention), each d_h wide. */
  heads: number;
  kvHeads: number;
  headDim: number;
  /** A sliding window in tokens (0: none), and which layers have it (ModelSpec's windowPattern). */
  window: number;
  windowPattern: number;
  maxSeq: number;
  vocabSize: number;
}

export type GenerationFailure = { ok: false; error: string; field: string };

export interface GenerationOpened {
  ok: true;
  model: GenerationModelFacts;
  /** The tokens of prompt + path as shown (pieces), and their ids. */
  tokens: string[];
  ids: number[];
  promptLength: number;
  /** With chat turns: the text the template rendered (what the model reads). */
  rendered?: string;
  /** What goes between two tokens shown in a row: ' ' for a trained model's word tokens, else '' (pieces carry their spaces). */
  separator: string;
  /** (L, H, S, S) softmax weights of prompt + path, from one recorded forward; null past the longest text whose
   *  weights the page shows (recorded-stages.ts longestShown): then only the new tokens' rows are drawn. */
  attention: Float32Array | null;
  /** No step can follow: the branch used the new tokens allowed, or the model's context. */
  done: boolean;
  /** New tokens this branch may still add. */
  remaining: number;
  heapBytes: number;
  /** With replay: each branch token's step, in order, and the cache's bytes per layer after the last. */
  replayed: ReplayedStep[];
  cacheBytes: number[];
  /** The text of each of GenerationOpen's `names`. */
  names: string[];
}

/** One step as it crosses to the page. */
export interface StepView {
  token: number;
  position: number;
  text: string;
  /** The distribution the token was drawn from, top TOP_CANDIDATES, descending. */
  candidates: { token: number; probability: number; text: string }[];
  entropy: number;
  /** (L, H, position + 1): the new token's softmax row per layer and head. */
  attention: Float32Array;
  /** K and V bytes per layer after the step. */
  cacheBytes: number[];
  /** The step's time in the engine. */
  ms: number;
  done: boolean;
}

export interface RunEnded {
  ok: true;
  steps: number;
  /** Stopped by a stop request (not by the end or the count). */
  stopped: boolean;
  done: boolean;
  heapBytes: number;
}

/** The worker's generation requests (EngineApi's generation* methods). */
export interface GenerationApi {
  generationOpen(input: GenerationOpen): Promise<GenerationOpened | GenerationFailure>;
  /** Steps up to `count` times, calling onStep after each; ends early at the end or on generationStop(). */
  generationRun(count: number, onStep: (step: StepView) => void | Promise<void>): Promise<RunEnded | GenerationFailure>;
  generationStop(): void;
  /** Frees the generation; answers the engine's heap bytes afterwards. */
  generationDispose(): Promise<number>;
}

/** The engine and the models an engine API holds (workers/api.ts engineApi), which generation uses. */
export interface HeldModels {
  engine(): Promise<AttentionEngine>;
  pretrained(): Promise<PretrainedModels>;
  trained(): Promise<TrainedModels>;
}

/**
 * Steps posted to the page and not yet acknowledged, at most: one, so a Stop pressed on the page ends the run after
 * the step in flight (at most one more token than the page showed), never after steps already computed ahead.
 */
const STEPS_AHEAD = 1;

interface Session {
  generation: Generation | null;
  text: (id: number) => string;
}

function failure(error: unknown): GenerationFailure {
  const e = error as { message?: string; field?: string };
  return {
    ok: false,
    error: e?.message ?? String(error),
    field: error instanceof InputError ? 'prompt' : (e?.field ?? ''),
  };
}

/** The checkpoint loaded under `key`; Error when another one (or none) is loaded now. */
function loadedOrThrow(models: PretrainedModels, key: string) {
  const held = models.loaded(key);
  if (!held) throw new Error(NOT_LOADED);
  return held;
}

/** The softmax weights of `ids` in every layer, packed (L, H, S, S). */
function recordedAttention(model: Model, ids: number[], layers: number, heads: number): Float32Array {
  const seq = ids.length;
  const result = model.forward({
    ids: Int32Array.from(ids),
    batch: 1,
    seq,
    logits: 'none',
    record: { stages: ['decoder.self_attn.weights'] },
  });
  const out = new Float32Array(layers * heads * seq * seq);
  for (const stage of result.trace?.stages ?? [])
    if (stage.name === 'decoder.self_attn.weights')
      out.set(stage.data.subarray(0, heads * seq * seq), stage.layer * heads * seq * seq);
  return out;
}

export class GenerationRuns implements GenerationApi {
  #session: Session | null = null;
  #stop = false;

  readonly #held: HeldModels;

  constructor(held: HeldModels) {
    this.#held = held;
  }

  private engine() {
    return this.#held.engine();
  }
  private pretrained() {
    return this.#held.pretrained();
  }
  private trained() {
    return this.#held.trained();
  }

  async generationOpen(input: GenerationOpen): Promise<GenerationOpened | GenerationFailure> {
    this.#free();
    const engine = await this.engine();
    try {
      const { model, name, promptIds, promptTokens, text, rendered, eos, decode, separator } =
        await this.#resolve(input);
      const { spec } = model;
      if (!spec.causal || spec.head === 'none')
        return { ok: false, error: `${name} is not a causal language model: it cannot generate.`, field: 'model' };
      const ids = [...promptIds, ...input.path];
      const outside = (list: number[]) =>
        list.findIndex((id) => !Number.isInteger(id) || id < 0 || id >= spec.vocabSize);
      if (input.ids && (input.ids.length === 0 || outside(input.ids) >= 0))
        return {
          ok: false,
          error: `The prompt's ids must be 1 or more token ids 0..${spec.vocabSize - 1}.`,
          field: 'ids',
        };
      const bad = outside(input.path);
      if (bad >= 0)
        return {
          ok: false,
          error: `The branch's token ${bad + 1} (${input.path[bad]}) is not in the vocabulary.`,
          field: 'path',
        };
      if (ids.length > spec.maxSeq)
        return {
          ok: false,
          error: `The prompt and branch are ${ids.length} tokens; ${name} reads at most ${spec.maxSeq}.`,
          field: 'prompt',
        };
      const kvHeads = spec.kvHeads || spec.heads;
      const headDim = spec.headDim || spec.dModel / spec.heads;
      const attention =
        ids.length <= longestShown(spec, 'none') ? recordedAttention(model, ids, spec.layers, spec.heads) : null;
      const remaining = Math.min(input.settings.maxNewTokens - input.path.length, spec.maxSeq - ids.length);
      const options = {
        ...input.settings,
        stop: eos === null ? [] : [eos],
        topCandidates: Math.min(TOP_CANDIDATES, spec.vocabSize),
        tokenizer: { decode },
      };
      const session: Session = { generation: null, text };
      this.#session = session;
      const replayed: ReplayedStep[] = [];
      let cacheBytes: number[] = [];
      if (input.replay && input.path.length > 0 && promptIds.length < spec.maxSeq) {
        // The budget counts from the prompt: the branch's tokens, then what the settings allow after them.
        const budget = Math.min(
          Math.max(input.settings.maxNewTokens, input.path.length),
          spec.maxSeq - promptIds.length,
        );
        session.generation = model.generate({ ids: promptIds, ...options, maxNewTokens: budget });
        for (const [i, token] of input.path.entries()) {
          const position = promptIds.length + i;
          if (session.generation.done)
            session.generation = this.#forked(session.generation, position - 1, ids[position - 1]);
          const step = session.generation.step();
          if (step.token !== token) session.generation = this.#forked(session.generation, position, token);
          const view = this.#view(step, session);
          replayed.push({ position, candidates: view.candidates, entropy: view.entropy, ms: view.ms });
          cacheBytes = step.cacheBytes;
          // Between steps the worker reads its messages: a newer open (another branch) ends this one.
          await new Promise((resolve) => setTimeout(resolve, 0));
          if (this.#session !== session)
            return { ok: false, error: 'Another branch was opened meanwhile.', field: 'superseded' };
        }
        if (remaining <= 0) {
          session.generation.dispose();
          session.generation = null;
        }
      } else if (remaining > 0) session.generation = model.generate({ ids, ...options, maxNewTokens: remaining });
      const { generation } = session;
      return {
        ok: true,
        model: {
          name,
          layers: spec.layers,
          heads: spec.heads,
          kvHeads,
          headDim,
          window: spec.window,
          windowPattern: spec.windowPattern,
          maxSeq: spec.maxSeq,
          vocabSize: spec.vocabSize,
        },
        tokens: [...promptTokens, ...input.path.map(text)],
        ids,
        promptLength: promptIds.length,
        rendered,
        separator,
        attention,
        done: generation === null || generation.done,
        remaining: Math.max(remaining, 0),
        heapBytes: engine.heapBytesInUse(),
        replayed,
        cacheBytes,
        names: (input.names ?? []).map((id) =>
          Number.isInteger(id) && id >= 0 && id < spec.vocabSize ? text(id) : `#${id}`,
        ),
      };
    } catch (error) {
      this.#free();
      return failure(error);
    }
  }

  async generationRun(
    count: number,
    onStep: (step: StepView) => void | Promise<void>,
  ): Promise<RunEnded | GenerationFailure> {
    const session = this.#session;
    const engine = await this.engine();
    if (!session)
      return { ok: false, error: 'No generation is open: press Generate or Step again.', field: 'generation' };
    this.#stop = false;
    let steps = 0;
    // Across the worker boundary onStep answers once the page has the step: at most STEPS_AHEAD
    // steps are on their way, so they never run ahead of the page, and the run's end waits
    // for them all (it never overtakes its last step).
    const delivering: Promise<void>[] = [];
    try {
      while (steps < count && session.generation && !session.generation.done && !this.#stop) {
        const step = session.generation.step();
        steps++;
        delivering.push(Promise.resolve(onStep(this.#view(step, session))));
        if (delivering.length >= STEPS_AHEAD) await delivering.shift();
        // Between steps the worker reads its messages: a stop, or a new branch, takes effect here.
        await new Promise((resolve) => setTimeout(resolve, 0));
        if (this.#session !== session) break;
      }
      await Promise.all(delivering);
    } catch (error) {
      return failure(error);
    }
    const live = this.#session === session && session.generation !== null;
    return {
      ok: true,
      steps,
      stopped: this.#stop,
      done: !live || session.generation!.done,
      heapBytes: engine.heapBytesInUse(),
    };
  }

  generationStop(): void {
    this.#stop = true;
  }

  async generationDispose(): Promise<number> {
    this.#free();
    return (await this.engine()).heapBytesInUse();
  }

  /** `generation` with `token` at `position` in place of the token drawn there (the old one freed). */
  #forked(generation: Generation, position: number, token: number): Generation {
    const forked = generation.fork(position, token);
    generation.dispose();
    return forked;
  }

  #free(): void {
    this.#session?.generation?.dispose();
    this.#session = null;
  }

  #view(step: GenerationStep, session: Session): StepView {
    const layers = step.attention.length,
      heads = step.attention[0]?.length ?? 0,
      width = step.position + 1;
    const attention = new Float32Array(layers * heads * width); // (L, H, P)
    step.attention.forEach((layer, l) =>
      layer.forEach((row, h) => attention.set(row.subarray(0, width), (l * heads + h) * width)),
    );
    return {
      token: step.token,
      position: step.position,
      text: session.text(step.token),
      candidates: step.candidates.map((c) => ({
        token: c.token,
        probability: c.probability,
        text: session.text(c.token),
      })),
      entropy: step.entropy,
      attention,
      cacheBytes: step.cacheBytes,
      ms: step.ms,
      done: step.done,
    };
  }

  /** The model, the prompt's ids and pieces, and how a token shows. */
  async #resolve(input: GenerationOpen) {
    if ('pretrained' in input.source) {
      const models = await this.pretrained();
      const given = input.ids;
      const { model, info, encoding, rendered } = given
        ? { ...loadedOrThrow(models, input.source.pretrained.key), encoding: null, rendered: undefined }
        : await models.encode({ pretrained: input.source.pretrained, text: input.prompt, chat: input.chat });
      const tokenizer = model.tokenizer;
      // One form for a token wherever the panel writes it (the text, the bars, the tree), as the heatmaps' labels
      // write it (model/token-label.ts): a control character as its escape ('\x03', '↵'), a byte that is only
      // part of a character as '⟨id⟩' (candidateText), in the prompt as in what is generated.
      const text = (id: number) => tokenLabel(candidateText(tokenizer.decode([id]), id, info.family, true));
      const promptToken = (piece: string, id: number) => {
        const decoded = tokenizer.decode([id]);
        return decoded.includes('\uFFFD') ? text(id) : tokenLabel(displayPiece(piece, decoded, info.family));
      };
      return {
        model: model.model,
        name: info.name,
        promptIds: given ?? Array.from(encoding!.ids),
        promptTokens: given
          ? given.map(text)
          : encoding!.tokens.map((piece, i) => promptToken(piece, encoding!.ids[i])),
        text,
        rendered,
        eos: tokenizer.specialTokens.eos,
        decode: (ids: ArrayLike<number>) => tokenizer.decode(ids),
        separator: '',
      };
    }
    const built = (await this.trained()).built(input.source.trained);
    const text = (id: number) => tokenLabel(built.vocabulary[id] ?? `#${id}`);
    let promptIds = input.ids;
    if (!promptIds) {
      const line = input.prompt.split('\n')[0] ?? '';
      const parsed = parseProbeInput(built.characters ? line : line.trim(), built.vocabulary, built.characters);
      if ('error' in parsed) throw new InputError(parsed.error);
      if (parsed.ids.length === 0) throw new InputError('Type some tokens first.');
      promptIds = parsed.ids;
    }
    return {
      model: built.trainer.model,
      name: 'the trained model',
      promptIds,
      promptTokens: promptIds.map(text),
      text,
      rendered: undefined,
      eos: null,
      decode: (ids: ArrayLike<number>) => Array.from(ids, text).join(built.characters ? '' : ' '),
      separator: built.characters ? '' : ' ',
    };
  }
}
