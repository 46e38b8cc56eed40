// A pretrained GPT-2 or BERT checkpoint on the Explore page, where the engine runs (the
// page's worker): loaded from the person's files or a hub URL (engine.loadPretrained),
// with progress and cancelling across the worker boundary, one model kept at a time; run
// on the typed text with its own tokenizer, the attention stages recorded, and the
// model's prediction (GPT-2: the next token; BERT: each [MASK]) read off the logits here,
// so the (S, V) logits never cross to the page.
import type { AttentionEngine, ModelConfig, PretrainedModel, Trace } from 'attention-playground';
import type { Family } from 'attention-playground';
import {
  familyTokenizer,
  type LoadOutcome,
  type Prediction,
  type PretrainedInfo,
  type PretrainedProgress,
  type PretrainedSource,
} from '../model/pretrained-info.js';
import { InputError } from './trained-trace.js';
import { pieceText } from '../model/token-label.js';
import { parseTurns, type ChatTurn } from '../model/chat-turns.js';
import { DEFAULT_Q8_ACTIVATIONS, DEFAULT_WEIGHTS } from '../model/weights-modes.js';
import {
  longestShown,
  longestWithStages,
  recordedFor,
  recordPatterns,
  type Recorded,
} from '../model/recorded-stages.js';

/** Whether the checkpoint's tokenizer files carry a chat template. */
function hasChatTemplate(model: PretrainedModel): boolean {
  return model.tokenizer.chatTemplate !== null;
}

