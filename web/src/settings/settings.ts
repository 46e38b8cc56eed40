// Every setting of the playground page: the model's come from the engine's own
// declaration (PLAYGROUND_SCHEMA: type, default, range, choices, help and the rules
// between them); the page adds only how to label them, and its own text and view
// settings. This table drives the controls, the validation and the URL hash, so any
// view is a shareable link.
import {
  ENGINE,
  PLAYGROUND_SCHEMA,
  ruleProblems,
  type Mode,
  type ModelConfig,
  type RunInput,
  type SettingInfo,
} from 'attention-playground';
import type { Setting } from '../model/setting.js';
import { GENERATION_HASH_PREFIX } from '../model/generation-hash.js';
import { ALL_BLOCKS, HEATMAP_STAGES, type Block } from '../model/trace-model.js';
import { zeroDefaultText } from '../model/zero-defaults.js';
import { DEFAULT_Q8_ACTIVATIONS, DEFAULT_WEIGHTS, Q8_ACTIVATIONS, WEIGHTS_MODES } from '../model/weights-modes.js';

export type { BoolSetting, ChoiceSetting, IntSetting, NumberSetting, Setting, TextSetting } from '../model/setting.js';

/** The heatmap views' stages, as the engine declares them (scores … weights). */
export const STAGES = HEATMAP_STAGES;
export const VIEWS = [
  'heads',
  'head',
  'lines',
  'masks',
  'shapes',
  'rows',
  'split',
  'positions',
  'steps',
  'values',
  'overview',
  'changes',
] as const;
/** How the heatmaps colour their cells: one scale for the view, or each query row fitted to its own values. */
export const COLOR_SCALES = ['shared', 'row'] as const;
/** The Block setting's choices: 'auto' (the mode's own block), then the engine's blocks, the encoder's first. */
export const BLOCKS: readonly ('auto' | Block)[] = ['auto', ...[...ALL_BLOCKS].reverse()];

/**
 * '' is the untrained playground model; otherwise a shipped checkpoint's id or 'trained' (the Train view's model):
 * playground/explore-models.ts resolves it, and explains an id it does not know.
 */
const TRAINED_SETTINGS = [
  {
    name: 'model',
    group: 'trained',
    type: 'text',
    label: 'Model',
    maxLength: 100,
    default: '',
    help: 'A trained model fixes its own settings and reads its task\u2019s tokens.',
  },
  // How the next pretrained checkpoint's matrices are held (the loading dialog's choice; model/weights-modes.ts).
  {
    name: 'weights',
    group: 'trained',
    type: 'choice',
    label: 'Weights in memory',
    default: DEFAULT_WEIGHTS,
    choices: WEIGHTS_MODES,
    help: 'How a pretrained checkpoint\u2019s matrices are held when it loads.',
  },
  {
    name: 'q8Activations',
    group: 'trained',
    type: 'choice',
    label: 'Activations with 8-bit weights',
    default: DEFAULT_Q8_ACTIVATIONS,
    choices: Q8_ACTIVATIONS,
    help: `With weights q8_0: ${Q8_ACTIVATIONS.filter((mode) => mode !== DEFAULT_Q8_ACTIVATIONS).join(' or ')} rounds the activations so the products run in integers.`,
  },
] as const satisfies readonly Setting[];

const TEXT_SETTINGS = [
  {
    name: 'text',
    group: 'text',
    type: 'text',
    label: 'Sentences (one per line = a batch)',
    maxLength: 4000,
    default: 'the cat sat on the mat\na dog barked',
  },
  {
    name: 'source',
    group: 'text',
    type: 'text',
    label: 'Source sentences (cross-attention keys)',
    maxLength: 4000,
    default: 'le chat est assis sur le tapis\nun chien a aboyé',
  },
  // Offered only for a pretrained instruct checkpoint whose tokenizer has a chat template (playground.ts).
  {
    name: 'chat',
    group: 'text',
    type: 'bool',
    label: 'Write chat turns (the model\u2019s chat template makes its text)',
    default: false,
  },
] as const satisfies readonly Setting[];

