// tokenizer.json's "model" of type BPE: a vocabulary (piece -> id) and ranked merges.
// A word starts as its characters (or, with byte_fallback, the <0xNN> tokens of a
// character's UTF-8 bytes when the character is not in the vocabulary; else unk_token,
// consecutive unknowns fused with fuse_unk); then the pair of neighbours with the
// lowest merge rank (leftmost among equals) is merged, again and again, as Hugging
// Face's tokenizers (models/bpe/word.rs merge_all) does. ignore_merges (Llama 3): a
// word that is itself in the vocabulary is that one token.
import type { JsonField } from './json.js';

const UTF8 = new TextEncoder();
/** Words up to this many UTF-16 units are cached; the cache holds at most CACHE_LIMIT words. */
const CACHE_WORD_LENGTH = 256;
const CACHE_LIMIT = 20_000;

export class BpeModel {
  /** id -> piece, as the vocabulary writes it ('Ġthe', '▁the', '<0x0A>'). */
  readonly pieces: string[];
  readonly vocab: Map<string, number>;
  readonly #merges: MergeTable;
  readonly #unk: number | null;
  readonly #fuseUnk: boolean;
  readonly #byteFallback: number[] | null;
  readonly #ignoreMerges: boolean;
  readonly #prefix: string;
  readonly #suffix: string;
  readonly #cache = new Map<string, number[]>();

  constructor(field: JsonField) {
    const vocabField = field.get('vocab');
    const rawVocab = vocabField.object();
    this.vocab = new Map();
    let maxId = -1;
    for (const piece in rawVocab) {
      const id = rawVocab[piece];
      if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) vocabField.get(piece).count(); // throws, naming the entry
      this.vocab.set(piece, id as number);
      if ((id as number) > maxId) maxId = id as number;
    }
    this.pieces = new Array(maxId + 1);
    for (const [piece, id] of this.vocab) {
      if (this.pieces[id] !== undefined)
        throw vocabField.bad(
          `gives id ${id} to both ${JSON.stringify(this.pieces[id])} and ${JSON.stringify(piece)}`,
          id,
        );
      this.pieces[id] = piece;
    }

    const dropout = field.get('dropout');
    if (!dropout.isNull && dropout.value !== 0)
      throw dropout.bad('is set: BPE dropout (random merges) is not supported', dropout.value);
    this.#prefix = field.get('continuing_subword_prefix').optionalString() ?? '';
    this.#suffix = field.get('end_of_word_suffix').optionalString() ?? '';
    this.#fuseUnk = field.get('fuse_unk').boolean(false);
    this.#ignoreMerges = field.get('ignore_merges').boolean(false);
    const unkField = field.get('unk_token');
    const unk = unkField.optionalString();
    this.#unk = unk === null ? null : (this.vocab.get(unk) ?? null);
    if (unk !== null && this.#unk === null) throw unkField.bad('is not in the vocabulary', unk);

    if (field.get('byte_fallback').boolean(false)) {
      // Each byte's <0xNN> token; a byte without one leaves fallback off for the characters that need it.
      this.#byteFallback = Array.from(
        { length: 256 },
        (_, b) => this.vocab.get(`<0x${b.toString(16).toUpperCase().padStart(2, '0')}>`) ?? -1,
      );
    } else this.#byteFallback = null;

