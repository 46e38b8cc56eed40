// Chat templates (tokenizer_config.json's chat_template, rendered by @huggingface/jinja):
// 3-turn conversations and the texts the Qwen 3, Gemma 3 and Llama 3 files' templates must
// give for them, in the formats their model cards document, written out here by hand.
// hub-tokenizer.test.ts renders them with each real file and tokenizes the text against Rust.
import type { FamilyFile } from './hub-tokenizer-refs.js';

export const SYSTEM_USER_ASSISTANT = [
  { role: 'system', content: 'You are terse.' },
  { role: 'user', content: 'What is 2+2?' },
  { role: 'assistant', content: 'Four.' },
];
export const USER_ASSISTANT_USER = [
  { role: 'user', content: 'Hi' },
  { role: 'assistant', content: 'Hello!' },
  { role: 'user', content: 'Bye' },
];

/** The documented formats. */
export const EXPECTED_CHAT: Partial<
  Record<FamilyFile, { conversation: string; generationPrompt: string; marker: string }>
> = {
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
