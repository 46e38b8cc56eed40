// The Generate panel's whole state (generate/generate-panel.ts) as one serialisable object:
// the prompt, the sampler's settings and the branch shown (the token ids chosen after the
// prompt). Its settings are declared once here, with their ranges; the URL hash (keys
// 'gen.<name>') and the element's attributes (kebab-case names) both read and write it
// through the functions below, so a copied link and an embed reopen the same generation.
// No DOM: Vitest tests it in Node (tests/web/generation-state.test.ts).
import { GENERATION_HASH_PREFIX } from './generation-hash.js';

/** One setting of the sampler or the run, with its range (what the engine accepts, within what a slider offers). */
export interface GenerationSetting {
  name: 'temperature' | 'topK' | 'topP' | 'minP' | 'repetitionPenalty' | 'seed' | 'maxNewTokens';
  label: string;
  help: string;
  type: 'int' | 'number';
  default: number;
  min: number;
  max: number;
  /** The minimum itself is not allowed (top-p > 0, a penalty > 0). */
  minExclusive?: boolean;
  /** A slider's step. */
  step: number;
  /** On the panel's face (a slider) or in its settings drawer. */
  place: 'slider' | 'drawer';
}

export const GENERATION_SETTINGS: readonly GenerationSetting[] = [
  {
    name: 'temperature',
    label: 'Temperature',
    help: 'Divides the logits before the softmax: below 1 sharpens the distribution, above 1 flattens it; 0 always takes the most likely token (greedy).',
    type: 'number',
    default: 1,
    min: 0,
    max: 2,
    step: 0.05,
    place: 'slider',
  },
  {
    name: 'topK',
    label: 'Top-k',
    help: 'Keeps only the k most likely tokens (0 = off).',
    type: 'int',
    default: 0,
    min: 0,
    max: 100,
    step: 1,
    place: 'slider',
  },
  {
    name: 'topP',
    label: 'Top-p',
    help: 'Keeps the most likely tokens until their probability adds up to p (1 = off).',
    type: 'number',
    default: 1,
    min: 0,
    minExclusive: true,
    max: 1,
    step: 0.01,
    place: 'slider',
  },
  {
    name: 'minP',
    label: 'Min-p',
    help: 'Drops tokens less likely than min-p times the most likely one (0 = off).',
    type: 'number',
    default: 0,
    min: 0,
    max: 1,
    step: 0.01,
    place: 'drawer',
  },
  {
    name: 'repetitionPenalty',
    label: 'Repetition penalty',
    help: 'Makes tokens already in the text less likely: their positive logits are divided by it, negative ones multiplied (1 = off).',
    type: 'number',
    default: 1,
    min: 0,
    minExclusive: true,
    max: 3,
    step: 0.05,
    place: 'drawer',
  },
  {
    name: 'seed',
    label: 'Seed',
    help: 'The sampler’s random seed: the same seed, settings and branch give the same tokens.',
    type: 'int',
    default: 0,
    min: 0,
    max: 2 ** 31 - 1,
    step: 1,
    place: 'drawer',
  },
  {
    name: 'maxNewTokens',
    label: 'Max new tokens',
    help: 'Generate stops after this many new tokens (and at the model’s context).',
    type: 'int',
    default: 16,
    min: 1,
    max: 512,
    step: 1,
    place: 'drawer',
  },
];

export type SamplerName = GenerationSetting['name'];
export type SamplerSettings = Record<SamplerName, number>;

/** The most characters of a prompt kept in the state (and so in a link). */
export const MAX_PROMPT_LENGTH = 2000;
/** The most tokens of a branch (after the prompt) kept in the state. */
export const MAX_PATH_LENGTH = 512;
/** The most token ids the other branches of the tree take in a link (beyond them, the oldest branches are left out). */
export const MAX_TREE_IDS = 512;

export interface GenerationState extends SamplerSettings {
  /** The prompt: text, or chat turns ("role: text" lines, model/chat-turns.ts) when `chat`. */
  prompt: string;
  /** The prompt is chat turns for the model's chat template. */
  chat: boolean;
  /** The branch shown: the token ids after the prompt, in order (generated or chosen). */
  path: number[];
  /** The other branches explored (their token ids after the prompt), in the order first explored: the tree. */
  tree: number[][];
}

export const DEFAULT_GENERATION_STATE: Readonly<GenerationState> = Object.freeze({
  prompt: 'The cat sat on the',
  chat: false,
  path: [],
  tree: [],
  ...(Object.fromEntries(GENERATION_SETTINGS.map((s) => [s.name, s.default])) as SamplerSettings),
});

/** The state's fields by name, as the hash and the attributes name them: prompt, chat, the settings, path and tree. */
export const GENERATION_FIELDS = ['prompt', 'chat', ...GENERATION_SETTINGS.map((s) => s.name), 'path', 'tree'] as const;
export type GenerationField = (typeof GENERATION_FIELDS)[number];

