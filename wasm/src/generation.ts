// Generation you can step through (model.generate): each step draws a token from the
// model's next-token distribution (transformers' order: repetition penalty, temperature,
// top-k, top-p, min-p) and feeds it through the KV-cached forward, so a step costs one
// row. The engine keeps the cache; this file checks settings, decodes pieces and stop strings.
import { AttentionError, describeValue, fromEngine } from './errors.js';
import type { RawModel } from './model.js';
import type { GenerateOptions, GenerationStep, ModelSpec } from './types.js';

type RawError = { error?: { message: string; code: string; field: string } };

/** The settings as the engine reads them: every field present and checked. */
export interface CheckedGenerateOptions {
  ids: number[];
  maxNewTokens: number;
  temperature: number;
  topK: number;
  topP: number;
  minP: number;
  repetitionPenalty: number;
  seed: number;
  stopIds: number[];
}

/** The raw Embind generation (private: only this file and model.ts talk to it). */
export interface RawGeneration {
  error(): RawError | undefined;
  /** numbers: the step's scalars, then its candidates and cache bytes (Generation.step reads them). */
  step(top: number): RawError & { numbers?: Float64Array; attention?: Float32Array };
  fork(position: number, token: number): RawGeneration;
  tokens(): number[];
  promptLength(): number;
  done(): boolean;
  delete(): void;
}
export type RawGenerationClass = new (model: RawModel, settings: CheckedGenerateOptions) => RawGeneration;

/** A text decoder for pieces and stop strings (a Tokenizer has one). */
export interface Decoder {
  decode(ids: ArrayLike<number>): string;
}

const finalizer = new FinalizationRegistry<RawGeneration>((raw) => raw.delete());

// Each id's text, decoded once per decoder (a tokenizer) and kept for every generation that
// decoder serves (forks, new generations of the same model): a step shows its token and ten
// candidates, mostly ids seen before, and a decode is a call into the engine (about 5 µs).
const piecesByDecoder = new WeakMap<Decoder, Map<number, string>>();
function piecesOf(decoder: Decoder): Map<number, string> {
  let pieces = piecesByDecoder.get(decoder);
  if (!pieces) piecesByDecoder.set(decoder, (pieces = new Map()));
  return pieces;
}

function bad(field: string, value: unknown, rule: string): AttentionError {
  return new AttentionError(`${field} is ${describeValue(value)}; ${rule}`, { code: 'out_of_range', field, value });
}

function integer(value: unknown, field: string, min: number, max: number, rule: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max)
    throw bad(field, value, rule);
  return value;
}

function real(value: unknown, field: string, ok: (v: number) => boolean, rule: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || !ok(value)) throw bad(field, value, rule);
  return value;
}

/** Checks generate()'s options against the model; every failure is an AttentionError naming the field. */
export function checkGenerateOptions(
  options: GenerateOptions,
  spec: Readonly<ModelSpec>,
  decoder: Decoder | null,
): { checked: CheckedGenerateOptions; stopStrings: string[] } {
  if (typeof options !== 'object' || options === null)
    throw new AttentionError('generate takes an options object { ids, maxNewTokens, ... }', { field: 'options' });
  if (!spec.causal || (spec.encoderLayers ?? 0) > 0 || spec.head === 'none')
    throw new AttentionError('generate needs a causal model with an output head (a decoder-only model)', {
      field: 'model',
    });
  const idsIn = options.ids as unknown;
  if (!(Array.isArray(idsIn) || idsIn instanceof Int32Array || idsIn instanceof Uint32Array) || idsIn.length < 1)
    throw new AttentionError('ids must be a non-empty array of token ids', { field: 'ids', value: idsIn });
  const ids = Array.from(idsIn as ArrayLike<number>, (id, i) =>
    integer(id, `ids`, 0, spec.vocabSize - 1, `ids[${i}] must be a token id 0..${spec.vocabSize - 1}`),
  );
  if (ids.length >= spec.maxSeq)
    throw bad('ids', ids.length, `the prompt must leave room for a new token in the context of ${spec.maxSeq}`);
  const room = spec.maxSeq - ids.length;
  const maxNewTokens = integer(
    options.maxNewTokens ?? Math.min(16, room),
    'maxNewTokens',
    1,
    room,
    `it must be 1..${room} (the model's context is ${spec.maxSeq} and the prompt has ${ids.length} tokens)`,
  );
  const temperature = real(options.temperature ?? 1, 'temperature', (v) => v >= 0, 'it must be 0 (greedy) or more');
  const topK = integer(
    options.topK ?? 0,
    'topK',
    0,
    Number.MAX_SAFE_INTEGER,
    'it must be 0 (off) or a positive integer',
  );
  const topP = real(options.topP ?? 1, 'topP', (v) => v > 0 && v <= 1, 'it must be in (0, 1]');
  const minP = real(options.minP ?? 0, 'minP', (v) => v >= 0 && v <= 1, 'it must be in [0, 1]');
  const repetitionPenalty = real(
    options.repetitionPenalty ?? 1,
    'repetitionPenalty',
    (v) => v > 0,
    'it must be positive (1 = off)',
  );
  const seed = integer(options.seed ?? 0, 'seed', 0, Number.MAX_SAFE_INTEGER, 'it must be a non-negative integer');
  const stopIds: number[] = [];
  const stopStrings: string[] = [];
  const stop = options.stop ?? [];
  if (!Array.isArray(stop))
    throw new AttentionError('stop must be an array of token ids and strings', { field: 'stop', value: stop });
  for (const s of stop) {
    if (typeof s === 'string') {
      if (s.length === 0) throw bad('stop', s, 'a stop string must not be empty');
      if (!decoder)
        throw new AttentionError('stop strings need a tokenizer to decode the text; pass one, or stop ids', {
          field: 'stop',
          value: s,
        });
      stopStrings.push(s);
    } else {
      stopIds.push(integer(s, 'stop', 0, spec.vocabSize - 1, `stop ids must be token ids 0..${spec.vocabSize - 1}`));
    }
  }
  return {
    checked: { ids, maxNewTokens, temperature, topK, topP, minP, repetitionPenalty, seed, stopIds },
    stopStrings,
  };
}

