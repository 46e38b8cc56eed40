// tokenizer.json files made from the real ones for the components the four real files do
// not use (or use where they change nothing): Llama 3.2's BOS template, SmolLM2's Digits +
// ByteLevel regex, Metaspace (TinyLlama-style files with legacy=false), the other
// normalizers, every Split behaviour and invert. The byte-level ones sit on a small BPE
// cut from Qwen 3's (its first merges, their tokens at their own ids), so each loads in
// milliseconds; the SentencePiece-style ones on Llama 2's file.
import type { Json } from './hub-tokenizer-refs.js';

const MERGES_KEPT = 20_000;

/**
 * Qwen 3's byte-level BPE cut to its first merges: the 256 byte characters, each kept
 * merge and its result, numbered 0.. in Qwen's order (a dense vocabulary, as real files
 * have: tokenizers numbers added tokens from the vocabulary's size on).
 */
export function smallByteLevelModel(qwen3: Json): Json {
  const model = qwen3.model as { vocab: Record<string, number>; merges: [string, string][] };
  const merges = model.merges.slice(0, MERGES_KEPT);
  const kept = new Set<string>();
  for (const token of Object.keys(model.vocab)) if ([...token].length === 1) kept.add(token);
  for (const [a, b] of merges) for (const t of [a, b, a + b]) kept.add(t);
  const ordered = [...kept].sort((a, b) => model.vocab[a] - model.vocab[b]);
  const vocab = Object.fromEntries(ordered.map((token, id) => [token, id]));
  return { ...model, vocab, merges, continuing_subword_prefix: null, end_of_word_suffix: null };
}

/** Added tokens renumbered after the model's vocabulary. */
function addedAfter(model: Json, added: unknown): { id: number; content: string }[] {
  const size = Object.keys(model.vocab as object).length;
  return (added as { id: number; content: string }[]).map((token, i) => ({ ...token, id: size + i }));
}

const byteLevel = (addPrefixSpace: boolean, useRegex: boolean) => ({
  type: 'ByteLevel',
  add_prefix_space: addPrefixSpace,
  trim_offsets: true,
  use_regex: useRegex,
});
const regex = (pattern: string) => ({ Regex: pattern });
const split = (pattern: object, behavior: string, invert = false) => ({ type: 'Split', pattern, behavior, invert });

function bosTemplate(token: string, id: number) {
  const special = (type_id: number) => ({ SpecialToken: { id: token, type_id } });
  const sequence = (name: string, type_id: number) => ({ Sequence: { id: name, type_id } });
  return {
    type: 'TemplateProcessing',
    single: [special(0), sequence('A', 0)],
    pair: [special(0), sequence('A', 0), special(1), sequence('B', 1)],
    special_tokens: { [token]: { id: token, ids: [id], tokens: [token] } },
  };
}

