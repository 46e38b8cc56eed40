// The pretrained checkpoint loaded on this page (one at a time: loading another frees it),
// as the Explore page's picker lists it ('pretrained:<name>'), and the hub's base URL the
// person typed, remembered in localStorage.
import type { PretrainedInfo } from './pretrained-info.js';

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

/** An input to start from: a sentence, with a [MASK] for an encoder (BERT) to guess. */
export function pretrainedExample(info: Pick<PretrainedInfo, 'causal'>): string {
  return info.causal ? 'The cat sat on the mat.' : 'The cat [MASK] on the mat.';
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

/** '12.3 / 497.8 MB', '4.1 kB', in the unit of the total (decimal units, as the hub writes sizes). */
export function formatBytes(loaded: number, total: number | null): string {
  const size = total ?? loaded;
  const [unit, div] = size >= 1e9 ? ['GB', 1e9] : size >= 1e6 ? ['MB', 1e6] : size >= 1e3 ? ['kB', 1e3] : ['B', 1];
  const f = (n: number) => (div === 1 ? String(n) : (n / div).toFixed(1));
  return total === null ? `${f(loaded)} ${unit}` : `${f(loaded)} / ${f(total)} ${unit}`;
}
