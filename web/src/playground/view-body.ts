// The body of the playground's view panel: the chosen view (state.view) of a trace, with
// the view settings clamped to what the trace has. Split out of playground.ts: the
// playground keeps the state and the engine; this file picks and draws the view, and
// brings in the components the views use.
import { html, nothing } from 'lit';
import type { Trace } from 'attention-playground';
import { blocksFor, settingByName, shownValue, type Setting, type State } from '../settings/settings.js';
import { hiddenBy, whyNote, type LessonWeights, type View } from '../settings/why-notes.js';
import { changesView } from './changes-view.js';
import { referenceFor, type Snapshot } from '../model/comparison.js';
import { unrecordedFor, type Recorded } from '../model/recorded-stages.js';
import { axisTokens, findStage, type Block } from '../model/trace-model.js';
import { type ColorScale, weightScale } from '../ui/colors.js';
import {
  blockedCells,
  headView,
  headsView,
  linesView,
  masksView,
  overviewView,
  positionsView,
  rowsView,
  shapesView,
  splitView,
  stageScale,
  stepsView,
  valuesView,
  type ViewContext,
} from './views.js';
import '../ui/heatmap.js';
import '../ui/legend.js';
import '../ui/line-view.js';
import '../ui/overview.js';
import './shape-flow.js';
import './tensor-view.js';
import './row-wise.js';
import './head-split.js';
import './head-walk.js';
import './positions-view.js';
import { drawRefusal } from './draw-limit.js';

/** The view settings, clamped to what the trace has (its blocks, layers, heads and sentences). */
export function viewContext(trace: Trace, state: State): ViewContext {
  const blocks = blocksFor(trace.mode);
  const block = (blocks as string[]).includes(state.block) ? (state.block as Block) : blocks[0];
  const clamp = (v: number, n: number) => Math.min(Math.max(0, v), n - 1);
  return {
    trace,
    state,
    block,
    layer: clamp(state.layer, trace.config.layers),
    head: clamp(state.head, trace.config.heads),
    sequence: clamp(state.sequence, trace.tokens.length),
  };
}

export interface ViewExtras {
  /** Which stages the trace has: a pretrained model on a long text records fewer (the views that read them say so). */
  recorded: Recorded;
  /** The longest text whose run keeps every attention stage (the worker's rule, model/recorded-stages.ts). */
  stagesUpTo: number;
  /** The result shown, and the pinned baseline and the previous result (What changed compares with one of them). */
  current: Snapshot;
  baseline: Snapshot | null;
  previous: Snapshot | null;
  /** The Colour scale menu where the page shows it (nothing in an embed that does not list it): it sits by the legend. */
  colorScaleControl: unknown;
  /** Whether the view's why note (under it) shows: everywhere but in an embed whose controls are 'none'. */
  whyNote?: boolean;
  /** Whether the Weights control shows: where it does not (a tutorial's embed), the note names no weights to pick. */
  weightsControl?: boolean;
}

/** Why the view brings its own weights, for the first weights it avoids (the page's first view's, Positional heads). */
function lessonReason(weights: LessonWeights, preset: Setting) {
  const [avoided, why] = Object.entries(weights.hides)[0];
  return `with \u201c${shownValue(preset, avoided)}\u201d ${why}`;
}

/**
 * The line under the view: what it shows and why it matters (settings/why-notes.ts); for a view that brings its own
 * weights, which and why. Under, not above: the picture stays on the first screen of a phone.
 */
export function whyNoteLine(view: View, state: Pick<State, 'model' | 'preset'>, weightsControl = true) {
  const { note, weights } = whyNote(view);
  const preset = settingByName('preset')!;
  return html`<p class="hint why-note" data-testid="why-note" data-view=${view}
    style="font-size: 0.88em; margin: 0.6rem 0 0.3rem">${note}${
      weights && weightsControl && state.model === '' && !hiddenBy(state, view)
        ? html` <span data-testid="lesson-weights">Weights: ${shownValue(preset, weights.preset)} here, since
          ${lessonReason(weights, preset)}.</span>`
        : nothing
    }</p>`;
}

/**
 * Above the view, where the untrained model's weights make its point trivially true or invisible: why, with the
 * weights that show it one click away.
 */
export function hiddenPointWarning(view: View, state: Pick<State, 'model' | 'preset'>) {
  const hidden = hiddenBy(state, view);
  const weights = whyNote(view).weights;
  if (!hidden || !weights) return nothing;
  const preset = settingByName('preset')!;
  const use = (event: Event) =>
    event.target?.dispatchEvent(
      new CustomEvent('setting-input', {
        detail: { name: 'preset', raw: weights.preset },
        bubbles: true,
        composed: true,
      }),
    );
  return html`<p class="hint warn" role="status" data-testid="lesson-hidden">These weights
    (${shownValue(preset, state.preset)}) hide this view’s point: ${hidden}. <button type="button"
    data-action="lesson-weights" @click=${use}>Use ${shownValue(preset, weights.preset)} weights</button></p>`;
}

/**
 * Seed 004: cross-attention has no causal mask (some texts say it does). In the cross block, counted from the
 * combined mask the softmax sees: how many cells are blocked, and that none of them for being later than the query.
 */
