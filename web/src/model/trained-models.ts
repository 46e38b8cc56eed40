// The model handed from the Train view to the Explore page ("Explore this model"): kept in
// memory for this page, and in sessionStorage so that reloading the tab keeps it. The
// Explore page lists it as "Your trained model (label)" under the id 'trained'
// (location.hash '#model=trained' opens it).
import { base64ToBytes, bytesToBase64 } from './base64.js';

/** The model picker's id for the handed-over model. */
export const TRAINED_MODEL_ID = 'trained';

export interface OfferedModel {
  /** Says which model it is, e.g. 'sort, step 350'. Shown as text. */
  label: string;
  /** The Train view's settings that built the model: its URL hash without '#train&'. */
  settings: string;
  /** The weights, a .safetensors file (Trainer.model.saveWeights()). */
  weights: Uint8Array;
  /** A typed input to start from (tokens separated by spaces, or characters for character-level text); default none. */
  example?: string;
}

export interface TrainedModel extends Required<OfferedModel> {
  /** Names these settings and weights (a hash of them): a new offer is a new model for the engine. */
  key: string;
}

const STORAGE_KEY = 'attention-playground:trained-model';

/** undefined: sessionStorage not read yet. */
let current: TrainedModel | null | undefined;

/** FNV-1a (32 bits) over the settings and the weights: enough to tell offers apart. */
function fingerprint(settings: string, weights: Uint8Array): string {
  let hash = 0x811c9dc5;
  const mix = (byte: number) => {
    hash = Math.imul(hash ^ byte, 0x01000193);
  };
  for (const byte of new TextEncoder().encode(settings)) mix(byte);
  mix(0);
  for (const byte of weights) mix(byte);
  return `${(hash >>> 0).toString(16).padStart(8, '0')}-${weights.length}`;
}

function storage(): Storage | null {
  try {
    return typeof sessionStorage === 'undefined' ? null : sessionStorage;
  } catch {
    return null; // storage refused (e.g. by privacy settings): the page still has the model in memory
  }
}

/**
 * Hands a trained model to the Explore page. Returns whether it was also kept for a
 * reload (sessionStorage can refuse: full, or disabled); the page has it either way.
 */
export function offerTrainedModel(model: OfferedModel): boolean {
  const weights = Uint8Array.from(model.weights); // a copy: the caller's buffer may be transferred or reused
  current = {
    label: model.label,
    settings: model.settings,
    example: model.example ?? '',
    weights,
    key: fingerprint(model.settings, weights),
  };
  const store = storage();
  if (!store) return false;
  try {
    const { weights: bytes, ...rest } = current;
    store.setItem(STORAGE_KEY, JSON.stringify({ ...rest, weights: bytesToBase64(bytes) }));
    return true;
  } catch {
    store.removeItem(STORAGE_KEY); // never leave an older model behind under the new one's id
    return false;
  }
}

/** The model the Train view handed over in this tab, or null. */
export function trainedModel(): TrainedModel | null {
  if (current === undefined) current = readStored();
  return current;
}

function readStored(): TrainedModel | null {
  const text = storage()?.getItem(STORAGE_KEY);
  if (!text) return null;
  try {
    const stored = JSON.parse(text) as Omit<TrainedModel, 'weights'> & { weights: string };
    const weights = base64ToBytes(stored.weights);
    if (
      typeof stored.label !== 'string' ||
      typeof stored.settings !== 'string' ||
      fingerprint(stored.settings, weights) !== stored.key
    )
      return null;
    return {
      label: stored.label,
      settings: stored.settings,
      example: String(stored.example ?? ''),
      weights,
      key: stored.key,
    };
  } catch {
    return null; // not ours, or damaged: as if nothing was handed over
  }
}