/** The turns as the model's chat template writes them, ending with the assistant's turn opened for its reply. */
async function renderChat(model: PretrainedModel, turns: ChatTurn[]): Promise<string> {
  try {
    return await model.tokenizer.applyChatTemplate(turns, { addGenerationPrompt: true });
  } catch (error) {
    throw new InputError(
      `The model\u2019s chat template refused these turns: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/** The rendered text's tokens: it already holds the template's special tokens, so none are added (as HF's apply_chat_template). */
function encodeRendered(model: PretrainedModel, text: string) {
  return model.tokenizer.encode(text, { addSpecialTokens: false });
}

export interface PretrainedRunInput {
  pretrained: { key: string };
  text: string;
  /** The text is chat turns (model/chat-turns.ts), for the model's chat template to render. */
  chat?: boolean;
}

export interface PretrainedTrace {
  trace: Trace;
  predictions: Prediction[];
  /** Which stages were recorded: fewer for a long text (model/recorded-stages.ts). */
  recorded: Recorded;
  /** The longest text whose run keeps every attention stage (what a view left without them says). */
  stagesUpTo: number;
  /** With chat turns: the text the template rendered, special tokens included (what the model read). */
  rendered?: string;
}

/** What a request for a checkpoint no longer held is told. */
export const NOT_LOADED = 'This pretrained model is no longer loaded (only one is kept at a time): load it again.';

export function isPretrainedRun(input: object): input is PretrainedRunInput {
  return 'pretrained' in input;
}

const TOP = 5;

/** How a piece shows (model/token-label.ts pieceText): its text with a leading space as '·', a WordPiece piece as it is. */
export function displayPiece(piece: string, decoded: string, family: Family): string {
  return pieceText(piece, decoded, familyTokenizer(family) === 'wordpiece');
}

/**
 * A candidate token as text: decoded (GPT-2's leading space as '·'); a GPT-2 piece that is only part of a character
 * says so ('short': as '⟨id⟩', for a running text).
 */
export function candidateText(decoded: string, id: number, family: Family, short = false): string {
  if (familyTokenizer(family) !== 'wordpiece' && (decoded === '' || decoded.includes('\uFFFD')))
    return short ? `\u27e8${id}\u27e9` : `(bytes of a character, id ${id})`;
  return displayPiece(decoded, decoded, family);
}

export class PretrainedModels {
  #engine: AttentionEngine;
  #model: PretrainedModel | null = null;
  #info: PretrainedInfo | null = null;
  #loading: AbortController | null = null;
  #count = 0;

  constructor(engine: AttentionEngine) {
    this.#engine = engine;
  }

  /** Loads a checkpoint; the one loaded before is kept until this one is ready, then freed. */
  async load(source: PretrainedSource, onProgress?: (p: PretrainedProgress) => void): Promise<LoadOutcome> {
    this.#loading?.abort();
    const controller = new AbortController();
    this.#loading = controller;
    // At most one progress message per file every 100 ms (and its last), not one per network chunk.
    let lastFile = '',
      lastTime = 0;
    const progress = (p: PretrainedProgress) => {
      const now = performance.now();
      if (p.file === lastFile && now - lastTime < 100 && p.loaded !== p.total) return;
      lastFile = p.file;
      lastTime = now;
      onProgress?.({ file: p.file, loaded: p.loaded, total: p.total });
    };
    try {
      const held = {
        ...(source.weights ? { weights: source.weights } : {}),
        ...(source.q8Activations ? { q8Activations: source.q8Activations } : {}),
      };
      const model =
        'files' in source
          ? await this.#engine.loadPretrained({
              files: source.files,
              onProgress: progress,
              signal: controller.signal,
              ...held,
            })
          : await this.#engine.loadPretrained({
              repo: source.repo,
              baseUrl: source.baseUrl,
              onProgress: progress,
              signal: controller.signal,
              ...held,
            });
      if (controller.signal.aborted) {
        model.dispose();
        return { ok: false, error: 'loading the model was cancelled', code: 'aborted', field: 'signal' };
      }
      this.#model?.dispose();
      this.#model = model;
      const name = ('files' in source ? source.name : source.repo) || model.architecture || model.family;
      const { spec } = model;
      this.#info = {
        key: `${++this.#count}:${name}`,
        name,
        family: model.family,
        architecture: model.architecture,
        layers: spec.layers,
        heads: spec.heads,
        kvHeads: spec.kvHeads || spec.heads,
        headDim: spec.headDim || spec.dModel / spec.heads,
        dModel: spec.dModel,
        positions: spec.positions,
        ropeTheta: spec.ropeTheta,
        window: spec.window,
        windowPattern: spec.windowPattern,
        normType: spec.normType,
        maxSeq: spec.maxSeq,
        vocabSize: spec.vocabSize,
        predicts: spec.head !== 'none',
        causal: spec.causal,
        chat: hasChatTemplate(model),
        skipped: model.skipped.map(([a, b]) => [a, b]),
        held: {
          weights: source.weights ?? DEFAULT_WEIGHTS,
          q8Activations: source.q8Activations ?? DEFAULT_Q8_ACTIVATIONS,
          bytes: { ...model.model.weightBytes() },
        },
      };
      return { ok: true, model: this.#info };
    } catch (error) {
      const e = error as { message?: string; code?: string; field?: string };
      return { ok: false, error: e?.message ?? String(error), code: e?.code ?? 'error', field: e?.field ?? '' };
    } finally {
      if (this.#loading === controller) this.#loading = null;
    }
  }

  /** The loaded checkpoint if it is the one of `key`, else null (only one is kept). */
  loaded(key: string): { model: PretrainedModel; info: PretrainedInfo } | null {
    return this.#model && this.#info?.key === key ? { model: this.#model, info: this.#info } : null;
  }

  /** Stops the load under way, if any (it then answers with code 'aborted'). */
  cancel(): void {
    this.#loading?.abort();
  }

  /** The typed text's tokens (chat turns rendered by the model's template); InputError for text the model cannot read. */
  async encode(input: PretrainedRunInput) {
    const held = this.loaded(input.pretrained.key);
    if (!held) throw new Error(NOT_LOADED);
    const { model, info } = held;
    const lines = input.text.split('\n');
    let encoding;
    let rendered: string | undefined;
    if (!info.causal) {
      // an encoder reads a sentence or a pair (BERT's segments A and B)
      const parts = lines.map((l) => l.trim()).filter((l) => l !== '');
      if (parts.length === 0) throw new InputError('Type a sentence first.');
      if (parts.length > 2)
        throw new InputError(`${info.name} reads one sentence, or a pair on two lines; got ${parts.length} lines.`);
      encoding = model.tokenizer.encode(parts[0], parts[1]);
    } else if (input.chat && info.chat) {
      const parsed = parseTurns(input.text);
      if ('error' in parsed) throw new InputError(parsed.error);
      rendered = await renderChat(model, parsed.turns);
      if (this.#model !== model) throw new Error('The model changed while its chat template ran: run again.');
      encoding = encodeRendered(model, rendered);
    } else {
      if (input.text.trim() === '') throw new InputError('Type some text first.');
      encoding = model.tokenizer.encode(input.text);
    }
    return { model, info, encoding, rendered };
  }

  /** The trace and predictions of the typed text; InputError for text the model cannot read. */
  async trace(input: PretrainedRunInput): Promise<PretrainedTrace> {
    const { model, info, encoding, rendered } = await this.encode(input);
    const seq = encoding.ids.length;
    if (seq > info.maxSeq)
      throw new InputError(`The text is ${seq} tokens long; this model reads at most ${info.maxSeq}. Shorten it.`);
    const { spec } = model;
    // Only the logits a prediction reads: GPT-2's last row (its output layer over the whole
    // vocabulary costs as much as a third of the layers), BERT's when a [MASK] is typed.
    const mask = info.causal ? null : model.tokenizer.idOf('[MASK]');
    const logits = info.causal ? 'last' : mask !== null && encoding.ids.includes(mask) ? 'all' : 'none';
    const shape = { ...spec, maxSeq: info.maxSeq };
    const shown = longestShown(shape, logits);
    if (seq > shown)
      throw new InputError(
        `The text is ${seq} tokens long; its ${info.layers} \u00d7 ${info.heads} attention maps are shown for at most ${shown} tokens (the softmax weights alone; every attention stage up to ${longestWithStages(shape, logits)}). Shorten it.`,
      );
    const stack = info.causal ? 'decoder' : 'encoder';
    const recorded = recordedFor(shape, seq, logits);
    const result = model.forward({
      ids: encoding.ids,
      batch: 1,
      seq,
      logits,
      ...(spec.typeVocabSize > 0 ? { tokenTypes: encoding.tokenTypes } : {}),
      record: { stages: recordPatterns(recorded, stack) },
    });
    const tokens = encoding.tokens.map((piece, i) =>
      displayPiece(piece, model.tokenizer.decode([encoding.ids[i]]), info.family),
    );
    const config = {
      dModel: spec.dModel,
      heads: spec.heads,
      layers: spec.layers,
      ffnDim: spec.ffnDim,
      seed: 0,
      preset: 'random',
      scale: spec.scale,
      residual: spec.residual,
      positional: spec.positions !== 'none',
      positions: spec.positions === 'rope' || spec.positions === 'alibi' ? spec.positions : 'sinusoidal',
      kvHeads: spec.kvHeads,
      window: spec.window,
      // not playground settings: the Positions view's RoPE bases (model/positions-model.ts ropeBase)
      ropeTheta: spec.ropeTheta,
      ropeLocalTheta: spec.ropeLocalTheta,
      activation: spec.activation,
      ffn: spec.ffn,
      norm: spec.norm,
      normType: spec.normType === 'layernorm' ? 'layernorm' : 'rmsnorm',
    } as unknown as ModelConfig;
    const trace: Trace = { mode: stack, config, tokens: [tokens], sourceTokens: [], stages: result.trace!.stages };
    return {
      trace,
      predictions: this.#predictions(result.logits, encoding.ids, info),
      recorded,
      stagesUpTo: longestWithStages(shape, logits),
      rendered,
    };
  }

  #predictions(logits: Float32Array | null, ids: Int32Array, info: PretrainedInfo): Prediction[] {
    if (!logits || !this.#model) return [];
    const vocab = info.vocabSize;
    const tokenizer = this.#model.tokenizer;
    // row: the logits row to read (GPT-2's forward computed only the last one)
    const top = (position: number, kind: Prediction['kind'], rowIndex = position): Prediction => {
      const row = logits.subarray(rowIndex * vocab, (rowIndex + 1) * vocab);
      let max = -Infinity;
      for (const v of row) if (v > max) max = v;
      let sum = 0;
      for (const v of row) sum += Math.exp(v - max);
      const best: number[] = [];
      for (let id = 0; id < row.length; id++) {
        if (best.length < TOP || row[id] > row[best[best.length - 1]]) {
          best.push(id);
          best.sort((a, b) => row[b] - row[a]);
          if (best.length > TOP) best.pop();
        }
      }
      return {
        position,
        kind,
        candidates: best.map((id) => ({
          id,
          probability: Math.exp(row[id] - max) / sum,
          token: candidateText(tokenizer.decode([id]), id, info.family),
        })),
      };
    };
    if (info.causal) return [top(ids.length - 1, 'next', 0)];
    const mask = tokenizer.idOf('[MASK]');
    if (mask === null) return [];
    return Array.from(ids).flatMap((id, i) => (id === mask ? [top(i, 'mask')] : []));
  }

  dispose(): void {
    this.#loading?.abort();
    this.#model?.dispose();
    this.#model = null;
    this.#info = null;
  }
}
