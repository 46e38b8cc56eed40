// The name of the one-tag element's on-demand part, the full engine with the pretrained
// loaders (wasm/src/element-pretrained.ts), written beside element.js by
// vite.element.config.ts and found there by index.ts.
export const PRETRAINED_SCRIPT = 'attention-playground-pretrained.js';
