// The name of the one-tag element's on-demand generation part (element/generate-entry.ts:
// the Generate panel and its engine glue), written beside element.js by
// vite.element.config.ts and loaded from there by index.ts, and the global it hands its
// entry points over on (a classic script's one way out).
export const GENERATE_SCRIPT = 'attention-playground-generate.js';
export const GENERATE_GLOBAL = '__attentionPlaygroundGenerate';
