// The body of the playground's view panel: the chosen view (state.view) of a trace, with
// the view settings clamped to what the trace has. Split out of playground.ts: the
// playground keeps the state and the engine; this file picks and draws the view, and
// brings in the components the views use.
import { html, nothing } from 'lit';
import type { Trace } from 'attention-playground';
import { blocksFor, type State } from '../settings/settings.js';
import { changesView } from './changes-view.js';
import { referenceFor, type Snapshot } from '../model/comparison.js';
import type { Block } from '../model/trace-model.js';
import { type ColorScale, weightScale } from '../ui/colors.js';
import {
  headView,
  headsView,
  linesView,
  masksView,
  overviewView,
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
  /** A pretrained model on a long text: only the attention stages were recorded (the Shapes view says so). */
  attentionOnly: boolean;
  /** The result shown, and the pinned baseline and the previous result (What changed compares with one of them). */
  current: Snapshot;
  baseline: Snapshot | null;
  previous: Snapshot | null;
  /** The Colour scale menu where the page shows it (nothing in an embed that does not list it): it sits by the legend. */
  colorScaleControl: unknown;
}

export function viewBody(ctx: ViewContext, extras: ViewExtras) {
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
      return html`<ap-legend masks label="Key:"></ap-legend>${masksView(ctx)}`;
    case 'shapes':
      return html`${
        extras.attentionOnly
          ? html`<p class="hint" data-testid="attention-only">This text is long
      for a model this size: only the attention stages were recorded, so only they are listed.</p>`
          : nothing
      }${shapesView(ctx)}`;
    case 'rows':
      return rowsView(ctx);
    case 'split':
      return splitView(ctx);
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
