// The model of the "What changed" view: which earlier result the current trace is
// compared with (a pinned baseline, or else the previous result), and whether the two
// can be compared at all at the chosen block, layer and sentence. Pure, so Vitest
// tests it in Node; views/changes-view.ts draws what it returns.
import type { Trace } from 'attention-playground';
import { axisTokens, editedPositions, findStage, rowChanges, type Block } from './trace-model.js';
import { count } from './words.js';

/** One result of the engine, with what produced it. */
export interface Snapshot {
  trace: Trace;
  /** The text typed for it (the compare text for a preloaded comparison). */
  text: string;
  /** '' for the untrained model, else the trained or pretrained model's key. */
  model: string;
}

/** What the current trace is compared with: the pinned baseline wins over the previous result. */
export interface Reference {
  snapshot: Snapshot;
  pinned: boolean;
}

export function referenceFor(pinned: Snapshot | null, previous: Snapshot | null): Reference | null {
  if (pinned) return { snapshot: pinned, pinned: true };
  return previous ? { snapshot: previous, pinned: false } : null;
}

export interface Where {
  block: Block;
  layer: number;
  sequence: number;
}

export type Comparison =
  | { kind: 'none' }
  | { kind: 'incomparable'; reasons: string[] }
  | {
      kind: 'compared';
      before: string[];
      after: string[];
      /** Token positions that differ (empty: the same tokens). */
      edited: number[];
      /** Per token, ‖Δ‖ of the linear Q and V projections' rows and of the attention output's row, at the layer. */
      linear: number[];
      value: number[];
      attention: number[];
      /**
       * Per token, ‖Δ‖ of the layer's feed-forward block (an MLP on each row): of the row it reads and of its output
       * row; null where the FFN was not recorded (a long pretrained text keeps only attention).
       */
      ffnInput: number[] | null;
      ffn: number[] | null;
      /** Per token, the largest change of its attention weights over the heads, max |Δ weight|: they come from the words. */
      weights: number[];
      /** Other sentences of the batch whose tokens differ (0-based): where the edit is when this one has none. */
      otherEdited: number[];
      /** Non-shape settings that differ (e.g. seed): then the weights differ too, not only the input. */
      settings: string[];
    };

// Settings that decide tensor shapes (with how to name them): if they differ, rows cannot be paired up.
const SHAPE_SETTINGS: Record<string, (value: unknown) => string> = {
  layers: (n) => count(n, 'layer'),
  heads: (n) => count(n, 'head'),
  dModel: (n) => `d_model ${String(n)}`,
};

/**
 * Compare `after` with `before` at one block, layer and sentence. Every reason the two
 * cannot be compared is named, so the view says so instead of showing nothing or garbage;
 * a reason reads after "Cannot compare with the baseline: ", "it" being the baseline.
 */