    const mergesField = field.get('merges');
    const rawMerges = mergesField.value;
    if (!Array.isArray(rawMerges)) mergesField.items(); // throws: not an array
    const merges = rawMerges as unknown[];
    this.#merges = new MergeTable(merges.length);
    const prefixLength = this.#prefix.length;
    for (let rank = 0; rank < merges.length; rank++) {
      const m = merges[rank];
      let a: string, b: string;
      if (typeof m === 'string') {
        const space = m.indexOf(' ');
        if (space < 0 || m.indexOf(' ', space + 1) >= 0)
          throw mergesField.items()[rank].bad('must be two tokens separated by one space', m);
        a = m.slice(0, space);
        b = m.slice(space + 1);
      } else if (Array.isArray(m) && m.length === 2 && typeof m[0] === 'string' && typeof m[1] === 'string') {
        [a, b] = m;
      } else throw mergesField.items()[rank].bad('must be a pair ["a", "b"] or a string "a b"');
      const idA = this.vocab.get(a);
      const idB = this.vocab.get(b);
      const merged = a + b.slice(prefixLength);
      const idMerged = this.vocab.get(merged);
      if (idA === undefined || idB === undefined || idMerged === undefined) {
        const missing = idA === undefined ? a : idB === undefined ? b : merged;
        throw mergesField.items()[rank].bad(`names ${JSON.stringify(missing)}, which is not in model.vocab`, missing);
      }
      this.#merges.set(idA, idB, rank, idMerged);
    }
  }

  /** The ids of one pre-tokenized word. */
  tokenize(word: string): number[] {
    if (word === '') return [];
    if (this.#ignoreMerges) {
      const id = this.vocab.get(word);
      if (id !== undefined) return [id];
    }
    const cached = this.#cache.get(word);
    if (cached) return cached;
    const ids = this.#merge(this.#symbols(word));
    if (word.length <= CACHE_WORD_LENGTH && this.#cache.size < CACHE_LIMIT) this.#cache.set(word, ids);
    return ids;
  }

  /** The word's starting symbols: characters, byte-fallback tokens or (fused) unknowns. */
  #symbols(word: string): number[] {
    const chars = [...word];
    const ids: number[] = [];
    let pendingUnk = false;
    chars.forEach((ch, i) => {
      let s = ch;
      if (i > 0) s = this.#prefix + s;
      if (i === chars.length - 1) s += this.#suffix;
      const id = this.vocab.get(s);
      if (id !== undefined) {
        if (pendingUnk) ids.push(this.#unk!);
        pendingUnk = false;
        ids.push(id);
        return;
      }
      if (this.#byteFallback) {
        const bytes = Array.from(UTF8.encode(s), (b) => this.#byteFallback![b]);
        if (bytes.every((b) => b >= 0)) {
          ids.push(...bytes);
          return;
        }
      }
      if (this.#unk !== null) {
        if (pendingUnk && !this.#fuseUnk) ids.push(this.#unk);
        pendingUnk = true;
      }
    });
    if (pendingUnk) ids.push(this.#unk!);
    return ids;
  }

  /** Merges by rank until no neighbouring pair has a merge (word.rs merge_all). */
  #merge(ids: number[]): number[] {
    const n = ids.length;
    if (n < 2) return ids;
    const symbol = Int32Array.from(ids);
    const prev = new Int32Array(n).map((_, i) => i - 1);
    const next = new Int32Array(n).map((_, i) => (i + 1 < n ? i + 1 : -1));
    const alive = new Uint8Array(n).fill(1);
    const heap = new MergeHeap();
    for (let i = 0; i + 1 < n; i++) {
      const rank = this.#merges.rank(symbol[i], symbol[i + 1]);
      if (rank >= 0) heap.push(rank, i);
    }
    while (heap.size > 0) {
      const [rank, pos] = heap.pop();
      if (!alive[pos]) continue;
      const right = next[pos];
      if (right < 0) continue;
      // A stale entry: the pair at pos has changed since it was queued.
      if (this.#merges.rank(symbol[pos], symbol[right]) !== rank) continue;
      symbol[pos] = this.#merges.mergedId(rank);
      alive[right] = 0;
      next[pos] = next[right];
      if (next[right] >= 0) prev[next[right]] = pos;
      if (prev[pos] >= 0) {
        const r = this.#merges.rank(symbol[prev[pos]], symbol[pos]);
        if (r >= 0) heap.push(r, prev[pos]);
      }
      if (next[pos] >= 0) {
        const r = this.#merges.rank(symbol[pos], symbol[next[pos]]);
        if (r >= 0) heap.push(r, pos);
      }
    }
    const out: number[] = [];
    for (let i = 0; i >= 0 && i < n; i = next[i]) out.push(symbol[i]);
    return out;
  }
}

/**
 * The merges as an open-addressing hash table: pair of ids (a, b) -> rank, and rank ->
 * the merged id. A later merge of the same pair replaces an earlier one (as in tokenizers).
 */
class MergeTable {
  readonly #left: Int32Array;
  readonly #right: Int32Array;
  readonly #rank: Int32Array;
  readonly #mergedIds: Int32Array;
  readonly #mask: number;

  constructor(count: number) {
    let capacity = 16;
    while (capacity < count * 2) capacity *= 2;
    this.#left = new Int32Array(capacity).fill(-1);
    this.#right = new Int32Array(capacity);
    this.#rank = new Int32Array(capacity);
    this.#mergedIds = new Int32Array(count);
    this.#mask = capacity - 1;
  }

  #slot(a: number, b: number): number {
    let i = (Math.imul(a, 0x9e3779b1) ^ Math.imul(b, 0x85ebca77)) & this.#mask;
    while (this.#left[i] !== -1 && (this.#left[i] !== a || this.#right[i] !== b)) i = (i + 1) & this.#mask;
    return i;
  }

  set(a: number, b: number, rank: number, mergedId: number): void {
    const i = this.#slot(a, b);
    this.#left[i] = a;
    this.#right[i] = b;
    this.#rank[i] = rank;
    this.#mergedIds[rank] = mergedId;
  }

  /** The pair's merge rank, or -1. */
  rank(a: number, b: number): number {
    const i = this.#slot(a, b);
    return this.#left[i] === -1 ? -1 : this.#rank[i];
  }

  mergedId(rank: number): number {
    return this.#mergedIds[rank];
  }
}

/** A binary min-heap of (rank, position), lowest rank first, then leftmost. */
class MergeHeap {
  #ranks: number[] = [];
  #positions: number[] = [];

  get size(): number {
    return this.#ranks.length;
  }

  #less(i: number, j: number): boolean {
    const r = this.#ranks;
    return r[i] < r[j] || (r[i] === r[j] && this.#positions[i] < this.#positions[j]);
  }

  #swap(i: number, j: number): void {
    [this.#ranks[i], this.#ranks[j]] = [this.#ranks[j], this.#ranks[i]];
    [this.#positions[i], this.#positions[j]] = [this.#positions[j], this.#positions[i]];
  }

  push(rank: number, position: number): void {
    this.#ranks.push(rank);
    this.#positions.push(position);
    for (let i = this.#ranks.length - 1; i > 0;) {
      const parent = (i - 1) >> 1;
      if (!this.#less(i, parent)) break;
      this.#swap(i, parent);
      i = parent;
    }
  }

  pop(): [rank: number, position: number] {
    const top: [number, number] = [this.#ranks[0], this.#positions[0]];
    const lastRank = this.#ranks.pop()!;
    const lastPosition = this.#positions.pop()!;
    if (this.#ranks.length > 0) {
      this.#ranks[0] = lastRank;
      this.#positions[0] = lastPosition;
      for (let i = 0; ;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < this.#ranks.length && this.#less(l, m)) m = l;
        if (r < this.#ranks.length && this.#less(r, m)) m = r;
        if (m === i) break;
        this.#swap(i, m);
        i = m;
      }
    }
    return top;
  }
}
