// The Generate panel on the Explore page: <ap-generate-panel> after the playground,
// following the model the playground shows (after each of its runs, its 'trace' event;
// which models generate: model/generation-source.ts). The panel
// keeps its state in the URL hash ('gen.*' keys) beside the playground's settings.
import type { Playground } from '../playground/playground.js';
import '../generate/generate-panel.js';
import type { GeneratePanel, GenerationSource, GenerationState } from '../generate/generate-panel.js';
import type { EngineClient } from '../workers/client.js';
import { choiceKey, generationChoice } from '../model/generation-source.js';
import { DEFAULT_GENERATION_STATE } from '../model/generation-state.js';
import { PRETRAINED_PREFIX, isPretrainedId } from '../model/pretrained-models.js';

/** What the playground shows, as the panel's model (model/generation-source.ts). */
function follow(playground: Playground) {
  const { model } = playground.state;
  return generationChoice(
    playground.pretrained,
    model !== '' ? (playground.model?.ref ?? null) : null,
    // a link to a checkpoint loaded from files in another tab: the playground says to load it again, and so does the panel
    isPretrainedId(model) ? model.slice(PRETRAINED_PREFIX.length) : null,
  );
}

/**
 * A prompt to start from on the playground's model: its text, a trained model's up to its task's separator '|' (what
 * comes after it is the answer the model is to write).
 */
function promptFor(playground: Playground, source: GenerationSource): string {
  const text = playground.state.text.split('\n')[0] ?? '';
  if ('trained' in source && text.includes('|')) return text.slice(0, text.indexOf('|') + 1);
  return text;
}

/**
 * Puts a Generate panel after `playground` and keeps it on the playground's model. Its state
 * lives in the URL hash, or, given `state` (the iframe's, from its query), starts there, open.
 */
export function attachGeneratePanel(
  playground: Playground,
  engine: EngineClient,
  state?: GenerationState,
): GeneratePanel {
  const panel = document.createElement('ap-generate-panel');
  if (state) Object.assign(panel, { state, open: true });
  else panel.syncHash = true;
  panel.engine = engine.generation();
  let last = '';
  // The panel's prompt follows the playground's text on each model (a link leaves it out: the panel's defaults),
  // unless a link or the person gave another.
  let suggested: string | null = panel.state.prompt === panel.defaults.prompt ? panel.defaults.prompt : null;
  let first = true;
  const update = () => {
    const next = follow(playground);
    const key = choiceKey(next);
    if (key === last) return;
    last = key;
    panel.source = next.source;
    panel.unavailable = next.unavailable;
    panel.chatAvailable = next.chat;
    if (next.source && suggested !== null && panel.state.prompt === suggested) {
      suggested = promptFor(playground, next.source);
      panel.defaults = { ...DEFAULT_GENERATION_STATE, prompt: suggested };
      // a link's branch belongs to the first model it opens on; another model starts the prompt again
      if (suggested !== panel.state.prompt)
        panel.state = { ...panel.state, prompt: suggested, path: first ? panel.state.path : [] };
    }
    if (next.source) first = false;
  };
  playground.addEventListener('trace', update);
  playground.after(panel);
  update();
  return panel;
}
