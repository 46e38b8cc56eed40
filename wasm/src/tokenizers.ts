// The tokenizers of pretrained checkpoints. GPT-2's byte-level BPE and BERT's WordPiece
// run in the engine (core/src/tokenizers); the tokenizers of the modern families, read
// from their tokenizer.json, run in TypeScript (hub-tokenizer/). Text in, ids and
// display pieces out ('Ġthe' for GPT-2's word-initial pieces, '##ing' for WordPiece
// continuations, '▁the' for SentencePiece-style BPE).
import { AttentionError, describeValue, fromEngine } from './errors.js';
import type { ChatTemplateOptions, ChatTurn } from './hub-tokenizer/chat-template.js';

export type { ChatTemplateOptions, ChatTurn } from './hub-tokenizer/chat-template.js';

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

export interface EncodeOptions {
  /** Add the special tokens the tokenizer's post-processor places (BOS, [CLS] ... [SEP]); default true. */
  addSpecialTokens?: boolean;
}

export interface DecodeOptions {
  /** Leave the special tokens (BOS, EOS, <|im_start|>, [CLS], ...) out of the text; default false. */
  skipSpecialTokens?: boolean;
}

/** The ids of a tokenizer's named special tokens; null where it has none. */
export interface SpecialTokenIds {
  bos: number | null;
  eos: number | null;
  pad: number | null;
  unk: number | null;
}

/**
 * The kinds of tokenizer: 'gpt2-bpe' and 'wordpiece' (GPT-2's and BERT's, in the engine),
 * 'bpe' (any byte-level or SentencePiece-style BPE read from a tokenizer.json: Llama,
 * Qwen, Gemma 3, SmolLM2).
 */
export type TokenizerKind = 'gpt2-bpe' | 'wordpiece' | 'bpe';

export interface Tokenizer {
  readonly kind: TokenizerKind;
  /** One more than the largest token id (added tokens included). */
  readonly vocabSize: number;
  /** The ids of BOS, EOS, padding and unknown, where the tokenizer has them. */
  readonly specialTokens: SpecialTokenIds;
  /**
   * The text (and, for BERT, an optional second text) as the model's tokens, with the
   * special tokens the tokenizer adds unless `options.addSpecialTokens` is false.
   */
  encode(text: string, options?: EncodeOptions): Encoding;
  encode(text: string, pair?: string, options?: EncodeOptions): Encoding;
  /** Ids back to text. */
  decode(ids: ArrayLike<number>, options?: DecodeOptions): string;
  /** The id of a vocabulary entry, or null. */
  idOf(token: string): number | null;
  /** Whether the id is one of the tokenizer's special tokens. */
  isSpecial(id: number): boolean;
  /** The instruct checkpoint's chat template (tokenizer_config.json), or null. */
  readonly chatTemplate: string | null;
  /**
   * The text the model reads for these chat turns, rendered by the chat template; with
   * `addGenerationPrompt`, ending where the assistant's answer starts.
   */
  applyChatTemplate(turns: ChatTurn[], options?: ChatTemplateOptions): Promise<string>;
  /** Frees the tokenizer's memory. */
  dispose(): void;
}

/** encode's arguments: (text, options) or (text, pair, options). */
export function encodeArguments(
  pairOrOptions: string | EncodeOptions | undefined,
  options: EncodeOptions | undefined,
): { pair: string | undefined; addSpecialTokens: boolean } {
  const pair = typeof pairOrOptions === 'object' && pairOrOptions !== null ? undefined : pairOrOptions;
  const opts = typeof pairOrOptions === 'object' && pairOrOptions !== null ? pairOrOptions : options;
  const addSpecialTokens = opts?.addSpecialTokens ?? true;
  if (typeof addSpecialTokens !== 'boolean')
    throw new AttentionError(`addSpecialTokens must be true or false, got ${describeValue(addSpecialTokens)}`, {
      field: 'addSpecialTokens',
      value: addSpecialTokens,
    });
  return { pair, addSpecialTokens };
}

