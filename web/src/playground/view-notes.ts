// The notes above the playground's view that say when it is not exactly what the settings
// ask for: the last result that worked (a problem, or another model loading), a result still
// being computed, and a layer, head or sentence number the result does not have (the view
// shows the nearest one, and says so rather than clamping silently).
import { html, nothing } from 'lit';
import type { Trace } from 'attention-playground';
import type { State } from '../settings/settings.js';
import type { ViewContext } from './views.js';
import { count } from '../model/words.js';

/** What the shown result was computed with, in a few words (so "d_model 100" is never mistaken for what was typed). */
function resultSummary(trace: Trace): string {
  const { dModel, heads, layers } = trace.config;
  const sentences = trace.tokens.length;
  return (
    `d_model ${dModel}, ${heads} head${heads === 1 ? '' : 's'}, ${layers} layer${layers === 1 ? '' : 's'}, ` +
    `${sentences} sentence${sentences === 1 ? '' : 's'}`
  );
}

/** Why the view is dimmed: it is an older result. */
export function staleNote(trace: Trace, why: 'problem' | 'loading' | 'computing') {
  const shown = resultSummary(trace);
  const text =
    why === 'computing'
      ? `Computing the new result\u2026 still showing the previous one (${shown}).`
      : why === 'loading'
        ? `Not up to date: the model is loading. Still showing the previous result (${shown}).`
        : `Not up to date: fix the problem marked in red to update. Still showing the last result that worked (${shown}).`;
  return html`<p class="stale-note" data-testid="stale-note" role="status">${text}</p>`;
}

/** Layer, head and sentence numbers the trace lacks: which one is shown instead. */
export function outOfRangeNotes(ctx: ViewContext) {
  const state: State = ctx.state;
  const { layers, heads } = ctx.trace.config;
  const sentences = ctx.trace.tokens.length;
  const notes: string[] = [];
  if (state.view !== 'overview' && state.layer !== ctx.layer)
    notes.push(
      `Layer ${state.layer} does not exist: this model has ${count(layers, 'layer')} ` +
        `(${layers === 1 ? 'layer 0' : `0\u2013${layers - 1}`}); showing layer ${ctx.layer}.`,
    );
  if (state.view === 'head' && state.head !== ctx.head)
    notes.push(
      `Head ${state.head} does not exist: this model has ${count(heads, 'head')} ` +
        `(${heads === 1 ? 'head 0' : `0\u2013${heads - 1}`}); showing head ${ctx.head}.`,
    );
  if (state.view !== 'shapes' && state.sequence !== ctx.sequence)
    notes.push(
      `Sentence ${state.sequence + 1} does not exist: there ${sentences === 1 ? 'is 1 sentence' : `are ${sentences} sentences`}; ` +
        `showing sentence ${ctx.sequence + 1}.`,
    );
  return notes.length
    ? html`${notes.map((note) => html`<p class="range-note" data-testid="out-of-range" role="status">${note}</p>`)}`
    : nothing;
}
