// The Generate panel on the Explore page: <ap-generate-panel> after the playground,
// following the model the playground shows (after each of its runs, its 'trace' event): a
// loaded pretrained checkpoint or a trained decoder generates; an encoder (BERT), a model
// without an output head or the untrained playground model say why they cannot. The panel
// keeps its state in the URL hash ('gen.*' keys) beside the playground's settings.
import type { Playground } from '../playground/playground.js';
import '../generate/generate-panel.js';
import type { GeneratePanel, GenerationSource } from '../generate/generate-panel.js';
import type { EngineClient } from '../workers/client.js';
import { DEFAULT_GENERATION_STATE } from '../model/generation-state.js';

interface Follow {
  source: GenerationSource | null;
  unavailable: string;
  chat: boolean;
}

/** What the playground shows, as the panel's model. */
function follow(playground: Playground): Follow {
  const info = playground.pretrained;
  if (info) {
    if (!info.causal)
      return {
        source: null,
        chat: false,
        unavailable:
          `${info.name} is an encoder: it reads the whole text at once, in both directions, and guesses masked ` +
          'words; it has no next token to write. Load a causal model (GPT-2, SmolLM2, Qwen, Llama, Gemma) to generate.',
      };
    if (!info.predicts)
      return {
        source: null,
        chat: false,
        unavailable: `${info.name} has no output head (no logits): it cannot write.`,
      };
    return { source: { pretrained: { key: info.key } }, unavailable: '', chat: info.chat };
  }
  if (playground.state.model !== '' && playground.model)
    return { source: { trained: playground.model.ref }, unavailable: '', chat: false };
  return {
    source: null,
    chat: false,
    unavailable:
      'The untrained playground model has no output head to predict a next token with. Pick a trained model in the ' +
      'Model picker, or try a real model (GPT-2), to generate.',
  };
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

/** Puts a Generate panel after `playground` and keeps it on the playground's model. */
export function attachGeneratePanel(playground: Playground, engine: EngineClient): GeneratePanel {
  const panel = document.createElement('ap-generate-panel');
  panel.syncHash = true;
  panel.engine = engine.generation();
  let last = '';
  // The panel's prompt follows the playground's text on each model (a link leaves it out: the panel's defaults),
  // unless a link or the person gave another.
  let suggested: string | null = panel.state.prompt === panel.defaults.prompt ? panel.defaults.prompt : null;
  let first = true;
  const update = () => {
    const next = follow(playground);
    const key = JSON.stringify([
      next.source && 'pretrained' in next.source ? next.source : next.source?.trained.key,
      next.unavailable,
      next.chat,
    ]);
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
