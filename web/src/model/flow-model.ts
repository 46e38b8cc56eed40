// The steps of one layer as the Shapes view draws them and the Values view lists them:
// the recorded stages of the layer in computation order, with Q, K and V side by side
// (three projections of the same input), the weight shapes where a weight is applied,
// where the residual adds and where LayerNorm applies (or that the residual is off).
// Built from the trace alone (shapes from the recorded stages, not from the settings),
// so it holds for trained and pretrained models too. No DOM: Vitest tests it in Node.
import type { Stage, Trace } from 'attention-playground';
import { type Stack, stackName, stagePlace } from './stage-values.js';
import { findStage } from './trace-model.js';

export interface FlowStep {
  /** Full stage name, e.g. 'encoder.self_attn.q_heads'. */
  full: string;
  /** Inside its stack: 'self_attn.q_heads', 'norm1', 'input'. */
  name: string;
  /** The layer the stage was recorded at (-1 for the stack's input). */
  layer: number;
  axes: string[];
  shape: number[];
}

export type RowKind = 'input' | 'step' | 'parallel' | 'residual' | 'norm' | 'no-residual';

export interface FlowRow {
  kind: RowKind;
  /** Side by side when kind is 'parallel' (Q, K, V); none for 'no-residual'. */
  steps: FlowStep[];
  /** What happens here in words: weight shapes, the residual add, the norm's placement. */
  note: string;
}

/** Short labels of the steps (the Values view's tensor buttons), by registry scope and name. */
const TITLES: Record<string, string> = {
  'stack:input': 'layer input',
  'stack:embeddings': 'token embeddings',
  'stack:positions': 'positions',
  'stack:token_types': 'token types',
  'stack:final_norm': 'final norm',
  'attention:q_proj': 'Q',
  'attention:k_proj': 'K',
  'attention:v_proj': 'V',
  'attention:q_split': 'Q split',
  'attention:q_heads': 'Q per head',
  'attention:k_heads': 'K per head',
  'attention:v_heads': 'V per head',
  'attention:context': 'context = weights × V',
  'attention:merged': 'merged heads',
  'attention:output': 'output projection',
  'attention:activated': 'activated output',
  'layer:norm1': 'norm 1',
  'layer:norm2': 'norm 2',
  'layer:norm3': 'norm 3',
  'layer:residual1': 'residual 1',
  'layer:residual2': 'residual 2',
  'layer:residual3': 'residual 3',
  'layer:ffn.hidden': 'FFN hidden',
  'layer:ffn.activated': 'FFN activated',
  'layer:ffn.output': 'FFN output',
  'layer:output': 'layer output',
};

/** A step's short label: 'Q per head', 'norm 1' (a LayerNorm or an RMSNorm); an attention step of cross-attention says so. */
export function stepTitle(fullName: string): string {
  const place = stagePlace(fullName);
  if (!place) return fullName;
  const title = TITLES[`${place.scope}:${place.name}`] ?? place.name;
  return place.block === 'cross_attn' ? `cross: ${title}` : title;
}

function step(stage: Stage, name = stackName(stage.name)): FlowStep {
  return { full: stage.name, name, layer: stage.layer, axes: stage.axes, shape: stage.shape };
}

/**
 * The stage a layer reads: the stack's input (embeddings + positions) for layer 0, the
 * previous layer's output after that.
 */
export function layerInput(trace: Trace, stack: Stack, layer: number): Stage | undefined {
  return layer === 0 ? findStage(trace, `${stack}.input`, -1) : findStage(trace, `${stack}.output`, layer - 1);
}

/** The recorded stages of one layer of a stack, after the stage it reads, in the order they were computed. */
export function layerStages(trace: Trace, stack: Stack, layer: number): Stage[] {
  const input = layerInput(trace, stack, layer);
  return [
    ...(input ? [input] : []),
    ...trace.stages.filter((s) => s.layer === layer && s.name.startsWith(`${stack}.`)),
  ];
}

