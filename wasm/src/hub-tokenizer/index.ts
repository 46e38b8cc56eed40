// Tokenizers from a model hub's tokenizer.json: the public part.
export { createHubTokenizer, HubTokenizer } from './tokenizer.js';
export type { ChatTurn, ChatTemplateOptions } from './chat-template.js';
