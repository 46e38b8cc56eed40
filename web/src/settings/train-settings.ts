// The Train view's settings. The task's, the model's, the optimizer's and the trainer's
// come from the engine's declarations (TASK_SCHEMA, MODEL_SPEC_SCHEMA, OPTIMIZER_SCHEMA,
// TRAINER_SCHEMA: type, range, choices, help); the page chooses which to show, labels
// them, and starts from values that train in seconds (sort of 8 items to 99% held-out
// sequence accuracy). It adds its own run settings: how many steps, when to stop, how
// often to evaluate. The table drives the controls, validation and the URL hash.
import {
  DEFAULT_SPEC,
  MODEL_SPEC_SCHEMA,
  OPTIMIZER_SCHEMA,
  TASK_SCHEMA,
  TRAINER_SCHEMA,
  ruleProblems,
  type CreateTrainerOptions,
  type ModelSpec,
  type SchemaInfo,
  type TaskOptions,
} from 'attention-playground';
import { engineSetting, formatSetting, inPageWords, parseSetting, type Setting } from './settings.js';
import { count } from '../model/words.js';

/** A setting of the Train view, and where it goes in createTrainer's options. */
export type TrainSetting = Setting & {
  target: 'task' | 'spec' | 'optimizer' | 'trainer' | 'run' | 'compare';
  field: string;
};

/** One run of a comparison: what it changes in the chosen settings, and what to call it. */
interface Variant {
  label: string;
  change: Partial<TrainState>;
}

// Where the comparisons' effects show (see COMPARISONS' `opens`).
const SMALL_REVERSE: TrainState = {
  task: 'reverse',
  length: 8,
  symbols: 10,
  dModel: 32,
  ffnDim: 64,
  steps: 300,
};
const DEEP_REVERSE: TrainState = { ...SMALL_REVERSE, layers: 4 };
const WIDE_HEADS_SORT: TrainState = {
  task: 'sort',
  length: 5,
  symbols: 8,
  dModel: 128,
  heads: 2,
  ffnDim: 128,
  steps: 300,
};
const NORM_OPENS: TrainState = { ...DEEP_REVERSE, layers: 6, warmup: 0, lr: 0.01 };
const LAYER_NORM_OPENS: TrainState = { ...DEEP_REVERSE, layers: 6 };
// Associative recall trained on 3 pairs and held out at 6 (evalLength): the query's key up to 12 tokens back, at
// positions the training never reached.
const LENGTH_OPENS: TrainState = {
  task: 'recall',
  length: 3,
  symbols: 8,
  evalLength: 6,
  dModel: 48,
  ffnDim: 96,
  layers: 2,
  steps: 600,
};
// Any even number of heads shows it (the view's sort: 4 heads, 2 layers, d_h 12).
const KV_OPENS: TrainState = { heads: 4 };
// Associative recall, 3 pairs: the first key 7 tokens before the query, where 2 layers of window 4 reach 6 back and 3
// reach 9. RoPE: with learned positions the windowed layers relay it poorly (3 layers: 73% after 1,500 steps).
const WINDOW_OPENS: TrainState = {
  task: 'recall',
  length: 3,
  symbols: 6,
  dModel: 64,
  ffnDim: 128,
  positions: 'rope',
  layers: 2,
  window: 4,
  steps: 1000,
};
const NORM_TYPE_OPENS: TrainState = DEEP_REVERSE;
// A width divisible by 3, so that the gated FFN's 2/3 of it has exactly as many weights.
const FFN_OPENS: TrainState = { ffnDim: 96 };

/** The KV cache of a state's model per token (K and V of every layer: 2 · layers · kvHeads · d_h floats of 4 bytes). */
export function kvCacheBytesPerToken(state: TrainState): number {
  const heads = state.heads as number;
  const kvHeads = (state.kvHeads as number) || heads; // 0: one per head
  const headDim = (state.headDim as number) || (state.dModel as number) / heads; // 0: d_model / heads
  return 2 * (state.layers as number) * kvHeads * headDim * 4;
}

