// The models the Explore page can show besides its untrained one: the shipped checkpoints
// (checkpoint.ts fetches them from the folder set once with setCheckpointBase) and the
// model handed over from the Train view (model/trained-models.ts). Each resolves to what
// the engine needs (TrainedModelRef) and what the page shows (a title, a first input).
import { trainStateFromHash } from '../settings/train-settings.js';
import { pretrainedId, pretrainedLabel, pretrainedModel } from '../model/pretrained-models.js';
import { TRAINED_MODEL_ID, trainedModel } from '../model/trained-models.js';
import { charactersAreTokens, tokensAsInput } from '../model/probe-input.js';
import { checkpointIndex, loadCheckpoint } from '../model/checkpoint.js';
import type { TrainedModelRef } from '../workers/trained-trace.js';

export interface ModelChoice {
  id: string;
  label: string;
}

export interface ExploreModel {
  /** The picker's id: a checkpoint's, or TRAINED_MODEL_ID. */
  id: string;
  label: string;
  /** What the model learned and how well (a shipped checkpoint's description and outcome); may be empty. */
  about: string;
  ref: TrainedModelRef;
  /** Each character is a token (character-level text), else tokens are separated by spaces. */
  characters: boolean;
  /** An input to start from: a held-out example of the task (the one the Train view probes). */
  example: string;
}

/** Each shipped model as the Explore page uses it, made once (checkpoint.ts fetches its files once). */
const shipped = new Map<string, Promise<ExploreModel>>();

/** The shipped checkpoints' ids and titles (none when the page has no checkpoint folder; checkpoint.ts fetches once). */
async function shippedChoices(): Promise<ModelChoice[]> {
  return (await checkpointIndex()).map(({ id, title }) => ({ id, label: title }));
}

/**
 * The picker's trained models: the shipped ones (if their index loads), then the Train view's, if one was handed over,
 * then the pretrained checkpoint loaded on this page, if any.
 */
export async function modelChoices(): Promise<ModelChoice[]> {
  const list: ModelChoice[] = await shippedChoices().catch(() => []);
  const offered = trainedModel();
  if (offered) list.push({ id: TRAINED_MODEL_ID, label: `Your trained model (${offered.label})` });
  const pretrained = pretrainedModel();
  if (pretrained) list.push({ id: pretrainedId(pretrained), label: pretrainedLabel(pretrained) });
  return list;
}

/** A model by its picker id; rejects with a message for people when there is no such model here. */
export function exploreModel(id: string): Promise<ExploreModel> {
  if (id === TRAINED_MODEL_ID) return offeredModel();
  let loading = shipped.get(id);
  if (!loading) {
    loading = loadShipped(id);
    shipped.set(id, loading);
    loading.catch(() => shipped.delete(id)); // not kept: the next request asks again
  }
  return loading;
}

async function offeredModel(): Promise<ExploreModel> {
  const offered = trainedModel();
  if (!offered)
    throw new Error(
      'No model was handed over from the Train view in this tab: train one there and press \u201cExplore this model\u201d.',
    );
  const { settings, weights, key, example, label } = offered;
  return {
    id: TRAINED_MODEL_ID,
    label: `Your trained model (${label})`,
    about: '',
    example,
    ref: { key: `trained:${key}`, settings, weights },
    characters: charactersAreTokens(trainStateFromHash(`#train&${settings}`).state),
  };
}

async function loadShipped(id: string): Promise<ExploreModel> {
  let list: ModelChoice[];
  try {
    list = await shippedChoices();
  } catch (error) {
    throw new Error(
      `The list of trained models did not load (${error instanceof Error ? error.message : String(error)}).`,
    );
  }
  if (!list.some((c) => c.id === id)) {
    const yours = `\u2018${TRAINED_MODEL_ID}\u2019 (yours, from the Train view)`;
    throw new Error(
      list.length === 0
        ? `There is no model \u2018${id}\u2019 here: this page has no shipped trained models, only ${yours}.`
        : `There is no model \u2018${id}\u2019 here; the trained models are ${[...list.map((c) => `\u2018${c.id}\u2019`), yours].join(', ')}.`,
    );
  }
  const { record, weights, timeline } = await loadCheckpoint(id);
  const characters = charactersAreTokens(trainStateFromHash(`#train&${record.settings}`).state);
  const tokens = timeline.at(-1)?.probe.tokens ?? [];
  return {
    id,
    label: record.title,
    about: [record.description, record.message].filter(Boolean).join(' '),
    ref: { key: `checkpoint:${id}`, settings: record.settings, weights },
    characters,
    example: tokensAsInput(tokens, characters),
  };
}
