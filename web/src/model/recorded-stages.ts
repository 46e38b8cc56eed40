// What a pretrained model's run records, by the text's length: one forward must pass the
// engine's memory check (one layer's working set, the logit rows asked for and the recorded
// stages within LIMITS.workingMemoryBytes) and the page bounds what it keeps, so a longer
// text keeps fewer stages (docs/views.md "Long texts"), and a view that reads a stage left
// out says so in its place.
import { ENGINE, LIMITS, type ModelSpec } from 'attention-playground';

/** Which stages a run keeps: every stage; the attention stages (scores … weights, masks, Q/K/V); the softmax weights and masks. */
export type Recorded = 'every' | 'attention' | 'weights';

/** Which logit rows a run asks for: every position's (BERT with a [MASK]), the last (a next-token guess), none. */
export type LogitRows = 'all' | 'last' | 'none';

/** The page's bound on the recorded stages, in floats: above FULL_BUDGET only attention is kept. */
export const FULL_BUDGET = 8_000_000;
/** The page's bound on the recorded stages the run keeps (the trace it holds), in floats. */
export const ATTENTION_BUDGET = 40_000_000;
/** The engine's bound on one forward (working set, logits and recorded stages), in floats. */
const ENGINE_FLOATS = LIMITS.workingMemoryBytes / 4;

export type ModelShape = Pick<
  ModelSpec,
  'layers' | 'heads' | 'dModel' | 'headDim' | 'ffnDim' | 'ffn' | 'attnActivation' | 'head' | 'vocabSize'
> & { maxSeq: number };

/** d_k = d_h: the spec's headDim, or E / H when it is 0. */
const headDim = (s: ModelShape) => (s.headDim > 0 ? s.headDim : Math.floor(s.dModel / s.heads));
/** E: the widest of the residual stream and the heads' concatenation (H d_h may exceed E). */
const width = (s: ModelShape) => Math.max(s.dModel, s.heads * headDim(s));

