// The Generate panel on the Explore page: <ap-generate-panel> after the playground,
// following the model the playground shows (after each of its runs, its 'trace' event;
// which models generate: model/generation-source.ts). The panel
// keeps its state in the URL hash ('gen.*' keys) beside the playground's settings.
import type { Playground } from '../playground/playground.js';
import '../generate/generate-panel.js';
import type { GeneratePanel, GenerationState } from '../generate/generate-panel.js';
import type { EngineClient } from '../workers/client.js';
import { choiceKey, generationChoice } from '../model/generation-source.js';

/** What the playground shows, as the panel's model (model/generation-source.ts). */
function follow(playground: Playground) {
  return generationChoice(
    playground.pretrained,
    playground.state.model !== '' ? (playground.model?.ref ?? null) : null,
  );
}

/**
 * Puts a Generate panel after `playground` and keeps it on the playground's model. Its state
 * lives in the URL hash, or, given `state` (the iframe's, from its query), starts there.
 */
export function attachGeneratePanel(
  playground: Playground,
  engine: EngineClient,
  state?: GenerationState,
): GeneratePanel {
  const panel = document.createElement('ap-generate-panel');
  if (state) panel.state = state;
  else panel.syncHash = true;
  panel.engine = engine.generation();
  let last = '';
  const update = () => {
    const next = follow(playground);
    const key = choiceKey(next);
    if (key === last) return;
    last = key;
    panel.source = next.source;
    panel.unavailable = next.unavailable;
    panel.chatAvailable = next.chat;
  };
  playground.addEventListener('trace', update);
  playground.after(panel);
  update();
  return panel;
}