/** One layer's feed-forward weight matrices (biases aside): d_model · width twice, three times when gated. */
export function ffnWeights(state: TrainState): number {
  return (state.ffn === 'gated' ? 3 : 2) * (state.dModel as number) * (state.ffnDim as number);
}

const thousands = (n: number) => n.toLocaleString('en');

/** Runs that differ in one setting only, one per [value, label], in this order. */
function values(name: string, runs: [TrainState[string], string][]): Variant[] {
  return runs.map(([value, label]) => ({ label, change: { [name]: value } }));
}

/**
 * Comparisons: two or more runs side by side on the same task, seed and batches, each the
 * chosen settings with its own change (the ablations the learners' questions ask about).
 * Run A is the first. The compared settings are the runs' own: their controls are
 * overridden while comparing (positions: run A keeps yours unless it is 'none').
 * `opens`: the settings a comparison switches to when it is picked, where its effect shows
 * (on the view's default two-layer sort, residual connections make no visible difference;
 * at four layers reversing they decide whether the model learns at all). Measured, and
 * checked by tests/web/comparison-defaults.test.ts (the modern block's five, whose lessons are not all "A learns
 * first": tests/web/comparison-modern.test.ts; docs/training.md quotes their numbers).
 */
const COMPARISONS: Record<string, { label: string; opens: TrainState; runs: (s: TrainState) => Variant[] }> = {
  none: { label: 'Nothing: one run', opens: {}, runs: () => [{ label: '', change: {} }] },
  residual: {
    label: 'Residual connections on / off',
    opens: DEEP_REVERSE,
    runs: () =>
      values('residual', [
        [true, 'residual on'],
        [false, 'residual off'],
      ]),
  },
  scale: {
    label: 'Scaling by 1/√d_k on / off',
    opens: WIDE_HEADS_SORT,
    runs: () =>
      values('scale', [
        [true, 'scaled by 1/√d_k'],
        [false, 'not scaled'],
      ]),
  },
  scale64: {
    label: 'Scaling at d_k = 64 (d_model 128, 2 heads)',
    opens: WIDE_HEADS_SORT,
    runs: () =>
      values('scale', [
        [true, 'd_k 64, scaled by 1/√d_k'],
        [false, 'd_k 64, not scaled'],
      ]).map((v) => ({ ...v, change: { ...v.change, dModel: 128, heads: 2 } })),
  },
  norm: {
    label: 'Pre-LN / post-LN',
    opens: NORM_OPENS,
    runs: () =>
      values('norm', [
        ['pre', 'pre-LN'],
        ['post', 'post-LN'],
      ]),
  },
  layerNorm: {
    label: 'LayerNorm on / off',
    opens: LAYER_NORM_OPENS,
    runs: () =>
      values('layerNorm', [
        [true, 'LayerNorm'],
        [false, 'no LayerNorm'],
      ]),
  },
  attnActivation: {
    // The lesson is that it makes no difference: the view's own settings show that.
    label: 'Activation after attention: none / ReLU / GELU',
    opens: {},
    runs: () =>
      values('attnActivation', [
        ['none', 'no activation after attention'],
        ['relu', 'ReLU after attention'],
        ['gelu', 'GELU after attention'],
      ]),
  },
  positions: {
    label: 'Positions / none',
    opens: SMALL_REVERSE,
    runs: (s) => {
      const kept = s.positions === 'none' ? 'learned' : (s.positions as string);
      return [
        { label: `${kept} positions`, change: { positions: kept } },
        { label: 'no positions', change: { positions: 'none' } },
      ];
    },
  },
  lengthPositions: {
    label: 'Positions at twice the trained length: RoPE / learned / sinusoidal / ALiBi / none',
    opens: LENGTH_OPENS,
    runs: () =>
      values('positions', [
        ['rope', 'RoPE'],
        ['learned', 'learned'],
        ['sinusoidal', 'sinusoidal'],
        ['alibi', 'ALiBi'],
        ['none', 'no positions'],
      ]),
  },
  kvHeads: {
    label: 'MHA / GQA / MQA: key/value heads = heads, heads / 2, 1 (accuracy against KV cache bytes)',
    opens: KV_OPENS,
    runs: (s) => {
      const heads = s.heads as number;
      const counts = [...new Set([heads, heads % 2 === 0 ? heads / 2 : heads, 1])];
      return counts.map((kvHeads) => {
        const name = kvHeads === heads ? 'MHA' : kvHeads === 1 ? 'MQA' : 'GQA';
        const bytes = kvCacheBytesPerToken({ ...s, kvHeads });
        return {
          label: `${name}, ${count(kvHeads, 'K/V head')}: KV cache ${thousands(bytes)} bytes per token`,
          change: { kvHeads },
        };
      });
    },
  },
  window: {
    label: 'Full vs sliding-window attention (recall beyond the window; more layers reach further)',
    opens: WINDOW_OPENS,
    runs: (s) => {
      const window = (s.window as number) || (WINDOW_OPENS.window as number);
      const layers = s.layers as number;
      const deeper = layers + 1;
      const windowed = (n: number) => ({
        label: `window ${window}, ${n} layers: reach ${n * (window - 1)} tokens back`,
        change: { window, layers: n },
      });
      return [{ label: `full attention, ${layers} layers`, change: { window: 0 } }, windowed(layers), windowed(deeper)];
    },
  },
  normType: {
    label: 'RMSNorm / LayerNorm',
    opens: NORM_TYPE_OPENS,
    runs: () =>
      values('normType', [
        ['rmsnorm', 'RMSNorm'],
        ['layernorm', 'LayerNorm'],
      ]),
  },
  swiglu: {
    label: 'SwiGLU / ReLU MLP at equal parameter count',
    opens: FFN_OPENS,
    runs: (s) => {
      const width = s.ffnDim as number;
      const gated = { ffn: 'gated', activation: 'silu', ffnDim: Math.round((2 * width) / 3) };
      const standard = { ffn: 'standard', activation: 'relu', ffnDim: width };
      const label = (name: string, change: TrainState) =>
        `${name}, FFN width ${change.ffnDim}: ${thousands(ffnWeights({ ...s, ...change }))} FFN weights per layer`;
      return [
        { label: label('SwiGLU', gated), change: gated },
        { label: label('ReLU', standard), change: standard },
      ];
    },
  },
};

