/**
 * The one-tag element's full engine (dist/attention-playground-pretrained.js, a classic
 * script built by vite.element.config.ts): the SIMD build with the pretrained loaders,
 * which the element (element-engine.ts) leaves out. Loaded beside the element only when
 * someone loads a pretrained checkpoint; it hands its module factory over on a global,
 * the one way a classic script (the only kind a file:// page can load) can.
 * @internal
 * @packageDocumentation
 */
import { FULL_ENGINE_GLOBAL } from './element-global.js';
// @ts-ignore -- emcc glue with the gzip-compressed .wasm built in (scripts/inline-wasm.mjs --gzip), typed by Factory
import createSimd from './wasm/attention-simd-gzip-inline.mjs';

(globalThis as Record<string, unknown>)[FULL_ENGINE_GLOBAL] = createSimd;