export function compare(before: Snapshot, after: Snapshot, where: Where): Comparison {
  const reasons: string[] = [];
  if (before.model !== after.model) reasons.push('it was computed by another model');
  if (before.trace.mode !== after.trace.mode)
    reasons.push(`it ran in ${before.trace.mode} mode, this result in ${after.trace.mode} mode`);
  const config = (t: Trace) => t.config as unknown as Record<string, unknown>;
  for (const [key, describe] of Object.entries(SHAPE_SETTINGS)) {
    const [a, b] = [config(before.trace)[key], config(after.trace)[key]];
    if (a !== b) reasons.push(`it has ${describe(a)}, this result ${describe(b)}`);
  }
  if (reasons.length > 0) return { kind: 'incomparable', reasons };

  const beforeTokens = axisTokens(before.trace, where.block).queries;
  const afterTokens = axisTokens(after.trace, where.block).queries;
  if (where.sequence >= beforeTokens.length) {
    return {
      kind: 'incomparable',
      reasons: [`it has ${count(beforeTokens.length, 'sentence')}, no sentence ${where.sequence + 1}`],
    };
  }
  const before1 = beforeTokens[where.sequence];
  const after1 = afterTokens[where.sequence] ?? [];
  const edited = editedPositions(before1, after1);
  if (!edited)
    return {
      kind: 'incomparable',
      reasons: [`it has ${count(before1.length, 'token')}, this result ${count(after1.length, 'token')}`],
    };
  const name = (stage: string) => `${where.block}.${stage}`;
  const linear = rowChanges(before.trace, after.trace, name('q_proj'), where.layer, where.sequence);
  const value = rowChanges(before.trace, after.trace, name('v_proj'), where.layer, where.sequence);
  const attention = rowChanges(before.trace, after.trace, name('output'), where.layer, where.sequence);
  if (!linear || !value || !attention) {
    // Same token count, but the batch is padded differently (another sentence grew), or a stage is missing.
    const shape = (t: Trace) => findStage(t, name('output'), where.layer)?.shape.join(' × ') ?? 'none';
    return {
      kind: 'incomparable',
      reasons: [`its layer ${where.layer} output is ${shape(before.trace)}, this result\u2019s ${shape(after.trace)}`],
    };
  }
  const settings = Object.keys(config(after.trace)).filter(
    (key) =>
      !(key in SHAPE_SETTINGS) &&
      JSON.stringify(config(before.trace)[key]) !== JSON.stringify(config(after.trace)[key]),
  );
  const otherEdited = afterTokens.flatMap((tokens, b) =>
    b !== where.sequence && (editedPositions(beforeTokens[b] ?? [], tokens)?.length ?? 1) > 0 ? [b] : [],
  );
  const rows = (changes: number[]) => changes.slice(0, after1.length);
  const stack = where.block.split('.')[0];
  const ffnRows = (stage: string) => {
    const changes = rowChanges(before.trace, after.trace, `${stack}.${stage}`, where.layer, where.sequence);
    return changes && rows(changes);
  };
  // What the FFN reads: the (B, S, E) stage recorded just before its first layer (a LayerNorm, or the residual sum).
  const hiddenAt = after.trace.stages.findIndex((s) => s.name === `${stack}.ffn.hidden` && s.layer === where.layer);
  const ffnInputStage = after.trace.stages
    .slice(0, Math.max(0, hiddenAt))
    .reverse()
    .find((s) => s.layer === where.layer && s.name.startsWith(`${stack}.`) && s.shape.length === 3);
  const ffn = hiddenAt >= 0 ? ffnRows('ffn.output') : null;
  const ffnInput = ffn && ffnInputStage ? ffnRows(ffnInputStage.name.slice(stack.length + 1)) : null;
  return {
    kind: 'compared',
    before: before1,
    after: after1,
    edited,
    linear: rows(linear),
    value: rows(value),
    attention: rows(attention),
    ffnInput,
    ffn,
    weights: rows(weightChanges(before.trace, after.trace, name('weights'), where.layer, where.sequence)),
    settings,
    otherEdited,
  };
}

/** Per query row of one sentence, the largest |Δ weight| over heads and keys (zeros where the stage is missing). */
function weightChanges(before: Trace, after: Trace, name: string, layer: number, sequence: number): number[] {
  const a = findStage(before, name, layer);
  const b = findStage(after, name, layer);
  if (!a || !b || a.shape.join() !== b.shape.join()) return [];
  const [, heads, rows, cols] = a.shape;
  return Array.from({ length: rows }, (_, i) => {
    let worst = 0;
    for (let h = 0; h < heads; h++)
      for (let j = 0; j < cols; j++) {
        const k = ((sequence * heads + h) * rows + i) * cols + j;
        worst = Math.max(worst, Math.abs(a.data[k] - b.data[k]));
      }
    return worst;
  });
}

/** A text for a caption: one line, at most `max` characters. */
export function shortText(text: string, max = 60): string {
  const line = text.replace(/\s*\n\s*/g, ' / ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}