/** name -> tokenizer.json. */
export function variants(real: { llama3: Json; qwen3: Json; llama2: Json }): Record<string, Json> {
  const small = smallByteLevelModel(real.qwen3);
  const qwenAdded = addedAfter(small, real.qwen3.added_tokens);
  const llamaAdded = addedAfter(small, real.llama3.added_tokens);
  const bos = llamaAdded.find((t) => t.content === '<|begin_of_text|>')!.id;
  const byteLevelFile = (parts: Json): Json => ({
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: qwenAdded,
    normalizer: null,
    pre_tokenizer: byteLevel(false, true),
    post_processor: byteLevel(false, true),
    decoder: byteLevel(false, true),
    model: small,
    ...parts,
  });
  const llama3 = real.llama3 as Json & { pre_tokenizer: Json };
  const sentencePiece = (parts: Json): Json => ({ ...real.llama2, ...parts });
  // Added tokens with every flag, numbered as tokenizers numbers them: a token the
  // vocabulary has keeps its id ('cat', 'dog'), the others follow the largest id so far.
  const flagged = (vocab: Record<string, number>, next: number) =>
    [
      { content: '<mask>', lstrip: true, special: true, normalized: false },
      { content: '[END]', rstrip: true, special: true, normalized: false },
      { content: 'cat', single_word: true, special: false, normalized: false },
      { content: 'dog', special: false, normalized: true },
      { content: 'Hello World', special: false, normalized: true },
    ].map((token) => ({
      lstrip: false,
      rstrip: false,
      single_word: false,
      ...token,
      id: vocab[token.content] ?? next++,
    }));
  const llama2Added = real.llama2.added_tokens as unknown[];
  return {
    'added-token-flags': sentencePiece({
      added_tokens: [...llama2Added, ...flagged((real.llama2.model as { vocab: Record<string, number> }).vocab, 32000)],
    }),
    'added-token-flags-byte-level': byteLevelFile({
      added_tokens: [
        ...qwenAdded,
        ...flagged(small.vocab as Record<string, number>, Object.keys(small.vocab as object).length + qwenAdded.length),
      ],
    }),
    // Llama 3.1 / 3.2: BOS from a TemplateProcessing after ByteLevel.
    'llama3.2-template': byteLevelFile({
      added_tokens: llamaAdded,
      pre_tokenizer: llama3.pre_tokenizer,
      post_processor: { type: 'Sequence', processors: [byteLevel(true, true), bosTemplate('<|begin_of_text|>', bos)] },
    }),
    // SmolLM2: each digit alone, then GPT-2's regex in ByteLevel.
    smollm2: byteLevelFile({
      pre_tokenizer: {
        type: 'Sequence',
        pretokenizers: [{ type: 'Digits', individual_digits: true }, byteLevel(false, true)],
      },
    }),
    // GPT-2 itself: ByteLevel with a prefix space, no added tokens.
    'gpt2-prefix-space': byteLevelFile({ added_tokens: [], pre_tokenizer: byteLevel(true, true) }),
    normalizers: byteLevelFile({
      normalizer: {
        type: 'Sequence',
        normalizers: [
          { type: 'NFKD' },
          { type: 'Lowercase' },
          { type: 'Strip', strip_left: true, strip_right: true },
          { type: 'Replace', pattern: regex('\\s+'), content: ' ' },
          { type: 'NFC' },
        ],
      },
      pre_tokenizer: {
        type: 'Sequence',
        pretokenizers: [
          { type: 'WhitespaceSplit' },
          { type: 'Punctuation', behavior: 'Isolated' },
          { type: 'Digits', individual_digits: false },
          byteLevel(true, false),
        ],
      },
    }),
    'split-behaviours': byteLevelFile({
      normalizer: { type: 'NFKC' },
      pre_tokenizer: {
        type: 'Sequence',
        pretokenizers: [
          split(regex('\\s+'), 'Removed'),
          split({ String: '-' }, 'MergedWithNext'),
          split(regex('[,.!?]'), 'MergedWithPrevious'),
          split(regex('\\p{N}'), 'Contiguous'),
          split(regex('\\p{L}+'), 'Isolated', true),
          byteLevel(false, false),
        ],
      },
    }),
    'split-inverted': byteLevelFile({
      pre_tokenizer: {
        type: 'Sequence',
        pretokenizers: [split(regex('\\p{L}+|\\p{N}+'), 'Removed', true), byteLevel(false, false)],
      },
    }),
    // Gemma's Split on spaces with MergedWithPrevious, where it acts (no normalizer turning spaces into ▁ first).
    'merged-with-previous': sentencePiece({
      normalizer: null,
      pre_tokenizer: split({ String: ' ' }, 'MergedWithPrevious'),
    }),
    // TinyLlama / Llama files with legacy=false: Metaspace instead of Prepend + Replace.
    'metaspace-first': sentencePiece({
      normalizer: null,
      pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false },
      decoder: {
        type: 'Sequence',
        decoders: [
          { type: 'ByteFallback' },
          { type: 'Metaspace', replacement: '▁', prepend_scheme: 'first', split: false },
          { type: 'Fuse' },
        ],
      },
    }),
    'metaspace-always-split': sentencePiece({
      normalizer: null,
      pre_tokenizer: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
      decoder: { type: 'Metaspace', replacement: '▁', prepend_scheme: 'always', split: true },
    }),
  };
}
