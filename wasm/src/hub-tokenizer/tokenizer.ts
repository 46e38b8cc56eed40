// A tokenizer read from a model hub's tokenizer.json (+ tokenizer_config.json): the
// BPE tokenizers of Llama 2 / TinyLlama, Llama 3, Qwen 2/3, Gemma 3 and SmolLM2.
//
// Why TypeScript and not the C++ core: these files are defined by regular expressions
// over Unicode classes (\p{L}, \p{N}, White_Space) and by Unicode normalization forms;
// the JavaScript runtime's RegExp (u flag) and String.prototype.normalize (ICU) are the
// maintained implementations of both, updated with each Unicode version, where the
// core would need its own Unicode tables.
//
// The pipeline is Hugging Face's tokenizers' (tokenizer/mod.rs), step by step, each in
// its file: added tokens matched whole (added-tokens.ts) -> normalizer on the text
// between them (normalizers.ts) -> pre-tokenizer (pre-tokenizers.ts) -> BPE per word
// (bpe.ts) -> post-processor (post-processor.ts); decoding through the decoder
// (decoders.ts). Every component type we do not implement is an AttentionError naming
// its path in the file.
import { AttentionError, describeValue } from '../errors.js';
import {
  type DecodeOptions,
  type EncodeOptions,
  type Encoding,
  type SpecialTokenIds,
  type Tokenizer,
  checkIds,
  checkText,
  encodeArguments,
  skipSpecialOption,
} from '../tokenizers.js';
import { AddedVocabulary } from './added-tokens.js';
import { BpeModel } from './bpe.js';
import { type ChatTemplateOptions, type ChatTurn, readChatTemplate, renderChatTemplate } from './chat-template.js';
import { type Decoder, readDecoder } from './decoders.js';
import { type JsonField, parseJsonFile } from './json.js';
import { type Normalizer, readNormalizer } from './normalizers.js';
import type { Piece } from './pieces.js';
import { type Encoded, type PostProcessor, readPostProcessor } from './post-processor.js';
import { type PreTokenizer, readPreTokenizer } from './pre-tokenizers.js';

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
const SPECIAL_NAMES = ['bos', 'eos', 'pad', 'unk'] as const;
/** tokenizer_config.json's tokenizer classes whose fast tokenizer rebuilds the post-processor. */
const REBUILDING_CLASSES = /^(Llama|CodeLlama|Gemma)Tokenizer(Fast)?$/;

/** A special token's string in tokenizer_config.json: "<s>" or { "content": "<s>", ... }. */
function configToken(field: JsonField): string | null {
  if (field.isNull) return null;
  if (typeof field.value === 'string') return field.value;
  return field.get('content').string();
}

export class HubTokenizer implements Tokenizer {
  readonly kind = 'bpe' as const;
  readonly vocabSize: number;
  readonly specialTokens: SpecialTokenIds;
  readonly chatTemplate: string | null;
  readonly #normalizer: Normalizer | null;
  readonly #preTokenizer: PreTokenizer | null;
  readonly #postProcessor: PostProcessor | null;
  readonly #decoder: Decoder | null;
  readonly #templateTokens: Record<string, string | null>;
  #model: BpeModel | null;
  #added: AddedVocabulary | null;
  /** The contents of the special added tokens (tokenizers decides "special" by a token's string). */
  readonly #specialContents: ReadonlySet<string>;