export { GENERATION_HASH_PREFIX, generationHashPart } from './generation-hash.js';

/** A field's attribute name on the element: kebab-case ('topK' -> 'top-k'). */
export function attributeName(field: GenerationField): string {
  return field.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
}

/** A field's key in the URL hash ('gen.topK'). */
export function hashKey(field: GenerationField): string {
  return GENERATION_HASH_PREFIX + field;
}

function settingOf(name: string): GenerationSetting | undefined {
  return GENERATION_SETTINGS.find((s) => s.name === name);
}

/** The range of a setting in words, for its error ('0 to 2', 'above 0, at most 1'). */
function rangeText(s: GenerationSetting): string {
  return s.minExclusive ? `above ${s.min}, at most ${s.max}` : `${s.min} to ${s.max}`;
}

/** One field's raw text -> its value, or a message naming the field and the bad value. */
export function parseField(field: GenerationField, raw: string): { value: unknown } | { error: string } {
  if (field === 'prompt')
    return raw.length > MAX_PROMPT_LENGTH
      ? { error: `The prompt is ${raw.length} characters long; at most ${MAX_PROMPT_LENGTH}.` }
      : { value: raw };
  if (field === 'chat') {
    if (raw === '' || raw === '1' || raw === 'true') return { value: true };
    if (raw === '0' || raw === 'false') return { value: false };
    return { error: `chat is '${raw}'; it must be 1 or 0.` };
  }
  if (field === 'path') {
    if (raw === '') return { value: [] };
    const parts = raw.split('.');
    if (parts.length > MAX_PATH_LENGTH)
      return { error: `The branch has ${parts.length} tokens; at most ${MAX_PATH_LENGTH}.` };
    const ids = parts.map(Number);
    const bad = parts.findIndex((p, i) => !/^\d+$/.test(p) || !Number.isSafeInteger(ids[i]));
    if (bad >= 0) return { error: `path: '${parts[bad]}' is not a token id (ids are joined by '.').` };
    return { value: ids };
  }
  if (field === 'tree') return parseTree(raw);
  const s = settingOf(field)!;
  const value = raw.trim() === '' ? NaN : Number(raw);
  const ok =
    Number.isFinite(value) &&
    (s.type === 'number' || Number.isInteger(value)) &&
    (s.minExclusive ? value > s.min : value >= s.min) &&
    value <= s.max;
  if (!ok)
    return { error: `${s.label} is '${raw}'; it must be ${s.type === 'int' ? 'a whole number ' : ''}${rangeText(s)}.` };
  return { value };
}

/** One field's value as the hash and attributes write it. */
export function formatField(field: GenerationField, value: unknown): string {
  if (field === 'chat') return value ? '1' : '0';
  if (field === 'path') return (value as number[]).join('.');
  if (field === 'tree') return formatTree(value as number[][]);
  return String(value);
}

/**
 * The tree's branches in a link, each sharing a start with the one before it written once: 'shared-ids' with
 * `shared` the count of leading ids it has in common with the branch before, then its own ids joined by '.';
 * branches joined by '_' (characters a URL keeps as they are). [[5, 6, 7], [5, 6, 9], [2]] -> '0-5.6.7_2-9_0-2'.
 */
export function formatTree(tree: readonly (readonly number[])[]): string {
  return tree
    .map((branch, i) => {
      const before = tree[i - 1] ?? [];
      let shared = 0;
      while (shared < before.length && shared < branch.length - 1 && before[shared] === branch[shared]) shared++;
      return `${shared}-${branch.slice(shared).join('.')}`;
    })
    .join('_');
}

/** The ids formatTree writes of `tree` (each branch's own, past what it shares with the one before). */
function writtenIds(tree: readonly (readonly number[])[]): number {
  return formatTree(tree)
    .split('_')
    .reduce((n, part) => n + part.split('-')[1].split('.').length, 0);
}

function parseTree(raw: string): { value: number[][] } | { error: string } {
  if (raw === '') return { value: [] };
  const tree: number[][] = [];
  let ids = 0;
  for (const part of raw.split('_')) {
    const match = /^(\d+)-(\d+(?:\.\d+)*)$/.exec(part);
    const shared = match ? Number(match[1]) : NaN;
    const before = tree[tree.length - 1] ?? [];
    if (!match || shared > before.length)
      return { error: `tree: '${part}' is not a branch ('shared-ids', shared at most the branch before's length).` };
    const own = match[2].split('.').map(Number);
    if (own.some((id) => !Number.isSafeInteger(id))) return { error: `tree: '${part}' has an id too large.` };
    const branch = [...before.slice(0, shared), ...own];
    ids += branch.length;
    if (branch.length > MAX_PATH_LENGTH || ids > MAX_TREE_IDS * 4)
      return { error: `The tree's branches are too long (${ids} tokens and more).` };
    tree.push(branch);
  }
  return { value: tree };
}