/**
 * A tensor of the Values view (its name inside the stack, e.g. 'self_attn.q_heads', or
 * 'input' for what the layer reads) at one layer, if recorded.
 */
export function resolveTensor(trace: Trace, stack: Stack, layer: number, tensor: string): Stage | undefined {
  if (tensor === 'input') return layerInput(trace, stack, layer);
  return (
    findStage(trace, `${stack}.${tensor}`, layer) ??
    (stagePlace(`${stack}.${tensor}`)?.scope === 'stack' ? findStage(trace, `${stack}.${tensor}`, -1) : undefined)
  );
}

/** What the stack's input adds up (embeddings (B, S, E), positions (S, E), token types (B, S, E)), as recorded. */
const INPUT_PARTS = ['embeddings', 'positions', 'token_types'];

const isMask = (name: string) => name === 'mask' || name.startsWith('mask.');
const PARALLEL = [
  ['q_proj', 'k_proj', 'v_proj'],
  ['q_heads', 'k_heads', 'v_heads'],
];
const SUBLAYER_ENDS = ['output', 'activated'];

/** Where a sub-layer (attention or FFN) hands its output on: after it comes the residual add, if any. */
function endsSublayer(stages: Stage[], i: number): boolean {
  const place = stagePlace(stages[i].name)!;
  const next = stages[i + 1] ? stagePlace(stages[i + 1].name) : null;
  if (place.scope === 'layer' && place.name === 'ffn.output') return true;
  return (
    place.scope === 'attention' &&
    SUBLAYER_ENDS.includes(place.name) &&
    !(place.name === 'output' && next?.scope === 'attention' && next.name === 'activated')
  );
}

/**
 * The rows of one layer's flow. Q, K and V share a row (each is the same input times its
 * own E x E weight); the head split notes that W_q's E output rows are H blocks of d_k;
 * residual and norm rows say what they add or normalise. Without residual connections, a
 * 'no-residual' row stands where the add would be.
 */
export function flowRows(trace: Trace, stack: Stack, layer: number): FlowRow[] {
  const stages = layerStages(trace, stack, layer);
  const rows: FlowRow[] = [];
  const seen = new Set<string>();
  // No residual stage among the layer's own stages (not merely unrecorded, as when only attention was kept): off.
  const layerStagesKept = stages.some((s) => stagePlace(s.name)?.scope === 'layer');
  const noResidual = layerStagesKept && !stages.some((s) => stagePlace(s.name)?.name.startsWith('residual'));
  const parts =
    layer === 0
      ? INPUT_PARTS.map((n) => findStage(trace, `${stack}.${n}`, -1)).filter((s): s is Stage => Boolean(s))
      : [];
  if (parts.length > 0)
    rows.push({ kind: 'parallel', steps: parts.map((p) => step(p)), note: 'added up: the layer input' });
  stages.forEach((stage, i) => {
    if (i === 0 && stage.layer !== layer) {
      // what the layer reads (layerStages puts it first)
      rows.push({
        kind: 'input',
        steps: [step(stage, 'input')],
        note: layer === 0 ? '' : `layer ${layer - 1}\u2019s output is this layer\u2019s input`,
      });
      return;
    }
    if (seen.has(stage.name)) return;
    const place = stagePlace(stage.name)!;
    const group = place.scope === 'attention' ? PARALLEL.find((g) => g[0] === place.name) : undefined;
    if (group) {
      const prefix = stage.name.slice(0, -place.name.length);
      const members = group.map((n) => stages.find((s) => s.name === prefix + n)).filter((s): s is Stage => Boolean(s));
      members.forEach((s) => seen.add(s.name));
      rows.push({
        kind: 'parallel',
        steps: members.map((m) => step(m)),
        note: parallelNote(place.name, place.block, stage, members),
      });
    } else if (place.scope === 'attention' && PARALLEL.some((g) => g.includes(place.name))) {
      rows.push({ kind: 'step', steps: [step(stage)], note: '' }); // a sibling recorded without its group's first
    } else if (place.scope === 'attention' && isMask(place.name)) {
      // The masks of a block side by side: each kind, then their combination.
      const masks = stages.filter(
        (s) => s.name.startsWith(stage.name.slice(0, -place.name.length)) && isMask(stagePlace(s.name)!.name),
      );
      masks.forEach((s) => seen.add(s.name));
      rows.push({
        kind: 'parallel',
        steps: masks.map((m) => step(m)),
        note: 'the masks: 1 = blocked; the combined mask is what the softmax sees',
      });
    } else if (place.name.startsWith('residual')) {
      rows.push({
        kind: 'residual',
        steps: [step(stage)],
        note:
          '\u2295 residual: the sub-layer\u2019s input x is added back, x + f(x); x travels this path untouched (no ' +
          'weight, no activation), so f only adds a correction and every layer below stays one step from the loss',
      });
    } else if (place.name.startsWith('norm')) {
      // norm<k> after its own sub-layer (k sub-layers done before it) is post-LN; before it (k - 1 done), pre-LN.
      const done = stages.slice(0, i).filter((_, j) => endsSublayer(stages, j)).length;
      const pre = done < Number(place.name.slice('norm'.length));
      rows.push({
        kind: 'norm',
        steps: [step(stage)],
        note: pre
          ? 'LayerNorm (pre-LN): each token normalised before the sub-layer reads it'
          : 'LayerNorm (post-LN): each token normalised after the add',
      });
    } else {
      rows.push({ kind: 'step', steps: [step(stage)], note: stepNote(place.name, place.scope, stage, stages, trace) });
    }
    seen.add(stage.name);
    if (noResidual && endsSublayer(stages, i))
      rows.push({
        kind: 'no-residual',
        steps: [],
        note: 'no residual: the sub-layer\u2019s output goes on alone (residual connections are off)',
      });
  });
  const finalNorm = layer === trace.config.layers - 1 ? findStage(trace, `${stack}.final_norm`, -1) : undefined;
  if (finalNorm)
    rows.push({
      kind: 'norm',
      steps: [step(finalNorm)],
      note: 'after the last layer: the stack\u2019s final norm',
    });
  return rows;
}