  /** @internal Use createHubTokenizer. */
  constructor(file: JsonField, config: JsonField | null) {
    file.object();
    const version = file.get('version');
    if (!version.isNull && version.string() !== '1.0')
      throw version.bad('is not "1.0", the format this tokenizer reads');
    for (const name of ['truncation', 'padding']) {
      const f = file.get(name);
      if (!f.isNull) throw f.bad(`is set: ${name} is not supported here (the playground shows every token)`);
    }
    const modelField = file.get('model');
    const type = modelField.get('type');
    // Older files leave out the model's type; tokenizers then guesses from its fields.
    if (!type.isNull && type.string() !== 'BPE') throw modelField.unsupported('model', ['BPE']);
    if (type.isNull && modelField.get('merges').isNull)
      throw modelField.bad('has no "type" and no "merges": only BPE models are supported');
    this.#model = new BpeModel(modelField);
    this.#normalizer = readNormalizer(file.get('normalizer'));
    this.#preTokenizer = readPreTokenizer(file.get('pre_tokenizer'));
    this.#postProcessor = readPostProcessor(file.get('post_processor'));
    this.#decoder = readDecoder(file.get('decoder'));
    const model = this.#model;
    this.#added = new AddedVocabulary(
      file.get('added_tokens'),
      this.#normalizer,
      (content) => model.vocab.get(content),
      (id) => model.pieces[id],
    );
    this.#specialContents = new Set(this.#added.tokens.filter((t) => t.special).map((t) => t.content));
    this.vocabSize = this.#added.tokens.reduce((n, t) => Math.max(n, t.id + 1), model.pieces.length);