/** decode's skipSpecialTokens option, checked. */
export function skipSpecialOption(options: DecodeOptions | undefined): boolean {
  const skip = options?.skipSpecialTokens ?? false;
  if (typeof skip !== 'boolean')
    throw new AttentionError(`skipSpecialTokens must be true or false, got ${describeValue(skip)}`, {
      field: 'skipSpecialTokens',
      value: skip,
    });
  return skip;
}

export function checkText(name: string, text: unknown): string {
  if (typeof text !== 'string')
    throw new AttentionError(`${name} must be a string, got ${describeValue(text)}`, {
      field: name,
      value: describeValue(text),
    });
  return text;
}

export function checkIds(ids: unknown): number[] {
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
  readonly specialTokens: SpecialTokenIds;
  readonly chatTemplate = null;
  readonly #special: ReadonlySet<number>;
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
    const id = (token: string) => {
      const i = raw.idOf(token);
      return i < 0 ? null : i;
    };
    // GPT-2's one special token ends (and, for generation, starts) every text; BERT's five.
    const names = kind === 'gpt2-bpe' ? ['<|endoftext|>'] : ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
    this.#special = new Set(names.map(id).filter((i): i is number => i !== null));
    this.specialTokens =
      kind === 'gpt2-bpe'
        ? { bos: id('<|endoftext|>'), eos: id('<|endoftext|>'), pad: null, unk: null }
        : { bos: null, eos: null, pad: id('[PAD]'), unk: id('[UNK]') };
  }

  #live(): RawTokenizer {
    if (!this.#raw) throw new AttentionError('this tokenizer was disposed', { code: 'disposed', field: 'tokenizer' });
    return this.#raw;
  }

  encode(text: string, pairOrOptions?: string | EncodeOptions, options?: EncodeOptions): Encoding {
    checkText('text', text);
    const { pair, addSpecialTokens } = encodeArguments(pairOrOptions, options);
    if (pair !== undefined) {
      if (this.kind === 'gpt2-bpe')
        throw new AttentionError('GPT-2 takes one text: it has no sentence pairs', { field: 'pair' });
      checkText('pair', pair);
    }
    const r = this.#live().encode(text, pair ?? null);
    if (r.error) throw fromEngine(r.error);
    let ids = r.ids!;
    let tokens = r.pieces!;
    let tokenTypes = r.tokenTypes ?? ids.map(() => 0);
    if (!addSpecialTokens && this.kind === 'wordpiece') {
      // [CLS] A [SEP] (B [SEP]): drop the first token and the last of each segment.
      const keep = ids.map((_, i) => i !== 0 && i !== ids.length - 1 && tokenTypes[i] === tokenTypes[i + 1]);
      ids = ids.filter((_, i) => keep[i]);
      tokens = tokens.filter((_, i) => keep[i]);
      tokenTypes = tokenTypes.filter((_, i) => keep[i]);
    }
    return { ids: Int32Array.from(ids), tokens, tokenTypes: Int32Array.from(tokenTypes) };
  }

  decode(ids: ArrayLike<number>, options?: DecodeOptions): string {
    const skip = skipSpecialOption(options);
    const list = checkIds(ids).filter((id) => !skip || !this.#special.has(id));
    const r = this.#live().decode(list);
    if (r.error) throw fromEngine(r.error);
    return r.text!;
  }

  idOf(token: string): number | null {
    const id = this.#live().idOf(checkText('token', token));
    return id < 0 ? null : id;
  }

  isSpecial(id: number): boolean {
    return this.#special.has(id);
  }

  async applyChatTemplate(): Promise<string> {
    throw new AttentionError(`this ${this.kind === 'gpt2-bpe' ? 'GPT-2' : 'BERT'} tokenizer has no chat template`, {
      field: 'chat_template',
    });
  }

  dispose(): void {
    this.#raw?.delete();
    this.#raw = null;
  }
}
