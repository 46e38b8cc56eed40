// Shared by the one-tag element's engine (element-engine.ts) and its full engine's script
// (element-pretrained.ts), which must not import each other's engines.

/** The global the full engine's classic script puts its module factory on. */
export const FULL_ENGINE_GLOBAL = '__attentionPlaygroundFullEngine';