    const ids = {} as SpecialTokenIds;
    this.#templateTokens = {};
    for (const name of SPECIAL_NAMES) {
      const field = config?.get(`${name}_token`);
      const token = field ? configToken(field) : null;
      this.#templateTokens[`${name}_token`] = token;
      ids[name] = token === null ? null : this.idOf(token);
      if (token !== null && ids[name] === null) throw field!.bad('is not a token of tokenizer.json', token);
    }
    this.specialTokens = ids;
    this.chatTemplate = readChatTemplate(config);
    if (config) this.#checkAddedSpecials(config);
  }

  /**
   * transformers' Llama and Gemma tokenizer classes rebuild the post-processor from
   * tokenizer_config.json's add_bos_token (default true) and add_eos_token (default
   * false); we follow tokenizer.json's post-processor, so the two must agree.
   */
  #checkAddedSpecials(config: JsonField): void {
    const className = config.get('tokenizer_class').optionalString() ?? '';
    if (!REBUILDING_CLASSES.test(className)) return;
    const plain = this.encode('a', { addSpecialTokens: false }).ids;
    const full = Array.from(this.encode('a').ids);
    const start = full.indexOf(plain[0]);
    const added = { bos: full.slice(0, start), eos: full.slice(start + plain.length) };
    for (const [name, fallback] of [
      ['bos', true],
      ['eos', false],
    ] as const) {
      const field = config.get(`add_${name}_token`);
      const wanted = field.boolean(fallback);
      const id = this.specialTokens[name];
      const adds = added[name].length === 1 && added[name][0] === id;
      if (wanted === adds || (!wanted && added[name].length === 0)) continue;
      const token = JSON.stringify(this.#templateTokens[`${name}_token`]);
      throw field.bad(
        `is ${wanted}, so ${className} ${wanted ? 'adds' : 'does not add'} ${name}_token ${token}, but ` +
          `tokenizer.json's post-processor adds ${added[name].length ? `ids ${added[name].join(', ')}` : 'nothing'} ` +
          `${name === 'bos' ? 'before' : 'after'} the text: transformers would rebuild the ` +
          'post-processor from tokenizer_config.json, which this tokenizer does not',
        wanted,
      );
    }
  }

  #live(): [BpeModel, AddedVocabulary] {
    if (!this.#model || !this.#added)
      throw new AttentionError('this tokenizer was disposed', { code: 'disposed', field: 'tokenizer' });
    return [this.#model, this.#added];
  }

  #encodeOne(text: string): Encoded {
    const [model, added] = this.#live();
    // Lone surrogates cannot be UTF-8: read as U+FFFD, as the conversion to UTF-8 does.
    let pieces: Piece[] = added.extractAndNormalize(text.replace(LONE_SURROGATE, '\ufffd'));
    if (this.#preTokenizer) pieces = this.#preTokenizer(pieces);
    const out: Encoded = { ids: [], tokens: [], typeIds: [] };
    for (const piece of pieces) {
      if (piece.id !== undefined) {
        // An added token's piece is the text it matched: its normalized form, with the
        // white space lstrip / rstrip took in (as tokenizers reports it).
        out.ids.push(piece.id);
        out.tokens.push(piece.text);
        continue;
      }
      for (const id of model.tokenize(piece.text)) {
        out.ids.push(id);
        out.tokens.push(model.pieces[id]);
      }
    }
    return out;
  }

  #pieceOf(id: number): string | null {
    const [model, added] = this.#live();
    return added.byId(id)?.content ?? model.pieces[id] ?? null;
  }

  encode(text: string, pairOrOptions?: string | EncodeOptions, options?: EncodeOptions): Encoding {
    checkText('text', text);
    const { pair, addSpecialTokens } = encodeArguments(pairOrOptions, options);
    if (pair !== undefined) checkText('pair', pair);
    const encodings = [this.#encodeOne(text)];
    if (pair !== undefined) encodings.push(this.#encodeOne(pair));
    encodings.forEach((e, i) => (e.typeIds = e.ids.map(() => i)));
    const processed = this.#postProcessor ? this.#postProcessor(encodings, addSpecialTokens) : encodings;
    const ids = processed.flatMap((e) => e.ids);
    return {
      ids: Int32Array.from(ids),
      tokens: processed.flatMap((e) => e.tokens),
      tokenTypes: Int32Array.from(processed.flatMap((e) => e.typeIds)),
    };
  }

  decode(ids: ArrayLike<number>, options?: DecodeOptions): string {
    const skip = skipSpecialOption(options);
    const [model, added] = this.#live();
    const pieces: string[] = [];
    checkIds(ids).forEach((id, i) => {
      const token = added.byId(id);
      const piece = token ? added.decodeForm(token) : model.pieces[id];
      if (piece === undefined)
        throw new AttentionError(`ids[${i}] is ${id}, not a token of this tokenizer (0 to ${this.vocabSize - 1})`, {
          code: 'out_of_range',
          field: 'ids',
          value: id,
        });
      if (skip && this.#specialContents.has(piece)) return;
      pieces.push(piece);
    });
    return this.#decoder ? this.#decoder(pieces).join('') : pieces.join(' ');
  }

  idOf(token: string): number | null {
    const [model, added] = this.#live();
    checkText('token', token);
    return added.byContent(token)?.id ?? model.vocab.get(token) ?? null;
  }

  /** The vocabulary's piece for an id ('Ġthe', '▁the', '<0x0A>', '<|im_start|>'), or null. */
  pieceOf(id: number): string | null {
    if (!Number.isInteger(id))
      throw new AttentionError(`id must be an integer, got ${describeValue(id)}`, { field: 'id', value: id });
    return this.#pieceOf(id);
  }

  isSpecial(id: number): boolean {
    const piece = this.#pieceOf(id);
    return piece !== null && this.#specialContents.has(piece);
  }

  applyChatTemplate(turns: ChatTurn[], options: ChatTemplateOptions = {}): Promise<string> {
    this.#live();
    if (this.chatTemplate === null)
      return Promise.reject(
        new AttentionError('this tokenizer has no chat template (tokenizer_config.json has no chat_template)', {
          field: 'tokenizer_config.json: chat_template',
        }),
      );
    return renderChatTemplate(this.chatTemplate, turns, options, this.#templateTokens);
  }

  dispose(): void {
    this.#model = null;
    this.#added = null;
  }
}

/**
 * A tokenizer from a model hub's tokenizer.json text and, optionally, its
 * tokenizer_config.json text (special tokens' names, chat template). Throws an
 * AttentionError (code 'bad_file', field naming the file and the JSON path) for
 * malformed JSON, a wrong type, a merge naming an unknown token, or any component
 * type this tokenizer does not implement.
 */
export function createHubTokenizer(tokenizerJson: string, tokenizerConfigJson: string | null = null): HubTokenizer {
  const file = parseJsonFile('tokenizer.json', tokenizerJson);
  const config =
    tokenizerConfigJson === null || tokenizerConfigJson === undefined
      ? null
      : parseJsonFile('tokenizer_config.json', tokenizerConfigJson);
  config?.object();
  return new HubTokenizer(file, config);
}
