// The "why notes": one line per view of the playground, in a learner's words, saying what
// the view shows and why it matters, declared here once beside the view list (settings.ts
// VIEWS); the view body draws the note under the view, on the page and in embeds.
// Two views argue a point that some weights make trivially true or hide: they also name the
// weights their lesson needs and why, and switching to them on weights that hide the point
// switches the Weights setting with them (lessonState), where the control shows it.
import type { ModelConfig } from 'attention-playground';
import { VIEWS, type State } from './settings.js';

export type View = (typeof VIEWS)[number];
type Preset = ModelConfig['preset'];

export interface LessonWeights {
  /** The weights that make the view's point. */
  preset: Preset;
  /** Weights on which the point is trivially true or invisible, with why (shown in the view). */
  hides: Partial<Record<Preset, string>>;
}

export interface WhyNote {
  /** What the view shows, and why it matters: one line. */
  note: string;
  /** The untrained model's weights this view's lesson needs (absent: any weights will do). */
  weights?: LessonWeights;
}

export const WHY_NOTES = {
  heads:
    'Every head’s attention, one grid per head: each row is a word looking, each column a word it may look at. ' +
    'Heads work side by side, so one layer can look for several things at once.',
  head:
    'One head up close, as a grid and as lines from each word to the words it takes from. Hover a cell to see ' +
    'how its number was computed, step by step.',
  lines:
    'The weights as lines: the stronger the line, the more a word takes from that word. Lines make “who looks at ' +
    'whom” easy to read at a glance.',
  masks:
    'Which scores are blocked before the softmax: padding, in a decoder’s self-attention the words still to come, ' +
    'and with a sliding window the words too far back. A blocked word gets weight exactly 0, so nothing of it ' +
    'reaches the answer.',
  shapes:
    'Every tensor of one layer in order, with its shape, and what sits between the weight matrices. Each part hands ' +
    'on (S, E) again, which is why its input can be added back and layers can be stacked.',
  rows: {
    note:
      'Q, K and V are made from each word’s row on its own, with the same weights for every row: two equal input rows ' +
      '(a repeated word, with positions off) give equal Q rows. Only attention mixes the rows.',
    weights: {
      preset: 'random',
      hides: {
        positional:
          'their W_q and W_k read only the position part of each row, so with positional encoding off every Q row is ' +
          'the same and K is all zeros: equal rows would prove nothing',
      },
    },
  },
  split:
    'Heads are not separate layers: one Q is cut into blocks of columns, one block per head, and the heads’ results ' +
    'are laid side by side again afterwards.',
  positions:
    'How a word’s place reaches attention: RoPE turns q and k by position, so a score depends only on how far ' +
    'apart two words are; ALiBi subtracts a penalty growing with that distance; older models add a position vector ' +
    'to each word.',
  steps:
    'One head’s arithmetic, one step at a time, with one word’s numbers recomputed in this page: Q·Kᵀ, ÷ √d_k, mask, ' +
    'softmax, · V. Every number of attention comes out of these five steps.',
  values:
    'The numbers inside any recorded tensor of a layer: pick one to see what that step really produced, word by word.',
  overview:
    'Every head of every layer as a thumbnail: a quick way to find the heads with a pattern. Click one to open it.',
  changes: {
    note:
      'Edit one word and see which rows move. A linear layer or the FFN moves a row only from that row’s own input; ' +
      'attention’s weights are computed from the words, so an edit changes what every word takes from the others.',
    weights: {
      preset: 'random',
      hides: {
        positional:
          'they attend by position whatever the words are, so an edit changes no attention weight; and their FFN is ' +
          'all zeros',
        identity: 'their FFN is all zeros, so its rows cannot move',
      },
    },
  },
} as const satisfies Record<View, string | WhyNote>;

/** A view's note and the weights its lesson needs. */
export function whyNote(view: View): WhyNote {
  const entry: string | WhyNote = WHY_NOTES[view];
  return typeof entry === 'string' ? { note: entry } : entry;
}

/**
 * Why the untrained model's weights in `state` hide the lesson of `view` (null: they do not, or a trained or
 * pretrained model is shown, whose weights are its own).
 */
export function hiddenBy(state: Pick<State, 'model' | 'preset'>, view: View): string | null {
  const weights = whyNote(view).weights;
  if (state.model !== '' || !weights) return null;
  return weights.hides[state.preset] ?? null;
}

/**
 * A Weights switch that a view made for its lesson (not the person): `from` is what the person had chosen, `to`
 * what the lesson brought. Undone when the person leaves the lesson's views, unless they chose Weights meanwhile.
 */
export interface LessonOverride {
  from: Preset;
  to: Preset;
}

/**
 * The state after the person switches to `view`: on weights that hide that view's point, the Weights setting
 * switches to the weights the lesson needs (the control and the link show it; the view says why). Leaving for a
 * view that the person's own weights do not hide puts their weights back, so moving around the diagram never
 * changes the model for good.
 */
export function lessonState(
  state: State,
  override: LessonOverride | null = null,
): { state: State; override: LessonOverride | null } {
  const view = state.view as View;
  const weights = whyNote(view).weights;
  if (override && state.preset !== override.to) override = null; // the person chose Weights since: theirs stay
  if (override && !hiddenBy({ ...state, preset: override.from }, view))
    return { state: { ...state, preset: override.from }, override: null };
  if (weights && hiddenBy(state, view))
    return {
      state: { ...state, preset: weights.preset },
      override: override ?? { from: state.preset, to: weights.preset },
    };
  return { state, override };
}
