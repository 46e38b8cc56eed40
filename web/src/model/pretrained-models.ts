// The pretrained checkpoint loaded on this page (one at a time: loading another frees it),
// as the Explore page's picker lists it ('pretrained:<name>'); the hub's base URL the
// person typed, remembered in localStorage (also where "Try a real model" downloads from);
// and the real models that action offers, one declaration each, with how it holds their weights.
import { ENGINE } from 'attention-playground';
import { familyTokenizer, type PretrainedInfo } from './pretrained-info.js';
import {
  DEFAULT_Q8_ACTIVATIONS,
  DEFAULT_WEIGHTS,
  roundsActivations,
  type Q8Activations,
  type WeightsMode,
} from './weights-modes.js';

export const PRETRAINED_PREFIX = 'pretrained:';
export const DEFAULT_HUB = 'https://huggingface.co';
const HUB_KEY = 'attention-playground:hub-base-url';

let current: PretrainedInfo | null = null;

/** The picker id of a loaded model: its name, kept within the 'model' setting's 100 characters. */
export function pretrainedId(info: Pick<PretrainedInfo, 'name'>): string {
  return PRETRAINED_PREFIX + info.name.replace(/[^\w./-]+/g, '-').slice(0, 80);
}

export function isPretrainedId(id: string): boolean {
  return id.startsWith(PRETRAINED_PREFIX);
}

export function setPretrainedModel(info: PretrainedInfo | null): void {
  current = info;
}

/** The loaded model, or null. */
export function pretrainedModel(): PretrainedInfo | null {
  return current;
}

/** The label of a loaded model in the picker, e.g. 'gpt2 (pretrained GPT2LMHeadModel, 12 layers × 12 heads)'. */
export function pretrainedLabel(info: PretrainedInfo): string {
  return `${info.name} (pretrained ${info.architecture || info.family}, ${info.layers} layers \u00d7 ${info.heads} heads)`;
}

/** An input to start from: a sentence, with a [MASK] for a masked-language model (BERT's WordPiece) to guess. */
export function pretrainedExample(info: Pick<PretrainedInfo, 'causal' | 'family'>): string {
  return info.causal || familyTokenizer(info.family) !== 'wordpiece'
    ? 'The cat sat on the mat.'
    : 'The cat [MASK] on the mat.';
}

function store(): Storage | null {
  try {
    return typeof localStorage === 'undefined' ? null : localStorage;
  } catch {
    return null;
  }
}

export function hubBaseUrl(): string {
  try {
    return store()?.getItem(HUB_KEY) || DEFAULT_HUB;
  } catch {
    return DEFAULT_HUB;
  }
}

export function rememberHubBaseUrl(url: string): void {
  try {
    if (url === DEFAULT_HUB) store()?.removeItem(HUB_KEY);
    else store()?.setItem(HUB_KEY, url);
  } catch {
    // storage refused: the URL is used for this load only
  }
}

/**
 * A checkpoint the "Try a real model" action fetches from the hub (the base URL above): the files the loader reads of
 * it (so exactly these are downloaded and kept in this browser's cache) and the size those files had on the hub when
 * declared, said only when the hub does not answer with its own sizes. `family` is config.json's model_type: a model
 * is offered only once the engine reads its family (realModels()).
 */
export interface RealModel {
  /** For people, e.g. 'GPT-2 small'. */
  label: string;
  /** The hub's model name, e.g. 'openai-community/gpt2': {base URL}/{repo}/resolve/main/{file}. */
  repo: string;
  family: string;
  files: readonly string[];
  declaredBytes: number;
  /** The hub serves its files only to signed-in people who accepted its licence: a page without their token gets 401. */
  gated?: boolean;
  /**
   * 'q8_0': the engine holds its matrices in 8 bits (its 16-bit weights would pass the engine's parameter limit);
   * 'bf16': in BF16, rounded on load from an F32 or F16 file (half of F32's memory; decodes at BF16's speed).
   */
  weights?: 'q8_0' | 'bf16';
}

/** What the loader reads of a Llama, Qwen or Gemma checkpoint: the tokenizer's config holds its chat template. */
const MODERN_FILES = ['config.json', 'tokenizer.json', 'tokenizer_config.json', 'model.safetensors'] as const;

/**
 * The real models, one declaration each. Sizes: the hub's file list for GPT-2 small; for the others, the weights'
 * parameter count (their model cards) x 2 bytes (the files are BF16) plus the tokenizer files, rounded up: what the page
 * says only when the hub does not answer HEAD with each file's Content-Length (it asks before every download).
 */