/**
 * The settings a comparison switches to when picked: its `opens` (nothing for an unknown one, or one that keeps your
 * settings), with the modern block's settings and the held-out length back where the view starts unless it sets
 * them (else one comparison's window or evalLength would carry over into the next).
 */
export function comparisonOpening(compare: string): TrainState {
  const opens = COMPARISONS[compare]?.opens ?? {};
  if (Object.keys(opens).length === 0) return {};
  const starts = TRAIN_SETTINGS.filter((s) => s.group === 'modern' || s.name === 'evalLength');
  return { ...Object.fromEntries(starts.map((s) => [s.name, s.default])), ...opens };
}

function variants(state: TrainState): Variant[] {
  return (COMPARISONS[state.compare as string] ?? COMPARISONS.none).runs(state);
}

function fromSchema(
  schema: SchemaInfo,
  target: TrainSetting['target'],
  group: Setting['group'],
  shown: Record<
    string,
    { label: string; labels?: Record<string, string>; start?: unknown; name?: string; help?: string }
  >,
): TrainSetting[] {
  return Object.entries(shown).map(([field, { label, labels, start, name, help }]) => {
    const info = schema.settings.find((s) => s.name === field);
    if (!info) throw new Error(`the engine has no setting '${field}'`);
    const setting = engineSetting(info, group, label, labels);
    return {
      ...setting,
      name: name ?? field,
      default: start ?? setting.default,
      help: help ?? setting.help,
      target,
      field,
    } as TrainSetting;
  });
}

const SAMPLE_TEXT = 'the cat sat on the mat. the dog sat on the log. the cat saw the dog. the dog saw the cat.';

