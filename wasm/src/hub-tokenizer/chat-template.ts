// tokenizer_config.json's "chat_template": a Jinja template that turns chat turns into
// the text an instruct model reads ('<|im_start|>user\n...<|im_end|>\n' for Qwen,
// '<start_of_turn>user\n...<end_of_turn>\n' for Gemma). Rendered by @huggingface/jinja
// (loaded on first use, bundled into the package's dist/vendor/jinja.js) with the
// variables transformers' apply_chat_template passes: messages, add_generation_prompt
// and the special tokens' strings (bos_token, eos_token, ...).
import { AttentionError, describeValue } from '../errors.js';
import type { JsonField } from './json.js';

/** One turn of a chat: who speaks ('system', 'user', 'assistant') and what. */
export interface ChatTurn {
  role: string;
  content: string;
}

export interface ChatTemplateOptions {
  /** End with the start of the assistant's turn, so the model goes on as the assistant (default false). */
  addGenerationPrompt?: boolean;
}

/** The chat template of a tokenizer_config.json: a string, or a list of named ones ('default' is used). */
export function readChatTemplate(config: JsonField | null): string | null {
  if (!config) return null;
  const field = config.get('chat_template');
  if (field.isNull) return null;
  if (typeof field.value === 'string') return field.value;
  const named = field.items().map((item) => [item.get('name').string(), item.get('template').string()] as const);
  const chosen = named.find(([name]) => name === 'default');
  if (!chosen) throw field.bad(`has no template named "default" (it has ${named.map(([n]) => n).join(', ')})`);
  return chosen[1];
}

function checkTurns(turns: unknown): ChatTurn[] {
  if (!Array.isArray(turns))
    throw new AttentionError(`turns must be an array of { role, content }, got ${describeValue(turns)}`, {
      field: 'turns',
    });
  return turns.map((turn, i) => {
    const t = turn as Partial<ChatTurn> | null;
    if (typeof t !== 'object' || t === null || typeof t.role !== 'string' || typeof t.content !== 'string')
      throw new AttentionError(`turns[${i}] must be { role: string, content: string }`, {
        field: `turns[${i}]`,
        value: describeValue(turn),
      });
    return { role: t.role, content: t.content };
  });
}

/**
 * Renders `template` for the turns. `tokens` holds the special tokens' strings
 * (bos_token, eos_token, pad_token, unk_token) the template may use.
 */
export async function renderChatTemplate(
  template: string,
  turns: unknown,
  options: ChatTemplateOptions,
  tokens: Record<string, string | null>,
): Promise<string> {
  const messages = checkTurns(turns);
  const addGenerationPrompt = options?.addGenerationPrompt ?? false;
  if (typeof addGenerationPrompt !== 'boolean')
    throw new AttentionError(`addGenerationPrompt must be true or false, got ${describeValue(addGenerationPrompt)}`, {
      field: 'addGenerationPrompt',
      value: addGenerationPrompt,
    });
  const { Template } = await import('../vendor/jinja.js');
  let compiled;
  try {
    compiled = new Template(template);
  } catch (error) {
    throw new AttentionError(`tokenizer_config.json: chat_template cannot be parsed: ${(error as Error).message}`, {
      code: 'bad_file',
      field: 'tokenizer_config.json: chat_template',
      value: (error as Error).message,
    });
  }
  try {
    return compiled.render({ messages, add_generation_prompt: addGenerationPrompt, ...tokens });
  } catch (error) {
    // The template's own raise_exception (e.g. "Conversation roles must alternate") lands here.
    throw new AttentionError(`the chat template refused these turns: ${(error as Error).message}`, {
      field: 'turns',
      value: (error as Error).message,
    });
  }
}
