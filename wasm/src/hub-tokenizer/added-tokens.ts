// tokenizer.json's "added_tokens": tokens matched whole in the text before any other
// step, so '<|im_start|>' typed in a prompt is one token and never split. As Hugging
// Face's tokenizers (tokenizer/added_vocabulary.rs): tokens with normalized=false are
// found in the raw text first; then each remaining stretch is normalized and searched
// for the tokens with normalized=true (in their normalized form). At each position the
// longest token wins; single_word, lstrip and rstrip are honoured.
import type { JsonField } from './json.js';
import type { Normalizer } from './normalizers.js';
import type { Piece } from './pieces.js';

export interface AddedToken {
  id: number;
  content: string;
  special: boolean;
  singleWord: boolean;
  lstrip: boolean;
  rstrip: boolean;
  normalized: boolean;
}

// The regex crate's Unicode \w (a word character) and \s.
const WORD_AT_END = /[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]$/u;
const WORD_AT_START = /^[\p{Alphabetic}\p{M}\p{Nd}\p{Pc}\p{Join_Control}]/u;
const SPACES_AT_END = /\p{White_Space}*$/u;
const SPACES_AT_START = /^\p{White_Space}*/u;

/** A trie over UTF-16 units: the longest token starting at a position. */
class TokenTrie {
  readonly #root = new Map<number, TrieNode>();

  add(pattern: string, token: AddedToken): void {
    let children = this.#root;
    let node: TrieNode | undefined;
    for (let i = 0; i < pattern.length; i++) {
      const unit = pattern.charCodeAt(i);
      node = children.get(unit);
      if (!node) children.set(unit, (node = { children: new Map(), token: null }));
      children = node.children;
    }
    if (node) node.token = token;
  }

  get empty(): boolean {
    return this.#root.size === 0;
  }

  /** The longest token starting at `start`, and its end. */
  longestAt(text: string, start: number): [AddedToken, number] | null {
    let children = this.#root;
    let best: [AddedToken, number] | null = null;
    for (let i = start; i < text.length; i++) {
      const node = children.get(text.charCodeAt(i));
      if (!node) break;
      if (node.token) best = [node.token, i + 1];
      children = node.children;
    }
    return best;
  }
}

interface TrieNode {
  children: Map<number, TrieNode>;
  token: AddedToken | null;
}

export class AddedVocabulary {
  readonly tokens: AddedToken[] = [];
  readonly #byId = new Map<number, AddedToken>();
  readonly #byContent = new Map<string, AddedToken>();
  readonly #raw = new TokenTrie();
  readonly #normalized = new TokenTrie();
  /** What a normalized token decodes as: its normalized form when that differs. */
  readonly #decodeAs = new Map<number, string>();
  readonly #normalizer: Normalizer | null;

  /**
   * `modelId` gives a content's id in the model's vocabulary, which wins over the file's
   * id (as in tokenizers); `modelPiece` the vocabulary's piece at an id.
   */
  constructor(
    field: JsonField,
    normalizer: Normalizer | null,
    modelId: (content: string) => number | undefined,
    modelPiece: (id: number) => string | undefined,
  ) {
    this.#normalizer = normalizer;
    if (field.isNull) return;
    for (const item of field.items()) {
      const content = item.get('content').string();
      const fileId = item.get('id').count();
      const inModel = modelId(content);
      if (inModel === undefined && modelPiece(fileId) !== undefined)
        throw item
          .get('id')
          .bad(`is ${fileId}, which model.vocab gives to ${JSON.stringify(modelPiece(fileId))}`, fileId);
      const token: AddedToken = {
        id: inModel ?? fileId,
        content,
        special: item.get('special').boolean(false),
        singleWord: item.get('single_word').boolean(false),
        lstrip: item.get('lstrip').boolean(false),
        rstrip: item.get('rstrip').boolean(false),
        normalized: item.get('normalized').boolean(!item.get('special').boolean(false)),
      };
      if (content === '') continue; // tokenizers ignores empty added tokens
      const clash = this.#byId.get(token.id);
      if (clash && clash.content !== content)
        throw item
          .get('id')
          .bad(
            `gives id ${token.id} to both ${JSON.stringify(clash.content)} and ${JSON.stringify(content)}`,
            token.id,
          );
      const previous = this.#byContent.get(content);
      if (previous) this.tokens.splice(this.tokens.indexOf(previous), 1);
      this.tokens.push(token);
      this.#byId.set(token.id, token);
      this.#byContent.set(content, token);
    }
    for (const token of this.tokens) {
      if (token.normalized && normalizer) {
        const form = normalizer(token.content);
        if (form !== token.content) this.#decodeAs.set(token.id, form);
        if (form !== '') this.#normalized.add(form, token);
      } else if (token.normalized) this.#normalized.add(token.content, token);
      else this.#raw.add(token.content, token);
    }
  }

  byId(id: number): AddedToken | undefined {
    return this.#byId.get(id);
  }

  byContent(content: string): AddedToken | undefined {
    return this.#byContent.get(content);
  }

  /** The string an added token's id decodes as. */
  decodeForm(token: AddedToken): string {
    return this.#decodeAs.get(token.id) ?? token.content;
  }

  /** The text cut at its added tokens; the other pieces normalized (the normalizer runs per piece). */
  extractAndNormalize(text: string): Piece[] {
    const out: Piece[] = [];
    for (const piece of this.#split({ text, atStart: true }, this.#raw)) {
      if (piece.id !== undefined) {
        out.push(piece);
        continue;
      }
      const normalized = this.#normalizer ? this.#normalizer(piece.text) : piece.text;
      for (const p of this.#split({ ...piece, text: normalized }, this.#normalized)) if (p.text !== '') out.push(p);
    }
    return out;
  }

  #split(piece: Piece, trie: TokenTrie): Piece[] {
    const text = piece.text;
    if (trie.empty || text === '') return [piece];
    const out: Piece[] = [];
    let done = 0; // the end of the last piece emitted
    let i = 0;
    while (i < text.length) {
      const found = trie.longestAt(text, i);
      if (!found) {
        i++;
        continue;
      }
      const [token, matchEnd] = found;
      let start = i;
      let stop = matchEnd;
      i = matchEnd; // the search goes on after this match, kept or not
      if (token.singleWord) {
        const wordBefore = start > 0 && WORD_AT_END.test(text.slice(0, start));
        const wordAfter = stop < text.length && WORD_AT_START.test(text.slice(stop));
        if (wordBefore || wordAfter) continue;
      }
      if (token.lstrip) start = Math.max(done, text.slice(0, start).search(SPACES_AT_END));
      if (token.rstrip) stop += SPACES_AT_START.exec(text.slice(stop))![0].length;
      if (done < start) out.push({ text: text.slice(done, start), atStart: piece.atStart && done === 0 });
      out.push({ text: text.slice(start, stop), id: token.id, atStart: false });
      done = stop;
      i = Math.max(i, stop);
    }
    if (done < text.length) out.push({ text: text.slice(done), atStart: piece.atStart && done === 0 });
    return out;
  }
}