/**
 * A generation in progress (see `model.generate`). Each `step()` adds one token; `fork`
 * branches; `dispose()` frees its cache in the engine.
 */
export class Generation {
  /** The number of tokens of the prompt (positions 0..promptLength-1). */
  readonly promptLength: number;
  #raw: RawGeneration | null;
  // The tokenizer's decoder with its pieces decoded so far (shared by every generation of the
  // tokenizer), or null without a tokenizer.
  readonly #text: { decoder: Decoder; pieces: Map<number, string> } | null;
  readonly #stopStrings: string[];
  readonly #topCount: number;
  #stopped = false;

  /** @internal Use `model.generate()`. */
  constructor(raw: RawGeneration, decoder: Decoder | null, stopStrings: string[], topCount: number) {
    const failure = raw.error();
    if (failure?.error) {
      raw.delete();
      throw fromEngine(failure.error);
    }
    this.#raw = raw;
    this.#text = decoder ? { decoder, pieces: piecesOf(decoder) } : null;
    this.#stopStrings = stopStrings;
    this.#topCount = topCount;
    this.promptLength = raw.promptLength();
    finalizer.register(this, raw, this);
  }

  #live(): RawGeneration {
    if (!this.#raw) throw new AttentionError('this generation was disposed', { code: 'disposed', field: 'generation' });
    return this.#raw;
  }

  #piece(id: number): string | null {
    if (!this.#text) return null;
    const { decoder, pieces } = this.#text;
    let piece = pieces.get(id);
    if (piece === undefined) pieces.set(id, (piece = decoder.decode([id])));
    return piece;
  }

  get disposed(): boolean {
    return this.#raw === null;
  }

  /** Every token so far: the prompt, then the generated ones. */
  get tokens(): number[] {
    return this.#live().tokens();
  }

  /** True after an end-of-sequence id, a stop string or maxNewTokens. */
  get done(): boolean {
    return this.#stopped || this.#live().done();
  }

  /** The next token, with the distribution it was drawn from and the new token's attention. */
  step(): GenerationStep {
    const raw = this.#live();
    if (this.#stopped)
      throw new AttentionError('this generation stopped at a stop string', {
        code: 'invalid_argument',
        field: 'generation',
      });
    const r = raw.step(this.#topCount);
    if (r.error) throw fromEngine(r.error);
    const n = r.numbers!;
    // The engine's order (generation_handle.hpp): token, position, entropy, heads, positions, ms,
    // done, the candidates' count K, their K ids, their K probabilities, the cache's bytes per layer.
    const [token, position, entropy, heads, positions, ms, engineDone, count] = n;
    const ids = 8,
      probabilities = ids + count,
      cacheBytes = probabilities + count; // where each run starts
    const piece = this.#piece(token);
    let done = engineDone === 1;
    if (this.#text && this.#stopStrings.length > 0) {
      const text = this.#text.decoder.decode(raw.tokens().slice(this.promptLength));
      if (this.#stopStrings.some((s) => text.includes(s))) this.#stopped = done = true;
    }
    // Views into the step's one (L, H, P) array (the engine's copy, owned by JS): no copy per head.
    const attention: Float32Array[][] = [];
    for (let l = 0; l * heads * positions < r.attention!.length; l++) {
      const layer: Float32Array[] = [];
      for (let h = 0; h < heads; h++) {
        const begin = (l * heads + h) * positions;
        layer.push(r.attention!.subarray(begin, begin + positions));
      }
      attention.push(layer);
    }
    const candidates: GenerationStep['candidates'] = [];
    for (let i = 0; i < count; i++) {
      const id = n[ids + i];
      candidates.push({ token: id, probability: n[probabilities + i], piece: this.#piece(id) });
    }
    return {
      token,
      position,
      piece,
      candidates,
      entropy,
      attention,
      cacheBytes: Array.from(n.subarray(cacheBytes)),
      ms,
      done,
    };
  }

  /**
   * A new generation with the same tokens before `position` and `token` at `position`
   * (0..tokens.length-1), the same settings and the sampler's state as it is now. It
   * shares nothing mutable with this one: step or dispose either freely.
   */
  fork(position: number, token: number): Generation {
    const raw = this.#live();
    const count = raw.tokens().length;
    if (typeof position !== 'number' || !Number.isInteger(position) || position < 0 || position >= count)
      throw bad('position', position, `it must be an existing position 0..${count - 1}`);
    if (typeof token !== 'number' || !Number.isInteger(token) || token < 0)
      throw bad('token', token, 'it must be a token id');
    return new Generation(raw.fork(position, token), this.#text?.decoder ?? null, this.#stopStrings, this.#topCount);
  }

  /** Frees the cache in the engine; using the generation afterwards throws. */
  dispose(): void {
    if (!this.#raw) return;
    finalizer.unregister(this);
    this.#raw.delete();
    this.#raw = null;
  }
}