export const TRAIN_SETTINGS: readonly TrainSetting[] = [
  ...fromSchema(TASK_SCHEMA, 'task', 'task', {
    name: {
      name: 'task',
      label: 'Task',
      labels: {
        copy: 'Copy',
        reverse: 'Reverse',
        sort: 'Sort',
        recall: 'Associative recall',
        induction: 'Induction (repeat a random sequence)',
        modadd: 'Modular addition',
        parens: 'Balanced parentheses',
        text: 'Next token of your text',
      },
    },
    length: { label: 'Length' },
    symbols: { label: 'Symbols' },
    modulus: { label: 'Modulus p' },
    text: { label: 'Text to learn', start: SAMPLE_TEXT },
    words: { label: 'Words as tokens' },
    evalLength: { label: 'Held-out length' },
  }),
  ...fromSchema(MODEL_SPEC_SCHEMA, 'spec', 'model', {
    dModel: { label: 'd_model', start: 48 },
    heads: { label: 'Heads' },
    layers: { label: 'Layers' },
    ffnDim: { label: 'FFN width', start: 96 },
    positions: {
      label: 'Positions',
      start: 'learned',
      labels: {
        none: 'None',
        sinusoidal: 'Sinusoidal',
        learned: 'Learned',
        rope: 'RoPE (rotate q and k)',
        alibi: 'ALiBi (a bias on the scores)',
      },
    },
    norm: {
      label: 'LayerNorm placement',
      start: 'pre',
      labels: { post: 'Post-LN (the paper)', pre: 'Pre-LN', sandwich: 'Sandwich (Gemma)' },
    },
    finalNorm: { label: 'Final LayerNorm', start: true },
    activation: {
      label: 'FFN activation',
      labels: { relu: 'ReLU', gelu: 'GELU', gelu_tanh: 'GELU (tanh)', silu: 'SiLU' },
    },
    residual: { label: 'Residual connections' },
    scale: { label: 'Scale by 1/√d_k' },
    attnActivation: {
      label: 'Activation after attention',
      labels: { none: 'None (the paper)', relu: 'ReLU', gelu: 'GELU', gelu_tanh: 'GELU (tanh)' },
    },
    layerNorm: { label: 'LayerNorm' },
  }),
  // The modern block's settings a learner switches on and off (Llama, Qwen, Gemma); the rest keep the engine's defaults.
  ...fromSchema(MODEL_SPEC_SCHEMA, 'spec', 'modern', {
    kvHeads: { label: 'Key/value heads' },
    headDim: { label: 'Head dimension d_h' },
    ropeTheta: { label: 'RoPE base θ' },
    ropeFraction: { label: 'Rotary share' },
    ropeScaling: {
      label: 'RoPE scaling',
      labels: { none: 'None', linear: 'Linear (positions ÷ factor)', llama3: 'Llama 3 (by wavelength)' },
    },
    ropeFactor: { label: 'RoPE scaling factor' },
    ropeLowFreqFactor: { label: 'Llama 3: low-frequency factor' },
    ropeHighFreqFactor: { label: 'Llama 3: high-frequency factor' },
    ropeOriginalContext: { label: 'Llama 3: original context' },
    window: { label: 'Sliding window' },
    windowPattern: { label: 'Global layer every' },
    ropeLocalTheta: { label: 'RoPE base of local layers' },
    normType: {
      label: 'Norm',
      labels: { layernorm: 'LayerNorm', rmsnorm: 'RMSNorm', rmsnorm_offset: 'RMSNorm × (1 + w) (Gemma)' },
    },
    ffn: {
      label: 'FFN kind',
      labels: { standard: 'Standard: act(W₁x)', gated: 'Gated (SwiGLU, GeGLU)' },
    },
    qkNorm: { label: 'QK-norm (RMSNorm on q and k)' },
    qkvBias: { label: 'Biases on q, k, v' },
    outBias: { label: 'Bias on the output projection' },
    mlpBias: { label: 'Biases in the FFN' },
    headBias: { label: 'Bias on the logits' },
    embedScale: { label: 'Embeddings × √d_model (Gemma)' },
    queryPreAttnScalar: { label: 'Scores ÷ √this (Gemma)' },
  }),
  ...fromSchema(OPTIMIZER_SCHEMA, 'optimizer', 'optimizer', {
    lr: { label: 'Learning rate', start: 3e-3 },
    warmup: { label: 'Warm-up steps', start: 20 },
    schedule: {
      label: 'Schedule',
      start: 'cosine',
      labels: { constant: 'Constant', cosine: 'Cosine decay to the last step' },
    },
    weightDecay: { label: 'Weight decay', start: 0 },
    clipNorm: { label: 'Clip gradient norm' },
  }),
  ...fromSchema(TRAINER_SCHEMA, 'trainer', 'optimizer', {
    batchSize: { label: 'Batch size' },
    seed: {
      label: 'Seed',
      help: 'Seeds the initial weights and the batches: the same seed and settings give the same run.',
    },
  }),
  {
    name: 'compare',
    target: 'compare',
    field: 'compare',
    group: 'run',
    type: 'choice',
    label: 'Compare runs',
    default: 'none',
    choices: Object.keys(COMPARISONS),
    help: 'Two to five runs train side by side (each in a worker of its own), the same but for the compared setting.',
    labels: Object.fromEntries(Object.entries(COMPARISONS).map(([k, v]) => [k, v.label])),
  },
  {
    name: 'steps',
    target: 'run',
    field: 'steps',
    group: 'run',
    type: 'int',
    label: 'Steps',
    default: 600,
    min: 1,
    max: 100_000,
    help: 'Training stops after this many steps (the cosine schedule reaches 0 there).',
  },
  {
    name: 'stopAt',
    target: 'run',
    field: 'stopAt',
    group: 'run',
    type: 'int',
    label: 'Stop at accuracy (%)',
    default: 99,
    min: 0,
    max: 100,
    help: 'Stop early once the held-out sequence accuracy reaches this (0: never).',
  },
  {
    name: 'evalEvery',
    target: 'run',
    field: 'evalEvery',
    group: 'run',
    type: 'int',
    label: 'Evaluate every',
    default: 25,
    min: 1,
    max: 10_000,
    help: 'Steps between held-out evaluations (the points of the held-out curve).',
  },
];