const VIEW_SETTINGS = [
  {
    name: 'view',
    group: 'view',
    type: 'choice',
    label: 'View',
    default: 'heads',
    choices: VIEWS,
    labels: {
      heads: 'All heads',
      head: 'One head',
      lines: 'Line view',
      masks: 'Masks',
      shapes: 'Shapes',
      rows: 'Row by row',
      split: 'Head split',
      positions: 'Positions',
      steps: 'Step by step',
      values: 'Values',
      overview: 'Layers × heads',
      changes: 'What changed',
    },
  },
  {
    name: 'stage',
    group: 'view',
    type: 'choice',
    label: 'Stage',
    default: 'weights',
    choices: STAGES,
    labels: { scores: 'Scores Q·Kᵀ', scaled: 'Scaled ÷√d_k', masked: 'Masked', weights: 'Softmax weights' },
  },
  {
    name: 'colorScale',
    group: 'view',
    type: 'choice',
    label: 'Colour scale',
    default: 'shared',
    choices: COLOR_SCALES,
    // No help line: the legend above the heatmaps names the ends of a row's own scale.
    labels: { shared: 'One for all cells', row: 'Each row its own' },
  },
  {
    name: 'block',
    group: 'view',
    type: 'choice',
    label: 'Block',
    default: 'auto',
    choices: BLOCKS,
    labels: {
      auto: 'The one the Attention setting names',
      'encoder.self_attn': 'Encoder self-attention',
      'decoder.self_attn': 'Decoder self-attention',
      'decoder.cross_attn': 'Cross-attention',
    },
  },
  { name: 'layer', group: 'view', type: 'int', label: 'Layer', default: 0, min: 0, max: 47 }, // up to 48 layers (pretrained checkpoints: BERT-large has 24, GPT-2 XL 48)
  { name: 'head', group: 'view', type: 'int', label: 'Head', default: 0, min: 0, max: 63 },
  { name: 'sequence', group: 'view', type: 'int', label: 'Sentence', default: 0, min: 0, max: 15 },
  // The Values view's tensor: a stage's name inside its stack (the Block setting picks the stack), or 'input'.
  {
    name: 'tensor',
    group: 'view',
    type: 'text',
    label: 'Tensor',
    maxLength: 40,
    default: 'self_attn.q_heads',
    pattern: /^[a-z_0-9]+(\.[a-z_0-9]+)*$/,
    patternError: 'Tensor: a stage name such as self_attn.q_heads, norm1 or ffn.hidden',
    help: 'The tensor the Values view shows, e.g. self_attn.q_heads, residual1, ffn.activated.',
  },
  // The line view's overlay: heads drawn together, each in its colour ('': one line view per head).
  {
    name: 'overlay',
    group: 'view',
    type: 'text',
    label: 'Overlay heads',
    maxLength: 200,
    default: '',
    pattern: /^(\d{1,2}(,\d{1,2})*)?$/,
    patternError: 'Overlay heads: a comma list of head numbers, e.g. 0,3,5',
    help: 'Heads drawn together in the line view, each in its own colour.',
  },
] as const satisfies readonly Setting[];

/** The settings that choose what the view shows of a result (a change to one redraws the view, never reruns the model). */
export const VIEW_SETTING_NAMES = VIEW_SETTINGS.map((s) => s.name);

/** How the page labels the engine's model settings (presentation only: no ranges, no defaults). */
const MODEL_LABELS: Record<string, { label: string; labels?: Record<string, string> }> = {
  mode: {
    label: 'Attention',
    labels: {
      encoder: 'Encoder self-attention',
      decoder: 'Decoder (causal) self-attention',
      cross: 'Encoder–decoder cross-attention',
    },
  },
  dModel: { label: 'd_model' },
  heads: { label: 'Heads' },
  kvHeads: { label: 'K/V heads' },
  window: { label: 'Window' },
  layers: { label: 'Layers' },
  ffnDim: { label: 'FFN width' },
  seed: { label: 'Seed' },
  preset: {
    label: 'Weights',
    labels: { random: 'Random (Xavier)', identity: 'Identity (attend by similarity)', positional: 'Positional heads' },
  },
  scale: { label: 'Scale by 1/√d_k' },
  residual: { label: 'Residual connections' },
  positional: { label: 'Positional encoding' },
  positions: {
    label: 'Positions',
    labels: { sinusoidal: 'Sinusoidal (added)', rope: 'RoPE (q and k turned)', alibi: 'ALiBi (a bias on scores)' },
  },
  ffn: { label: 'FFN', labels: { standard: 'Standard', gated: 'Gated (SwiGLU with SiLU)' } },
  normType: { label: 'Norm', labels: { layernorm: 'LayerNorm', rmsnorm: 'RMSNorm' } },
  activation: {
    label: 'FFN activation',
    labels: { relu: 'ReLU', gelu: 'GELU', gelu_tanh: 'GELU (tanh)', silu: 'SiLU' },
  },
  norm: { label: 'LayerNorm', labels: { post: 'Post-LN (the paper)', pre: 'Pre-LN', sandwich: 'Sandwich (Gemma)' } },
};

