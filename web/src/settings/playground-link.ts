// "Open in the playground": the playground page's URL that reopens what an embed shows: its
// settings (the model, the text, the view) in the hash as the page reads them, and the
// Generate panel's prompt, settings and branch in the hash's 'gen.*' keys.
import { DEFAULT_GENERATION_STATE, withGenerationState, type GenerationState } from '../model/generation-state.js';
import { PAGE_DEFAULT_STATE, stateToHash, type State } from './settings.js';

/**
 * `page` (the playground's index.html) with a hash that reopens `state` and, if given, the generation: its
 * prompt always written (the page's panel would start from the playground's text, and opens for a link with one).
 */
export function playgroundLink(page: string | URL, state: State, generation: GenerationState | null = null): string {
  const hash = stateToHash(state, PAGE_DEFAULT_STATE);
  const url = new URL(page);
  url.hash = generation ? withGenerationState(hash, generation, { ...DEFAULT_GENERATION_STATE, prompt: '' }) : hash;
  return url.href;
}