/** members: the group's recorded stages (q_proj, k_proj, v_proj; or the per-head q, k, v). */
function parallelNote(name: string, block: string, stage: Stage, members: Stage[]): string {
  const e = stage.shape[stage.shape.length - 1];
  // Grouped-query attention: K and V are narrower than Q (H_kv heads of d_k), read off the recorded K.
  const k = members.find((m) => /\.k_(proj|heads)$/.test(m.name));
  if (name === 'q_proj') {
    const from =
      block === 'cross_attn'
        ? 'Q from the decoder, K and V from the encoder\u2019s output'
        : 'all three from the same input x';
    const kv = k ? k.shape[k.shape.length - 1] : e;
    const weights =
      kv === e
        ? `W_q, W_k, W_v each E \u00d7 E = ${e} \u00d7 ${e} (+ a bias of E)`
        : `W_q E \u00d7 E = ${e} \u00d7 ${e}; W_k and W_v (H_kv \u00b7 d_k) \u00d7 E = ${kv} \u00d7 ${e} each, fewer K/V heads (grouped-query attention)`;
    return `three linear layers side by side, row by row: ${weights}; ${from}`;
  }
  if (k && k.shape.length === 4 && k.shape[1] !== stage.shape[1])
    return `each projection cut into heads: Q (B, S, E) \u2192 (B, H, S, d_k) = H ${stage.shape[1]}; K and V \u2192 (B, H_kv, S, d_k) = H_kv ${k.shape[1]}, each shared by ${stage.shape[1] / k.shape[1]} query heads`;
  return 'each projection cut into heads: (B, S, E) \u2192 (B, H, S, d_k)';
}