/** A page setting from one of the engine's declared settings (type, default, range, choices, help). */
export function engineSetting(
  info: SettingInfo,
  group: Setting['group'],
  label: string,
  labels?: Record<string, string>,
): Setting {
  const base = { name: info.name, group, label, help: info.help };
  if (info.type === 'bool') return { ...base, type: 'bool', default: info.default as boolean };
  if (info.type === 'choice')
    return { ...base, type: 'choice', default: info.default as string, choices: info.choices!, labels };
  if (info.type === 'text') return { ...base, type: 'text', default: info.default as string, maxLength: info.max! };
  if (info.type === 'number')
    return {
      ...base,
      type: 'number',
      default: info.default as number,
      min: info.min!,
      max: info.max!,
      minExclusive: info.minExclusive,
    };
  return { ...base, type: 'int', default: info.default as number, min: info.min!, max: info.max! };
}

function modelSetting(info: SettingInfo): Setting {
  const { label, labels } = MODEL_LABELS[info.name] ?? { label: info.name };
  return engineSetting(info, 'model', label, labels);
}

export const SETTINGS: readonly Setting[] = [
  ...TRAINED_SETTINGS,
  ...TEXT_SETTINGS,
  ...PLAYGROUND_SCHEMA.settings.map(modelSetting),
  ...VIEW_SETTINGS,
];

type PageSettingList = readonly [...typeof TRAINED_SETTINGS, ...typeof TEXT_SETTINGS, ...typeof VIEW_SETTINGS];
type ValueOf<S> = S extends { type: 'int' }
  ? number
  : S extends { type: 'bool' }
    ? boolean
    : S extends { type: 'choice'; choices: readonly (infer C)[] }
      ? C
      : string;

/** The whole state of the playground: one value per setting. */
export type State = { -readonly [S in PageSettingList[number] as S['name']]: ValueOf<S> } & ModelConfig & {
    mode: Mode;
  };

export const DEFAULT_STATE: State = Object.fromEntries(SETTINGS.map((s) => [s.name, s.default])) as unknown as State;

/**
 * The playground page's defaults: what an empty URL hash shows; a link names only what differs from these. Random
 * weights make every head look like noise, so the page opens on the positional preset (playground/first-view.ts says
 * what its heads do); embeds and the <attention-playground> element keep DEFAULT_STATE (random weights).
 */
export const PAGE_DEFAULT_STATE: State = { ...DEFAULT_STATE, preset: 'positional' };

export function settingByName(name: string): Setting | undefined {
  return (SETTINGS as readonly Setting[]).find((s) => s.name === name);
}

/** Parses one setting from text (a URL parameter or an input's value). */
export function parseSetting(setting: Setting, raw: string): { value: unknown } | { error: string } {
  switch (setting.type) {
    case 'int': {
      const trimmed = raw.trim();
      if (!/^-?\d+$/.test(trimmed)) return { error: `${setting.label} must be a whole number` };
      const n = Number(trimmed);
      if (n < setting.min || n > setting.max)
        return { error: `${setting.label} must be between ${setting.min} and ${setting.max}` };
      return { value: n };
    }
    case 'number': {
      const trimmed = raw.trim();
      const n = Number(trimmed);
      if (trimmed === '' || !Number.isFinite(n)) return { error: `${setting.label} must be a number` };
      if ((setting.minExclusive ? n <= setting.min : n < setting.min) || n > setting.max)
        return {
          error: setting.minExclusive
            ? `${setting.label} must be greater than ${setting.min} and at most ${setting.max}`
            : `${setting.label} must be between ${setting.min} and ${setting.max}`,
        };
      return { value: n };
    }
    case 'bool':
      if (raw === '1' || raw === 'true') return { value: true };
      if (raw === '0' || raw === 'false') return { value: false };
      return { error: `${setting.label} must be on or off` };
    case 'choice':
      return setting.choices.includes(raw) ? { value: raw } : { error: `${setting.label}: unknown choice '${raw}'` };
    case 'text':
      if (raw.length > setting.maxLength) return { error: `${setting.label}: at most ${setting.maxLength} characters` };
      if (setting.pattern && !setting.pattern.test(raw))
        return { error: setting.patternError ?? `${setting.label}: not understood` };
      return { value: raw };
  }
}

export function formatSetting(setting: Setting, value: unknown): string {
  if (setting.type === 'bool') return value ? '1' : '0';
  return String(value);
}

/**
 * A value as the page shows it to a person (formatSetting is the URL's form): on / off, a choice's label, a defaulted
 * 0 as what it resolves to in `state` ('default (4)', model/zero-defaults.ts), else as is.
 */
export function shownValue(setting: Setting, value: unknown, state: Readonly<Record<string, unknown>> = {}): string {
  if (setting.type === 'bool') return value ? 'on' : 'off';
  if (setting.type === 'choice') return setting.labels?.[String(value)] ?? String(value);
  return zeroDefaultText(setting.name, value, state) ?? formatSetting(setting, value);
}

/**
 * State -> URL hash: only the settings that differ from `defaults`; `drafts` (the typed text of settings that do not
 * parse) replace their setting's value, so the link says what the page shows, problem included.
 */