/** The engine's glob (core/src/trace.cpp glob_match): '*' stands for any run of characters. */
function globMatch(pattern: string, name: string): boolean {
  const escaped = pattern.split('*').map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`).test(name);
}

/**
 * The floats the recorded stages take, counted as the engine counts them for its check
 * (core/src/recorded_size.cpp): each stage of the engine's registry (ENGINE.stages) the
 * patterns keep, in every layer, at the size its axis names give for a batch of one.
 */
export function recordedFloats(shape: ModelShape, recorded: Recorded, seq: number): number {
  const stack = 'decoder';
  const patterns = recordPatterns(recorded, stack);
  const kept = (name: string) => patterns.some((p) => globMatch(p, name));
  const axis: Record<string, number> = {
    B: 1,
    S: seq,
    Sq: seq,
    Sk: seq,
    E: width(shape),
    H: shape.heads,
    d_k: headDim(shape),
    F: shape.ffnDim,
    V: shape.vocabSize,
  };
  const other = Math.max(seq, shape.dModel, shape.vocabSize);
  let total = 0;
  for (const stage of ENGINE.stages) {
    const name =
      stage.scope === 'model'
        ? stage.name
        : stage.scope === 'attention'
          ? `${stack}.self_attn.${stage.name}`
          : `${stack}.${stage.name}`;
    if (!kept(name)) continue;
    const floats = (stage.axes as readonly string[]).reduce((n, a) => n * (axis[a] ?? other), 1);
    total += stage.scope === 'layer' || stage.scope === 'attention' ? shape.layers * floats : floats;
  }
  return total;
}

/**
 * The floats the engine's check counts for a forward of `seq` tokens (core/src/transformer.cpp
 * estimate_forward_floats and check_input): one layer's working set at a time, the logit rows
 * asked for ((1, 1, V) for 'last') and the recorded stages.
 */
export function forwardFloats(shape: ModelShape, recorded: Recorded, seq: number, logits: LogitRows): number {
  const e = width(shape),
    h = shape.heads,
    f = shape.ffnDim * (shape.ffn === 'gated' ? 2 : 1);
  const activated = shape.attnActivation === 'none' ? 0 : 1;
  // projections … output ~ 12 (S, E) for queries and keys; scores … weights 4 (H, S, S); masks 2 (S, S)
  const attention = 12 * 2 * seq * e + activated * seq * e + 4 * h * seq * seq + 2 * seq * seq;
  const layer = attention + 3 * seq * f + 8 * seq * e;
  const rows = shape.head === 'none' ? 0 : logits === 'all' ? seq : logits === 'last' ? 1 : 0;
  return layer + 4 * seq * e + rows * shape.vocabSize + recordedFloats(shape, recorded, seq);
}

/** Whether a run of `seq` tokens keeping `recorded` fits the page's bound and passes the engine's check. */
function fits(shape: ModelShape, recorded: Recorded, seq: number, logits: LogitRows): boolean {
  const budget = recorded === 'every' ? FULL_BUDGET : ATTENTION_BUDGET;
  return recordedFloats(shape, recorded, seq) <= budget && forwardFloats(shape, recorded, seq, logits) <= ENGINE_FLOATS;
}

/** The longest text (in tokens, at most maxSeq) a run keeping `recorded` fits (0: none does). */
function longestKeeping(shape: ModelShape, recorded: Recorded, logits: LogitRows): number {
  let low = 0,
    high = shape.maxSeq; // fits(low) holds; the answer is in low..high
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (fits(shape, recorded, mid, logits)) low = mid;
    else high = mid - 1;
  }
  return low;
}

/** The longest text (in tokens) that keeps every attention stage. */
export function longestWithStages(shape: ModelShape, logits: LogitRows): number {
  return longestKeeping(shape, 'attention', logits);
}

/** The longest text (in tokens) shown at all: the softmax weights and masks of every layer. */
export function longestShown(shape: ModelShape, logits: LogitRows): number {
  return longestKeeping(shape, 'weights', logits);
}

/** What a run of `seq` tokens records: the most that fits (a text past longestShown is refused first). */
export function recordedFor(shape: ModelShape, seq: number, logits: LogitRows): Recorded {
  if (fits(shape, 'every', seq, logits)) return 'every';
  return seq <= longestWithStages(shape, logits) ? 'attention' : 'weights';
}

/** The engine's record patterns for a stack ('encoder' or 'decoder'). */
export function recordPatterns(recorded: Recorded, stack: string): string[] {
  if (recorded === 'every') return [`${stack}.*`];
  if (recorded === 'attention') return [`${stack}.input`, `${stack}.self_attn.*`];
  return [
    `${stack}.self_attn.weights`,
    `${stack}.self_attn.mask`,
    `${stack}.self_attn.mask.*`,
    `${stack}.self_attn.kv_group`,
  ];
}

/** What each view reads beyond the weights and masks (as the page names it), where it reads more. */
const BEYOND_WEIGHTS: Partial<Record<string, string>> = {
  rows: 'the projections’ input and output rows (Q, K and V)',
  split: 'Q, K and V and the heads’ contexts',
  positions: 'the queries and keys (before and after RoPE) and the scores',
  steps: 'the scores, scaled scores, masked scores and the contexts',
  changes: 'each layer’s output',
};

/** The heatmap stages other than the weights (State['stage']). */
const STAGE_NAMES: Partial<Record<string, string>> = {
  scores: 'the scores',
  scaled: 'the scaled scores',
  masked: 'the masked scores',
};

/** What the view (with the heatmap stage picked) would draw that this run did not record, or null when it has all it reads. */
export function unrecordedFor(recorded: Recorded, view: string, stage: string): string | null {
  if (recorded !== 'weights') return null;
  if (view === 'heads' || view === 'head') return STAGE_NAMES[stage] ?? null;
  return BEYOND_WEIGHTS[view] ?? null;
}