function stepNote(name: string, scope: string, stage: Stage, stages: Stage[], trace: Trace): string {
  const last = stage.shape[stage.shape.length - 1];
  if (scope === 'attention' && name === 'q_split') {
    const [, , h, dk] = stage.shape;
    return `W_q\u2019s E = ${h * dk} output rows (so Q\u2019s E columns) read as H = ${h} blocks of d_k = ${dk}: block h makes head h`;
  }
  if (scope === 'attention' && name === 'context') return 'each head: weights (Sq, Sk) \u00d7 V (Sk, d_k)';
  if (scope === 'attention' && name === 'merged')
    return 'the heads side by side again: (B, H, Sq, d_k) \u2192 (B, Sq, E)';
  if (scope === 'attention' && name === 'output') return `W_o: E \u00d7 E = ${last} \u00d7 ${last}, mixes the heads`;
  if (name === 'ffn.hidden') {
    const e = stages.find((s) => s.name.endsWith('ffn.output'))?.shape.at(-1) ?? 0;
    return `W_1: F \u00d7 E = ${last} \u00d7 ${e}, row by row`;
  }
  if (name === 'ffn.activated') return trace.config.activation ? `activation: ${trace.config.activation}` : '';
  if (name === 'ffn.output') {
    const f = stages.find((s) => s.name.endsWith('ffn.hidden'))?.shape.at(-1) ?? 0;
    return `W_2: E \u00d7 F = ${last} \u00d7 ${f}, back to E`;
  }
  return '';
}

/** The split of W_q (E x E) into H row blocks of d_k, from a q_split stage (B, Sq, H, d_k); null without one. */
export function headBlocks(trace: Trace, stack: Stack, layer: number): { heads: number; dK: number } | null {
  const split = layerStages(trace, stack, layer).find((s) => s.name.endsWith('.q_split'));
  return split ? { heads: split.shape[2], dK: split.shape[3] } : null;
}

/** One gap between two weight matrices of a layer's chain, and what stands in it. */
export interface Between {
  from: string;
  to: string;
  /** The steps in the gap that are not another weight: their step name and what they do. */
  ops: { name: string; what: string }[];
}

const CHAIN: [RegExp, string][] = [
  [/^(self|cross)_attn\.v_proj$/, 'W_v'],
  [/^(self|cross)_attn\.output$/, 'W_o'],
  [/^ffn\.hidden$/, 'W_1'],
  [/^ffn\.output$/, 'W_2'],
];
/** The gaps the chain of values takes: V -> W_o, W_o -> the FFN's W_1, W_1 -> W_2 (not W_o -> a cross block's W_v, which reads the encoder). */
const LINKS = ['W_v>W_o', 'W_o>W_1', 'W_1>W_2'];

/**
 * Seed 002: what stands between one weight matrix and the next along a layer (the flow's rows, in order). Two linear
 * layers in a row would be one linear layer; here every gap has something that is not: the softmax weights
 * (computed from the input) between W_v and W_o, the residual add and LayerNorm between W_o and W_1, the
 * activation between W_1 and W_2.
 */
export function betweenWeights(rows: FlowRow[], activation = ''): Between[] {
  const gaps: Between[] = [];
  let open: Between | null = null;
  for (const step of rows.flatMap((r) => r.steps)) {
    const weight = CHAIN.find(([pattern]) => pattern.test(step.name))?.[1];
    if (weight) {
      if (open && LINKS.includes(`${open.from}>${weight}`)) gaps.push({ ...open, to: weight });
      open = { from: weight, to: '', ops: [] };
      continue;
    }
    if (!open) continue;
    const place = stagePlace(step.full);
    const name = place?.name ?? step.name;
    const what =
      place?.scope === 'attention' && name === 'weights'
        ? '\u00d7 the softmax weights, computed from Q and K (so from the input itself)'
        : name.startsWith('residual')
          ? '+ x, the residual add'
          : name.startsWith('norm')
            ? 'LayerNorm: each row minus its mean, \u00f7 its own spread (not linear)'
            : name === 'ffn.activated' || (place?.scope === 'attention' && name === 'activated')
              ? `the activation${activation ? ` (${activation})` : ''}`
              : '';
    if (what) open.ops.push({ name: step.name, what });
  }
  return gaps;
}