export function stateToHash(
  state: State,
  defaults: State = DEFAULT_STATE,
  drafts: Record<string, string> = {},
): string {
  const params = new URLSearchParams();
  for (const setting of SETTINGS as readonly Setting[]) {
    const value = (state as Record<string, unknown>)[setting.name];
    if (setting.name in drafts) params.set(setting.name, drafts[setting.name]);
    else if (value !== (defaults as Record<string, unknown>)[setting.name])
      params.set(setting.name, formatSetting(setting, value));
  }
  const text = params.toString();
  return text ? `#${text}` : '';
}

/**
 * URL hash -> state (settings it lacks keep `defaults`); unknown parameters are reported in `problems`, values that
 * do not parse also in `rejected` (name -> the raw value), for a page that shows them at their controls.
 */
export function stateFromHash(
  hash: string,
  defaults: State = DEFAULT_STATE,
): { state: State; problems: string[]; rejected: Record<string, { raw: string; error: string }> } {
  const state = { ...defaults } as Record<string, unknown>;
  const problems: string[] = [];
  const rejected: Record<string, { raw: string; error: string }> = {};
  for (const [name, raw] of new URLSearchParams(hash.replace(/^#/, ''))) {
    if (name.startsWith(GENERATION_HASH_PREFIX)) continue; // the Generate panel's (model/generation-state.ts)
    const setting = settingByName(name);
    if (!setting) {
      problems.push(`unknown setting '${name}' in the link`);
      continue;
    }
    const parsed = parseSetting(setting, raw);
    if ('error' in parsed) {
      problems.push(parsed.error);
      rejected[name] = { raw, error: parsed.error };
    } else state[name] = parsed.value;
  }
  return { state: state as State, problems, rejected };
}

/** The problems of settings typed as text that does not parse (name -> the typed text). */
export function draftProblems(drafts: Record<string, string>): Record<string, string> {
  const problems: Record<string, string> = {};
  for (const [name, raw] of Object.entries(drafts)) {
    const setting = settingByName(name);
    const parsed = setting ? parseSetting(setting, raw) : { error: `unknown setting '${name}'` };
    if ('error' in parsed) problems[name] = parsed.error;
  }
  return problems;
}

/**
 * An engine message in the page's words: the API's camelCase names (dModel, ffnDim) become the labels the page
 * shows next to those boxes (d_model, FFN width). Plain names (heads, layers) read the same either way.
 * `settingOf`: the page's settings table (the playground's, or the Train view's).
 */
export function inPageWords(
  message: string,
  settingOf: (name: string) => { label: string } | undefined = settingByName,
): string {
  return message.replace(/\b[a-z]+[A-Z][A-Za-z]*\b/g, (name) => settingOf(name)?.label ?? name);
}

/** Problems that involve more than one setting (the engine's rules), keyed by the setting to show them at. */
export function crossCheck(state: State): Partial<Record<keyof State, string>> {
  const problems: Partial<Record<keyof State, string>> = {};
  for (const p of ruleProblems(PLAYGROUND_SCHEMA.rules, state as unknown as Record<string, unknown>))
    problems[p.field as keyof State] ??= inPageWords(p.message);
  return problems;
}

export function splitLines(text: string): string[] {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
}

/** The engine's config for a state: its model settings, less `mode` (run()'s own argument). */
export function modelConfig(state: State): Partial<ModelConfig> {
  const config: Record<string, unknown> = {};
  for (const s of PLAYGROUND_SCHEMA.settings)
    if (s.name !== 'mode') config[s.name] = (state as unknown as Record<string, unknown>)[s.name];
  return config as Partial<ModelConfig>;
}

/**
 * The engine request of the untrained playground model for a state, or null with the
 * problems that stop it, keyed by the setting to show them at.
 */
export function untrainedRun(state: State): { input: RunInput | null; problems: Record<string, string> } {
  const problems: Record<string, string> = { ...crossCheck(state) };
  const texts = splitLines(state.text);
  const source = splitLines(state.source);
  if (texts.length === 0) problems.text = 'Type a sentence to see its attention.';
  if (state.mode === 'cross' && texts.length !== source.length)
    problems.source = `Cross-attention pairs sentence i with source line i: there are ${texts.length} sentences and ${source.length} source lines.`;
  if (Object.keys(problems).length > 0) return { input: null, problems };
  return {
    input: { texts, mode: state.mode, source: state.mode === 'cross' ? source : undefined, config: modelConfig(state) },
    problems,
  };
}

/** The attention blocks a mode has, its own (shown for 'auto') first: the engine lists them so. */
export function blocksFor(mode: Mode): Block[] {
  return ENGINE.blocks.filter((b) => (b.modes as readonly string[]).includes(mode)).map((b) => b.name);
}
