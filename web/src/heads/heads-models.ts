// The models the "What heads do" view works on, as the Explore page lists them: the shipped
// trained checkpoints, the model handed over from the Train view and the pretrained checkpoint
// loaded on this page (kept in the engine worker; model/pretrained-models.ts names it). Each
// resolves to the worker's reference and the view's starting texts (the text every tool
// reads, and the patching pair).
import { checkpointIndex, loadCheckpoint } from '../model/checkpoint.js';
import type { HeadsModelRef } from '../model/heads-results.js';
import { PATCH_EXAMPLE, patchPair } from '../model/heads-state.js';
import { charactersAreTokens, tokensAsInput } from '../model/probe-input.js';
import {
  isPretrainedId,
  pretrainedExample,
  pretrainedId,
  pretrainedLabel,
  pretrainedModel,
} from '../model/pretrained-models.js';
import { TRAINED_MODEL_ID, trainedModel } from '../model/trained-models.js';
import { trainStateFromHash } from '../settings/train-settings.js';

export interface HeadsModelChoice {
  id: string;
  label: string;
}

export interface HeadsModel {
  id: string;
  label: string;
  ref: HeadsModelRef;
  /** The text to start from: a trained model's example without its last token (the model predicts it). */
  example: string;
  clean: string;
  corrupted: string;
}

/** The picker's models: the shipped ones (if their index loads), the Train view's, the loaded pretrained one. */
export async function headsModelChoices(): Promise<HeadsModelChoice[]> {
  const list: HeadsModelChoice[] = (await checkpointIndex().catch(() => [])).map(({ id, title }) => ({
    id,
    label: title,
  }));
  const offered = trainedModel();
  if (offered) list.push({ id: TRAINED_MODEL_ID, label: `Your trained model (${offered.label})` });
  const pretrained = pretrainedModel();
  if (pretrained) list.push({ id: pretrainedId(pretrained), label: pretrainedLabel(pretrained) });
  return list;
}

/** A trained model's texts from its example tokens. */
function trainedTexts(tokens: readonly string[], characters: boolean) {
  const prompt = tokens.slice(0, -1);
  const pair = patchPair(prompt);
  return {
    example: tokensAsInput(prompt, characters),
    clean: tokensAsInput(pair?.clean ?? prompt, characters),
    corrupted: tokensAsInput(pair?.corrupted ?? prompt, characters),
  };
}

/** A model by its id; rejects with a message for people when there is no such model in this tab. */
export async function headsModel(id: string): Promise<HeadsModel> {
  if (isPretrainedId(id)) {
    const info = pretrainedModel();
    if (!info || pretrainedId(info) !== id)
      throw new Error(
        `The pretrained model \u2018${id.slice('pretrained:'.length)}\u2019 is not loaded in this tab: load it on the Explore page (\u201cLoad a pretrained model\u2026\u201d), then come back.`,
      );
    return {
      id,
      label: pretrainedLabel(info),
      ref: { pretrained: { key: info.key } },
      example: pretrainedExample(info),
      ...PATCH_EXAMPLE,
    };
  }
  if (id === TRAINED_MODEL_ID) {
    const offered = trainedModel();
    if (!offered)
      throw new Error(
        'No model was handed over from the Train view in this tab: train one there and press \u201cExplore this model\u201d.',
      );
    const characters = charactersAreTokens(trainStateFromHash(`#train&${offered.settings}`).state);
    const tokens = characters ? Array.from(offered.example) : offered.example.split(/\s+/).filter(Boolean);
    return {
      id,
      label: `Your trained model (${offered.label})`,
      ref: { trained: { key: `trained:${offered.key}`, settings: offered.settings, weights: offered.weights } },
      ...trainedTexts(tokens, characters),
    };
  }
  const list = await checkpointIndex().catch(() => []);
  if (!list.some((c) => c.id === id))
    throw new Error(
      `There is no model \u2018${id}\u2019 here${list.length ? `; the trained models are ${list.map((c) => `\u2018${c.id}\u2019`).join(', ')}` : ''}.`,
    );
  const { record, weights, timeline } = await loadCheckpoint(id);
  const characters = charactersAreTokens(trainStateFromHash(`#train&${record.settings}`).state);
  return {
    id,
    label: record.title,
    // The Explore page's key: the worker builds the model once for both views.
    ref: { trained: { key: `checkpoint:${id}`, settings: record.settings, weights } },
    ...trainedTexts(timeline.at(-1)?.probe.tokens ?? [], characters),
  };
}
