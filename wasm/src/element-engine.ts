/**
 * The one-tag element's engine (vite.element.config.ts resolves 'attention-playground' here;
 * not a package entry point): the same API, with one engine embedded, the SIMD build
 * linked without the pretrained loaders (attention-simd-embed, wasm/CMakeLists.txt), its
 * .wasm gzip-compressed in the JavaScript. Every browser that runs such a page has wasm
 * SIMD; one without gets {@link elementEngineProblem}'s sentence, not a trap. The full SIMD
 * engine, with the pretrained loaders, comes from a classic script beside the element
 * (element-pretrained.ts) only when someone loads a pretrained checkpoint.
 * @internal
 * @packageDocumentation
 */
import { AttentionEngine } from './engine.js';
import { AttentionError } from './errors.js';
import { runsSimd } from './build-choice.js';
import type { Factory } from './loader.js';
// @ts-ignore -- emcc glue with the gzip-compressed .wasm built in (scripts/inline-wasm.mjs --gzip), typed by Factory
import createEmbedded from './wasm/attention-simd-embed-inline.mjs';

export * from './api.js';
export { FULL_ENGINE_GLOBAL } from './element-global.js';
export type { Factory } from './loader.js';

/** Why this runtime cannot run the element's engine, as a sentence for the page; null when it can. */
export function elementEngineProblem(): string | null {
  if (!runsSimd())
    return (
      'This attention playground needs WebAssembly SIMD, which this browser does not support ' +
      '(Chrome and Edge 91, Firefox 89 and Safari 16.4 have it): open the page in a current browser.'
    );
  if (typeof DecompressionStream !== 'function')
    return (
      'This attention playground needs DecompressionStream to unpack its engine, which this browser ' +
      'does not have (Chrome 80, Firefox 113 and Safari 16.4 have it): open the page in a current browser.'
    );
  return null;
}

/**
 * Loads the element's engine, or with `factory` (the full engine's, from its script) that
 * one. Where the runtime cannot run it, an AttentionError with elementEngineProblem()'s sentence.
 */
export async function loadAttention(options: { factory?: Factory } = {}): Promise<AttentionEngine> {
  const problem = elementEngineProblem();
  if (problem) throw new AttentionError(problem, { field: 'build', value: 'simd' });
  const factory = options.factory ?? (createEmbedded as Factory);
  return new AttentionEngine(await factory({}), 'simd', 1);
}