/** Which task settings each task reads (the others are hidden; modadd and text have no evalLength: the engine says why). */
const TASK_FIELDS: Record<TaskOptions['name'], string[]> = {
  copy: ['length', 'symbols', 'evalLength'],
  reverse: ['length', 'symbols', 'evalLength'],
  sort: ['length', 'symbols', 'evalLength'],
  recall: ['length', 'symbols', 'evalLength'],
  induction: ['length', 'symbols', 'evalLength'],
  modadd: ['modulus'],
  parens: ['length', 'evalLength'],
  text: ['length', 'text', 'words'],
};

/** Model settings that only mean something with another one (hidden otherwise, and left at the engine's default). */
const SPEC_NEEDS: Record<string, (state: TrainState) => boolean> = {
  ropeTheta: (s) => s.positions === 'rope',
  ropeFraction: (s) => s.positions === 'rope',
  ropeScaling: (s) => s.positions === 'rope',
  ropeFactor: (s) => s.positions === 'rope' && s.ropeScaling !== 'none',
  ropeLowFreqFactor: (s) => s.positions === 'rope' && s.ropeScaling === 'llama3',
  ropeHighFreqFactor: (s) => s.positions === 'rope' && s.ropeScaling === 'llama3',
  ropeOriginalContext: (s) => s.positions === 'rope' && s.ropeScaling === 'llama3',
  windowPattern: (s) => (s.window as number) > 0,
  ropeLocalTheta: (s) => s.positions === 'rope' && (s.window as number) > 0,
};

export type TrainState = Record<string, number | boolean | string>;

export const DEFAULT_TRAIN_STATE: TrainState = Object.fromEntries(TRAIN_SETTINGS.map((s) => [s.name, s.default]));