export const REAL_MODELS: readonly RealModel[] = [
  {
    label: 'GPT-2 small',
    repo: 'openai-community/gpt2',
    family: 'gpt2',
    files: ['config.json', 'tokenizer.json', 'model.safetensors'],
    // the hub's file list (2026): model.safetensors 548 MB, tokenizer.json 1.36 MB, config.json 665 B
    declaredBytes: 549_400_000,
  },
  {
    label: 'SmolLM2-135M',
    repo: 'HuggingFaceTB/SmolLM2-135M',
    family: 'llama',
    files: MODERN_FILES,
    // 134.5 M parameters x 2 bytes = 269.1 MB, tokenizer.json 2.1 MB
    declaredBytes: 271_300_000,
  },
  {
    label: 'SmolLM2-360M',
    repo: 'HuggingFaceTB/SmolLM2-360M',
    family: 'llama',
    files: MODERN_FILES,
    // 361.8 M parameters x 2 bytes = 723.7 MB, tokenizer.json 2.1 MB
    declaredBytes: 725_900_000,
  },
  {
    label: 'Qwen2.5-0.5B',
    repo: 'Qwen/Qwen2.5-0.5B',
    family: 'qwen2',
    files: MODERN_FILES,
    // 494.0 M parameters x 2 bytes = 988.1 MB, tokenizer.json 7.0 MB
    declaredBytes: 995_200_000,
  },
  {
    label: 'Qwen3-0.6B',
    repo: 'Qwen/Qwen3-0.6B',
    family: 'qwen3',
    files: MODERN_FILES,
    // 751.6 M parameters x 2 bytes = 1503.3 MB, tokenizer.json 11.4 MB
    declaredBytes: 1_514_800_000,
  },
  {
    label: 'Gemma 3 270M',
    repo: 'google/gemma-3-270m',
    family: 'gemma3_text',
    files: MODERN_FILES,
    // 268.1 M parameters x 2 bytes = 536.2 MB, tokenizer.json 33.4 MB, tokenizer_config.json 1.2 MB
    declaredBytes: 570_900_000,
    gated: true,
  },
  {
    label: 'Llama 3.2 1B',
    repo: 'meta-llama/Llama-3.2-1B',
    family: 'llama',
    files: MODERN_FILES,
    // 1235.8 M parameters x 2 bytes = 2471.6 MB, tokenizer.json 9.1 MB
    declaredBytes: 2_480_800_000,
    gated: true,
    // in BF16 its 2.5 GB pass the engine's 1.5 GiB of weights held; in 8 bits (Q8_0) they take about 1.3 GB
    weights: 'q8_0',
  },
];

/** How "Try a real model" holds a model's matrices, and whose choice that is. */
export interface RealModelHeld {
  weights: WeightsMode;
  q8Activations: Q8Activations;
  /** 'pick': the person's, under the loader's "Weights in memory"; 'model': its declaration; 'default': the engine's. */
  by: 'pick' | 'model' | 'default';
}

/**
 * The person's pick under "Weights in memory" (the page's settings `weights` and `q8Activations`, which the link
 * keeps) where they made one, as for every other load; else the model's declared mode; else the engine's default.
 * So the link's `weights` is what the model shown holds, and a pick of 'auto' (the default) leaves a model that
 * declares its mode (Llama 3.2 1B's q8_0, to fit) to it.
 */
export function realModelHeld(
  model: Pick<RealModel, 'weights'>,
  weights: WeightsMode,
  q8Activations: Q8Activations,
): RealModelHeld {
  if (weights !== DEFAULT_WEIGHTS)
    return {
      weights,
      q8Activations: roundsActivations(weights, q8Activations) ? q8Activations : DEFAULT_Q8_ACTIVATIONS,
      by: 'pick',
    };
  if (model.weights) return { weights: model.weights, q8Activations: DEFAULT_Q8_ACTIVATIONS, by: 'model' };
  return { weights: DEFAULT_WEIGHTS, q8Activations: DEFAULT_Q8_ACTIVATIONS, by: 'default' };
}

/** The size sentence's last words: how the engine will hold the model, and why (said before anything downloads). */
export function realModelHeldText(held: RealModelHeld): string {
  const activations = roundsActivations(held.weights, held.q8Activations) ? `, ${held.q8Activations} activations` : '';
  if (held.by === 'pick')
    return `The engine holds its weights in ${held.weights}${activations}, as picked under \u201cWeights in memory\u201d.`;
  if (held.weights === 'q8_0')
    return 'The engine holds its weights in 8 bits (q8_0), to fit this browser\u2019s memory.';
  if (held.weights === 'bf16')
    return 'The engine holds its weights in 16 bits (bf16, rounded from the file\u2019s values).';
  return `The engine holds its weights as the file stores them (${held.weights}).`;
}

/** The real models the engine can load (the others wait for their family). */
export function realModels(list: readonly RealModel[] = REAL_MODELS): RealModel[] {
  return list.filter((m) => ENGINE.families.some((f) => f.name === m.family));
}

/** Where a hub in the Hugging Face layout keeps a model's file (the layout engine.loadPretrained({ repo }) reads). */
export function hubFileUrl(baseUrl: string, repo: string, file: string): string {
  return `${baseUrl.replace(/\/*$/, '/')}${repo}/resolve/main/${file}`;
}

/** A list for people: 'a', 'a and b', 'a, b and c'. */
function listed(names: readonly string[]): string {
  return names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
}

/**
 * The families the engine reads, as config.json's model_type names them, each with the real models of it, e.g.
 * 'gpt2 (GPT-2 small), bert and llama (SmolLM2-135M, Llama 3.2 1B)'.
 */
export function familyNames(list: readonly RealModel[] = REAL_MODELS): string {
  return listed(
    ENGINE.families.map((f) => {
      const models = list.filter((m) => m.family === f.name).map((m) => m.label);
      return models.length ? `${f.name} (${models.join(', ')})` : f.name;
    }),
  );
}
