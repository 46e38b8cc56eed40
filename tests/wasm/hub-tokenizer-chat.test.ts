// Chat templates (tokenizer_config.json's chat_template, rendered by @huggingface/jinja):
// the Qwen 3, Gemma 3 and Llama 3 files' templates for 3-turn conversations give the
// formats their model cards document, written out here by hand, and that text
// tokenizes to the ids the Rust tokenizers give it (each turn marker one special token).
import { Tokenizer as RustTokenizer } from 'tokenizers';
import { beforeAll, describe, expect, it } from 'vitest';
import { AttentionError } from '../../wasm/src/errors.js';
import { createHubTokenizer, type HubTokenizer } from '../../wasm/src/hub-tokenizer/index.js';
import { type FamilyFile, realFiles } from './hub-tokenizer-refs.js';

const SYSTEM_USER_ASSISTANT = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'What is 2+2?' },
  { role: 'assistant', content: 'Four.' },
];
const USER_ASSISTANT_USER = [
  { role: 'user', content: 'Hi' },
  { role: 'assistant', content: 'Hello!' },
  { role: 'user', content: 'Bye' },
];

/** The documented formats. */
const EXPECTED: Partial<Record<FamilyFile, { conversation: string; generationPrompt: string; marker: string }>> = {
  // ChatML (Qwen's model cards): '<|im_start|>{role}\n{content}<|im_end|>\n'; Qwen 3's template
  // writes an empty thinking block into the last assistant turn (its non-thinking format).
  qwen3: {
    conversation:
      '<|im_start|>system\nYou are terse.<|im_end|>\n<|im_start|>user\nWhat is 2+2?<|im_end|>\n' +
      '<|im_start|>assistant\n<think>\n\n</think>\n\nFour.<|im_end|>\n',
    generationPrompt:
      '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n' +
      '<|im_start|>assistant\n',
    marker: '<|im_start|>',
  },
  // Gemma 3's model card: '<bos><start_of_turn>user\n{system}\n\n{user}<end_of_turn>\n<start_of_turn>model\n...';
  // the system prompt goes into the first user turn.
  gemma3: {
    conversation:
      '<bos><start_of_turn>user\nYou are terse.\n\nWhat is 2+2?<end_of_turn>\n<start_of_turn>model\nFour.<end_of_turn>\n',
    generationPrompt:
      '<bos><start_of_turn>user\nHi<end_of_turn>\n<start_of_turn>model\nHello!<end_of_turn>\n' +
      '<start_of_turn>user\nBye<end_of_turn>\n<start_of_turn>model\n',
    marker: '<start_of_turn>',
  },
  // Llama 3's model card: '<|begin_of_text|><|start_header_id|>{role}<|end_header_id|>\n\n{content}<|eot_id|>';
  // this file's template always ends with the assistant's header.
  llama3: {
    conversation:
      '<|begin_of_text|><|start_header_id|>system<|end_header_id|>\n\nYou are terse.<|eot_id|>' +
      '<|start_header_id|>user<|end_header_id|>\n\nWhat is 2+2?<|eot_id|>' +
      '<|start_header_id|>assistant<|end_header_id|>\n\nFour.<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n',
    generationPrompt:
      '<|begin_of_text|><|start_header_id|>user<|end_header_id|>\n\nHi<|eot_id|>' +
      '<|start_header_id|>assistant<|end_header_id|>\n\nHello!<|eot_id|>' +
      '<|start_header_id|>user<|end_header_id|>\n\nBye<|eot_id|><|start_header_id|>assistant<|end_header_id|>\n\n',
    marker: '<|start_header_id|>',
  },
};

describe.each(['qwen3', 'gemma3', 'llama3'] as const)('%s chat template', (family) => {
  let ours: HubTokenizer;
  let rust: RustTokenizer;
  const expected = EXPECTED[family]!;
  beforeAll(() => {
    const files = realFiles(family);
    ours = createHubTokenizer(files.text, files.configText);
    rust = RustTokenizer.fromString(files.text);
  }, 60_000);

  it('renders a 3-turn conversation, and one ending with the generation prompt, as documented', async () => {
    expect(ours.chatTemplate).toBe(realFiles(family).config.chat_template);
    expect(await ours.applyChatTemplate(SYSTEM_USER_ASSISTANT)).toBe(expected.conversation);
    expect(await ours.applyChatTemplate(USER_ASSISTANT_USER, { addGenerationPrompt: true })).toBe(
      expected.generationPrompt,
    );
  });

  it('tokenizes the rendered text to the ids Rust gives, each turn marker one special token', async () => {
    for (const text of [expected.conversation, expected.generationPrompt]) {
      // The template already holds BOS where the model wants it, so no special tokens are added.
      const encoding = ours.encode(text, { addSpecialTokens: false });
      expect(Array.from(encoding.ids)).toEqual((await rust.encode(text, null, { addSpecialTokens: false })).getIds());
      const marker = ours.idOf(expected.marker)!;
      expect(ours.isSpecial(marker)).toBe(true);
      expect(Array.from(encoding.ids).filter((id) => id === marker)).toHaveLength(
        text.split(expected.marker).length - 1,
      );
    }
  });
});

describe('chat template errors', () => {
  // Gemma 3's template (it refuses turns that do not alternate) over Llama 2's small file.
  let gemma: HubTokenizer;
  beforeAll(() => {
    const template = realFiles('gemma3').config.chat_template;
    gemma = createHubTokenizer(realFiles('llama2').text, JSON.stringify({ chat_template: template, bos_token: '<s>' }));
  }, 60_000);

  async function rejection(promise: Promise<unknown>): Promise<AttentionError> {
    const error = await promise.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(AttentionError);
    return error as AttentionError;
  }

  it('names the file when there is no chat template', async () => {
    const files = realFiles('llama2'); // Llama 2's base tokenizer_config.json has none
    const llama2 = createHubTokenizer(files.text, files.configText);
    expect(llama2.chatTemplate).toBe(null);
    const error = await rejection(llama2.applyChatTemplate(USER_ASSISTANT_USER));
    expect(error.field).toBe('tokenizer_config.json: chat_template');
    const noConfig = createHubTokenizer(files.text, null);
    expect((await rejection(noConfig.applyChatTemplate(USER_ASSISTANT_USER))).field).toBe(
      'tokenizer_config.json: chat_template',
    );
  });

  it('refuses malformed turns and options, naming them', async () => {
    expect((await rejection(gemma.applyChatTemplate('hi' as never))).field).toBe('turns');
    expect((await rejection(gemma.applyChatTemplate([{ role: 'user', content: 3 }] as never))).field).toBe('turns[0]');
    expect(
      (await rejection(gemma.applyChatTemplate(USER_ASSISTANT_USER, { addGenerationPrompt: 'yes' as never }))).field,
    ).toBe('addGenerationPrompt');
  });

  it("reports the template's own refusal (Gemma's roles must alternate) as an error on the turns", async () => {
    const error = await rejection(
      gemma.applyChatTemplate([
        { role: 'user', content: 'a' },
        { role: 'user', content: 'b' },
      ]),
    );
    expect(error.field).toBe('turns');
    expect(error.message).toMatch(/alternate/);
  });

  it('reports a template that does not parse as a bad file', async () => {
    const files = realFiles('llama2');
    const broken = createHubTokenizer(files.text, JSON.stringify({ ...files.config, chat_template: '{% for %}' }));
    const error = await rejection(broken.applyChatTemplate(USER_ASSISTANT_USER));
    expect(error.code).toBe('bad_file');
    expect(error.field).toBe('tokenizer_config.json: chat_template');
  });
});