export function trainSettingByName(name: string): TrainSetting | undefined {
  return TRAIN_SETTINGS.find((s) => s.name === name);
}

/** The settings shown for a state: a task's own, the model's, the optimizer's, the run's. */
export function shownTrainSettings(state: TrainState): TrainSetting[] {
  const fields = TASK_FIELDS[state.task as TaskOptions['name']] ?? [];
  return TRAIN_SETTINGS.filter((s) =>
    s.target === 'task' ? s.field === 'name' || fields.includes(s.field) : (SPEC_NEEDS[s.name]?.(state) ?? true),
  );
}

/** State -> URL hash: '#train' and the settings that differ from where the view starts. */
export function trainStateToHash(state: TrainState): string {
  const params = new URLSearchParams();
  for (const s of TRAIN_SETTINGS) if (state[s.name] !== s.default) params.set(s.name, formatSetting(s, state[s.name]));
  const text = params.toString();
  return text ? `#train&${text}` : '#train';
}

/** URL hash -> state; unknown or invalid parameters are skipped and reported. */
export function trainStateFromHash(hash: string): { state: TrainState; problems: string[] } {
  const state = { ...DEFAULT_TRAIN_STATE };
  const problems: string[] = [];
  for (const [name, raw] of new URLSearchParams(hash.replace(/^#train&?/, ''))) {
    const setting = trainSettingByName(name);
    if (!setting) {
      problems.push(`unknown setting '${name}' in the link`);
      continue;
    }
    const parsed = parseSetting(setting, raw);
    if ('error' in parsed) problems.push(parsed.error);
    else state[name] = parsed.value as TrainState[string];
  }
  return { state, problems };
}

/** Problems between settings (the engine's rules, e.g. heads must divide d_model), keyed by setting. */
export function trainCrossCheck(state: TrainState): Record<string, string> {
  const spec = trainerOptions(state).spec as Record<string, unknown>;
  const problems: Record<string, string> = {};
  // Rules may read settings the view does not show now (hidden, or without a control): those keep the engine's defaults.
  for (const p of ruleProblems(MODEL_SPEC_SCHEMA.rules, { ...DEFAULT_SPEC, ...spec }))
    problems[p.field] ??= inPageWords(p.message, trainSettingByName);
  return problems;
}

/** How long a run goes, and when it stops early. */
export interface RunLimits {
  steps: number;
  /** Stop once held-out sequence accuracy reaches this (0..1; 0 = never). */
  stopAt: number;
  evalEvery: number;
}

export function runLimits(state: TrainState): RunLimits {
  return { steps: state.steps as number, stopAt: (state.stopAt as number) / 100, evalEvery: state.evalEvery as number };
}

/** createTrainer's options for a state (a causal model sized by the engine for the task). */
export function trainerOptions(
  state: TrainState,
): CreateTrainerOptions & { spec: Partial<ModelSpec>; task: TaskOptions } {
  const pick = (target: TrainSetting['target']) =>
    Object.fromEntries(
      shownTrainSettings(state)
        .filter((s) => s.target === target)
        .map((s) => [s.field, state[s.name]]),
    );
  const optimizer = pick('optimizer');
  const trainer = pick('trainer');
  return {
    spec: { ...pick('spec'), causal: true, head: 'linear' } as Partial<ModelSpec>,
    task: pick('task') as unknown as TaskOptions,
    optimizer: { ...optimizer, totalSteps: state.steps as number },
    batchSize: trainer.batchSize as number,
    seed: trainer.seed as number,
    init: { seed: trainer.seed as number },
  };
}

/** The states of the runs: one, or one per run of the comparison (A first), each the state with its change. */
export function runStates(state: TrainState): TrainState[] {
  return variants(state).map((v) => ({ ...state, ...v.change }) as TrainState);
}

/** What tells run `index` of runStates(state) apart from the others, e.g. 'residual off', 'post-LN'; '' for one run. */
export function runLabel(state: TrainState, index: number): string {
  return variants(state)[index]?.label ?? '';
}