/**
 * The branches of `explored` a link carries beside `path`: every one but `path` itself, the newest first kept while
 * their ids written stay within MAX_TREE_IDS; `dropped` counts those left out.
 */
export function linkTree(
  explored: readonly (readonly number[])[],
  path: readonly number[],
): { tree: number[][]; dropped: number } {
  const others = explored.filter((p) => !(p.length === path.length && p.every((v, i) => v === path[i])));
  const kept: number[][] = [];
  for (let i = others.length - 1; i >= 0; i--) {
    const candidate = [[...others[i]], ...kept];
    if (writtenIds(candidate) > MAX_TREE_IDS) break;
    kept.unshift([...others[i]]);
  }
  return { tree: kept, dropped: others.length - kept.length };
}

/**
 * (field, raw text) pairs -> the state: fields not given keep `base`'s values; each that does not parse keeps
 * its value and is listed in `problems`.
 */
export function parseGenerationState(
  entries: Iterable<[GenerationField, string]>,
  base: Readonly<GenerationState> = DEFAULT_GENERATION_STATE,
): { state: GenerationState; problems: string[] } {
  const state = { ...base, path: [...base.path], tree: base.tree.map((p) => [...p]) } as Record<string, unknown>;
  const problems: string[] = [];
  for (const [field, raw] of entries) {
    const parsed = parseField(field, raw);
    if ('error' in parsed) problems.push(parsed.error);
    else state[field] = parsed.value;
  }
  return { state: state as unknown as GenerationState, problems };
}

function sameValue(a: unknown, b: unknown): boolean {
  return Array.isArray(a) && Array.isArray(b)
    ? a.length === b.length && a.every((v, i) => sameValue(v, b[i]))
    : a === b;
}

/** The fields that differ from `defaults`, as (field, text) pairs. */
export function changedFields(
  state: Readonly<GenerationState>,
  defaults: Readonly<GenerationState> = DEFAULT_GENERATION_STATE,
): [GenerationField, string][] {
  return GENERATION_FIELDS.filter((f) => !sameValue(state[f], defaults[f])).map((f) => [f, formatField(f, state[f])]);
}

/** The hash's generation keys ('gen.*') -> the state, and what did not parse (unknown 'gen.' keys too). */
export function generationStateFromHash(
  hash: string,
  defaults: Readonly<GenerationState> = DEFAULT_GENERATION_STATE,
): { state: GenerationState; problems: string[] } {
  const entries: [GenerationField, string][] = [];
  const unknown: string[] = [];
  for (const [key, raw] of new URLSearchParams(hash.replace(/^#/, ''))) {
    if (!key.startsWith(GENERATION_HASH_PREFIX)) continue;
    const field = key.slice(GENERATION_HASH_PREFIX.length) as GenerationField;
    if ((GENERATION_FIELDS as readonly string[]).includes(field)) entries.push([field, raw]);
    else unknown.push(`unknown generation setting '${key}' in the link`);
  }
  const { state, problems } = parseGenerationState(entries, defaults);
  return { state, problems: [...unknown, ...problems] };
}

/**
 * The hash with its generation keys replaced by `state`'s (those that differ from `defaults`); every other
 * key of the hash (the playground's) stays as it was, in its place.
 */
export function withGenerationState(
  hash: string,
  state: Readonly<GenerationState>,
  defaults: Readonly<GenerationState> = DEFAULT_GENERATION_STATE,
): string {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  for (const key of [...params.keys()]) if (key.startsWith(GENERATION_HASH_PREFIX)) params.delete(key);
  for (const [field, text] of changedFields(state, defaults)) params.set(hashKey(field), text);
  const text = params.toString();
  return text ? `#${text}` : '';
}

/** The element's attributes -> the state (an attribute absent keeps `base`'s value). */
export function generationStateFromAttributes(
  attribute: (name: string) => string | null,
  base: Readonly<GenerationState> = DEFAULT_GENERATION_STATE,
): { state: GenerationState; problems: string[] } {
  const entries: [GenerationField, string][] = [];
  for (const field of GENERATION_FIELDS) {
    const raw = attribute(attributeName(field));
    if (raw !== null) entries.push([field, raw]);
  }
  return parseGenerationState(entries, base);
}

/** The sampler's settings of a state (what the engine's generate() takes besides the ids). */
export function samplerSettings(state: Readonly<GenerationState>): SamplerSettings {
  return Object.fromEntries(GENERATION_SETTINGS.map((s) => [s.name, state[s.name]])) as SamplerSettings;
}