function crossMaskNote(ctx: ViewContext) {
  if (ctx.block !== 'decoder.cross_attn') return nothing;
  const blocked = blockedCells(ctx);
  const { queries, keys } = axisTokens(ctx.trace, ctx.block);
  const [sq, sk] = [queries[ctx.sequence]?.length ?? 0, keys[ctx.sequence]?.length ?? 0];
  const cols = blocked.length / (findStage(ctx.trace, `${ctx.block}.mask`, ctx.layer)?.shape[1] ?? 1);
  let real = 0,
    later = 0;
  for (let i = 0; i < sq; i++)
    for (let j = 0; j < sk; j++)
      if (blocked[i * cols + j]) {
        real++;
        if (j > i) later++;
      }
  const padding = blocked.reduce((n: number, b) => n + b, 0) - real;
  return html`<p class="hint" data-testid="no-causal" data-real-blocked=${real} data-later-blocked=${later}>
    <strong>No causal mask in cross-attention.</strong> Every target word may read every source word: the source
    sentence is given whole, so nothing in it is “the future”. Only the decoder’s self-attention hides the words to
    come. Here ${real === 0 ? 'no word of the source is blocked for any target word' : `${real} word cells are blocked`}${
      padding > 0 ? ` (only the ${padding} padding cells are)` : ''
    }; pick Block “Decoder self-attention” to see the
    causal mask.</p>`;
}

export function viewBody(ctx: ViewContext, extras: ViewExtras) {
  const notes = extras.whyNote !== false;
  return html`${notes ? hiddenPointWarning(ctx.state.view, ctx.state) : nothing}${viewOnly(ctx, extras)}${
    notes ? whyNoteLine(ctx.state.view, ctx.state, extras.weightsControl !== false) : nothing
  }`;
}

/** In place of a view that reads stages this long text's run did not record: which, and why. */
function unrecordedNote(ctx: ViewContext, missing: string, longest: number) {
  const tokens = axisTokens(ctx.trace, ctx.block).queries[ctx.sequence]?.length ?? 0;
  return html`<p class="hint warn" role="status" data-testid="not-recorded" data-longest=${longest}>This view draws ${missing}: for a
    text this long (${tokens} tokens) on a model this size, only the softmax weights and the masks of every layer were
    recorded, to keep the page’s memory bounded. All heads and One head (Stage: weights), Masks and Layers × heads
    draw this text; a text of at most ${longest} tokens records every attention stage.</p>`;
}

function viewOnly(ctx: ViewContext, extras: ViewExtras) {
  const missing = unrecordedFor(extras.recorded, ctx.state.view, ctx.state.stage);
  if (missing) return unrecordedNote(ctx, missing, extras.stagesUpTo);
  const refusal = drawRefusal(ctx);
  if (refusal) return refusal;
  const perRow = ctx.state.colorScale === 'row';
  // The colour legend with the Colour scale menu on its line. plainBlocked: the thumbnails' blocked cells are plain grey.
  const legendRow = (
    scale: ColorScale,
    label: string,
    plainBlocked = false,
  ) => html`<div class="legend-row">${extras.colorScaleControl}<ap-legend
    .scale=${scale} ?per-row=${perRow} ?plain-blocked=${plainBlocked} label=${label}></ap-legend></div>`;
  switch (ctx.state.view) {
    case 'heads':
    case 'head': {
      const scale = stageScale(ctx);
      return html`${legendRow(scale, 'Colour:')}${
        perRow && ctx.state.stage !== 'weights'
          ? html`<p class="hint" data-testid="row-scale-note">Each row on its own scale:
          dividing by √d_k shrinks a row’s scores alike, so Scores and Scaled look the same here (hover a cell for its numbers);
          pick “One for all cells” to see the division as paler colours.</p>`
          : nothing
      }${ctx.state.view === 'heads' ? headsView(ctx, scale) : headView(ctx, scale)}`;
    }
    case 'lines':
      return linesView(ctx);
    case 'masks':
      return html`<ap-legend masks label="Key:"></ap-legend>${crossMaskNote(ctx)}${masksView(ctx)}`;
    case 'shapes':
      return html`${
        extras.recorded !== 'every'
          ? html`<p class="hint" data-testid="attention-only" data-recorded=${extras.recorded}>This text is long
      for a model this size: only ${
        extras.recorded === 'weights' ? 'the softmax weights and the masks' : 'the attention stages'
      } were recorded, so only they are listed.</p>`
          : nothing
      }${shapesView(ctx)}`;
    case 'rows':
      return rowsView(ctx);
    case 'split':
      return splitView(ctx);
    case 'positions':
      return positionsView(ctx);
    case 'steps':
      return stepsView(ctx);
    case 'values':
      return valuesView(ctx);
    case 'overview':
      return html`${legendRow(weightScale(), 'Colour (softmax weights):', true)}${overviewView(ctx)}`;
    case 'changes':
      return changesView({
        ...ctx,
        current: extras.current,
        reference: referenceFor(extras.baseline, extras.previous),
      });
  }
}
