// The tokenizers of pretrained checkpoints, running in the engine (core/src/tokenizers):
// GPT-2's byte-level BPE and BERT's WordPiece. Text in, ids and display pieces out
// ('Ġthe' for GPT-2's word-initial pieces, '##ing' for WordPiece continuations).
import { AttentionError, describeValue, fromEngine } from './errors.js';

type RawError = { error?: { message: string; code: string; field: string } };

/** The raw Embind tokenizers, _Gpt2Bpe and _WordPiece (private: only this file and pretrained.ts talk to them). */
export interface RawTokenizer {
  error(): RawError | undefined;
  vocabSize(): number;
  idOf(token: string): number;
  encode(text: string, pair: string | null): RawError & { ids?: number[]; pieces?: string[]; tokenTypes?: number[] };
  decode(ids: number[]): RawError & { text?: string };
  delete(): void;
}

/** A tokenized text, ready for `model.forward` (batch 1). */
export interface Encoding {
  /** Token ids, in order, special tokens included (BERT: [CLS] ... [SEP]). */
  ids: Int32Array;
  /** Each id's piece as the vocabulary writes it: 'Ġthe', '##ing', '[CLS]'. */
  tokens: string[];
  /** Each token's segment: 0 for the first text, 1 for the pair (BERT); all 0 otherwise. */
  tokenTypes: Int32Array;
}

export interface Tokenizer {
  readonly kind: 'gpt2-bpe' | 'wordpiece';
  readonly vocabSize: number;
  /** The text (and, for BERT, an optional second text) as the model's tokens. */
  encode(text: string, pair?: string): Encoding;
  /** Ids back to text. */
  decode(ids: ArrayLike<number>): string;
  /** The id of a vocabulary entry, or null. */
  idOf(token: string): number | null;
  /** Frees the tokenizer's memory in the engine. */
  dispose(): void;
}

function checkText(name: string, text: unknown): string {
  if (typeof text !== 'string')
    throw new AttentionError(`${name} must be a string, got ${describeValue(text)}`, {
      field: name,
      value: describeValue(text),
    });
  return text;
}

function checkIds(ids: unknown): number[] {
  if (!(ids instanceof Int32Array) && !Array.isArray(ids) && !ArrayBuffer.isView(ids))
    throw new AttentionError(`ids must be an array of token ids, got ${describeValue(ids)}`, { field: 'ids' });
  const list = Array.from(ids as ArrayLike<number>);
  list.forEach((id, i) => {
    if (!Number.isInteger(id))
      throw new AttentionError(`ids[${i}] is ${describeValue(id)}, not a token id`, { field: 'ids', value: id });
  });
  return list;
}

/**
 * A tokenizer running in the engine: GPT-2's byte-level BPE ('gpt2-bpe', no special
 * tokens added, no pairs) or BERT's WordPiece ('wordpiece': [CLS] text [SEP] (pair
 * [SEP]), token types 0 then 1).
 */
export class EngineTokenizer implements Tokenizer {
  readonly kind: 'gpt2-bpe' | 'wordpiece';
  readonly vocabSize: number;
  #raw: RawTokenizer | null;

  /** @internal Made by loadPretrained. */
  constructor(kind: 'gpt2-bpe' | 'wordpiece', raw: RawTokenizer) {
    const failure = raw.error();
    if (failure?.error) {
      raw.delete();
      throw fromEngine(failure.error);
    }
    this.kind = kind;
    this.#raw = raw;
    this.vocabSize = raw.vocabSize();
  }

  #live(): RawTokenizer {
    if (!this.#raw) throw new AttentionError('this tokenizer was disposed', { code: 'disposed', field: 'tokenizer' });
    return this.#raw;
  }

  encode(text: string, pair?: string): Encoding {
    checkText('text', text);
    if (pair !== undefined) {
      if (this.kind === 'gpt2-bpe')
        throw new AttentionError('GPT-2 takes one text: it has no sentence pairs', { field: 'pair' });
      checkText('pair', pair);
    }
    const r = this.#live().encode(text, pair ?? null);
    if (r.error) throw fromEngine(r.error);
    const ids = Int32Array.from(r.ids!);
    return {
      ids,
      tokens: r.pieces!,
      tokenTypes: r.tokenTypes ? Int32Array.from(r.tokenTypes) : new Int32Array(ids.length),
    };
  }

  decode(ids: ArrayLike<number>): string {
    const r = this.#live().decode(checkIds(ids));
    if (r.error) throw fromEngine(r.error);
    return r.text!;
  }

  idOf(token: string): number | null {
    const id = this.#live().idOf(checkText('token', token));
    return id < 0 ? null : id;
  }

  dispose(): void {
    this.#raw?.delete();
    this.#raw = null;
  }
}
