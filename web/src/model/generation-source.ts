// Which model a Generate panel generates with, read off what a playground shows: a loaded
// pretrained checkpoint or a trained decoder generates; an encoder (BERT), a checkpoint
// without an output head or the untrained playground model get a sentence saying why not.
// Shared by the Explore page (app/generate-slot.ts) and the element's generate mode
// (element/attention-playground.ts), so both say the same.
import type { PretrainedInfo } from './pretrained-info.js';

/** What the panel is given: a model to generate with (pretrained by key, or the trained model's ref), or why none. */
export type GenerationChoice<Ref extends { key: string }> =
  | { source: { pretrained: { key: string } } | { trained: Ref }; unavailable: ''; chat: boolean }
  | { source: null; unavailable: string; chat: false };

/**
 * The playground's model as the panel's choice: `trained` is the trained model's ref when one is shown; `notLoaded`
 * the name of the pretrained model the playground's setting asks for when it is not loaded in this tab (a link).
 */
export function generationChoice<Ref extends { key: string }>(
  pretrained: Pick<PretrainedInfo, 'key' | 'name' | 'causal' | 'predicts' | 'chat'> | null,
  trained: Ref | null,
  notLoaded: string | null = null,
  /** Where the person picks another model: the page's Model picker, or (an element without one) its `model` attribute. */
  picker: 'picker' | 'attribute' = 'picker',
): GenerationChoice<Ref> {
  if (pretrained) {
    if (!pretrained.causal)
      return {
        source: null,
        chat: false,
        unavailable:
          `${pretrained.name} is an encoder: it reads the whole text at once, in both directions, and guesses masked ` +
          'words; it has no next token to write. Load a causal model (GPT-2, SmolLM2, Qwen, Llama, Gemma) to generate.',
      };
    if (!pretrained.predicts)
      return {
        source: null,
        chat: false,
        unavailable: `${pretrained.name} has no output head (no logits): it cannot write.`,
      };
    return { source: { pretrained: { key: pretrained.key } }, unavailable: '', chat: pretrained.chat };
  }
  if (trained !== null) return { source: { trained }, unavailable: '', chat: false };
  if (notLoaded !== null)
    return {
      source: null,
      chat: false,
      unavailable:
        `The pretrained model \u2018${notLoaded}\u2019 is not loaded in this tab: ` +
        (picker === 'picker'
          ? 'load it again with \u201cLoad a pretrained model\u2026\u201d in the Model picker to generate with it.'
          : 'an element loads one only with its Model picker: show it (controls="model") and use ' +
            '\u201cLoad a pretrained model\u2026\u201d to generate with it.'),
    };
  return {
    source: null,
    chat: false,
    unavailable:
      'The untrained playground model has no output head to predict a next token with. ' +
      (picker === 'picker'
        ? 'Pick a trained model in the Model picker, or try a real model (GPT-2), to generate.'
        : 'Name a trained model in the element\u2019s model attribute (model="reverse", "sort" or "induction") to generate.'),
  };
}

/** Tells choices apart (a new key: the panel gets the new model). */
export function choiceKey(choice: GenerationChoice<{ key: string }>): string {
  const { source } = choice;
  return JSON.stringify([source && 'trained' in source ? source.trained.key : source, choice.unavailable, choice.chat]);
}
