// The picture of the view on screen, for the PNG and SVG buttons: its panels, a title
// naming what they show and the input text, and a legend for their colours. Each panel is
// drawn from the trace and the settings, from the same specs and by the same drawing code
// as the view on screen (views.ts heatmapSpec, lineSpec, overlaySpec, maskPanels,
// thumbnails; ui/heatmap.ts heatmapPicture, ui/line-view.ts linePicture, ui/overview.ts
// thumbnailCanvas), not copied off the page.
//
// 'All heads' exports ONE file holding every head's heatmap, laid out as on screen, rather
// than one file per head: the point of that view is comparing heads side by side, one
// download is what a person clicking one button expects (browsers ask before letting a
// page start a dozen downloads), and each head stays findable as its own <g data-head>.
import { isPretrainedId } from '../model/pretrained-models.js';
import { splitLines } from '../settings/settings.js';
import { BLOCKED_FILL, type ColorScale, rowScaleEnds, weightScale } from '../ui/colors.js';
import { canvasPanel, composeFigure, type Legend, type Panel } from '../ui/export-figure.js';
import {
  type PictureSubject,
  type PictureView,
  isPictureView,
  pictureFileName,
  pictureHeading,
} from '../model/export-names.js';
import {
  headColor,
  heatmapSpec,
  lineSpec,
  maskPanels,
  overlayHeads,
  overlaySpec,
  showsMask,
  stageScale,
  thumbnails,
  type ViewContext,
} from './views.js';
import { heatmapPicture, type HeatmapSpec } from '../ui/heatmap.js';
import { linePicture, type LineSpec } from '../ui/line-view.js';
import { thumbnailCanvas } from '../ui/overview.js';
import { MINUS_INFINITY } from '../model/words.js';

const STAGE_LEGEND: Record<string, string> = {
  scores: 'Score',
  scaled: 'Scaled score',
  masked: 'Masked score',
  weights: 'Weight',
};
const LINE_NOTE = 'line opacity and width = softmax weight (query on the left → key on the right)';
const BLOCKED_SWATCH = {
  label: `blocked (${MINUS_INFINITY} before softmax, 0 after)`,
  color: BLOCKED_FILL,
  shape: 'hatch',
} as const;
/** An overview thumbnail's side in the picture, px (about its size on screen). */
const THUMBNAIL_SIDE = 72;

export interface ViewPicture {
  svg: SVGSVGElement;
  fileName: (ext: 'svg' | 'png') => string;
}

export function pictureSubject(ctx: ViewContext, view: PictureView): PictureSubject {
  const { config, tokens } = ctx.trace;
  return {
    view,
    block: ctx.block,
    layer: ctx.layer,
    layers: config.layers,
    head: ctx.head,
    overlay: overlayHeads(ctx.state.overlay, config.heads),
    heads: config.heads,
    stage: ctx.state.stage,
    sequence: ctx.sequence,
    sequences: tokens.length,
  };
}

/** The title's text lines: the sentence shown (as typed), and its source sentence for cross-attention. */
function inputTexts(ctx: ViewContext): { label: string; text: string }[] {
  const { state, sequence, trace } = ctx;
  // A pretrained model reads the whole text (BERT: a second line is the second sentence); the others, one line per sentence.
  const text = isPretrainedId(state.model) ? state.text.trim() : (splitLines(state.text)[sequence] ?? '');
  const texts = [{ label: 'Input:', text: text || (trace.tokens[sequence] ?? []).join(' ') }];
  if (trace.mode === 'cross' && !state.model)
    texts.push({ label: 'Source:', text: splitLines(state.source)[sequence] ?? '' });
  return texts;
}

function heatmapPanel(spec: HeatmapSpec, data: Record<string, string>): Panel {
  return { svg: heatmapPicture(spec), caption: spec.caption, data };
}

function linePanel(spec: LineSpec, data: Record<string, string>): Panel {
  return { svg: linePicture(spec), caption: spec.caption, data };
}

/** The panels and legend of each picture view, drawn from the trace and the settings as the view on screen. */
function viewPanels(ctx: ViewContext, view: PictureView): { panels: Panel[]; legend: Legend; columns?: number } {
  const heads = Array.from({ length: ctx.trace.config.heads }, (_, h) => h);
  // With the colour scale 'row', the bar's ends are each row's own, as the legend on screen says.
  const scaleLegend = (scale: ColorScale, label: string): Legend['scale'] =>
    ctx.state.colorScale === 'row'
      ? { scale, label: `${label}, each row its own scale`, ends: rowScaleEnds(scale.kind) }
      : { scale, label };
  const stageLegend = (): Legend => ({
    scale: scaleLegend(stageScale(ctx), STAGE_LEGEND[ctx.state.stage] ?? ctx.state.stage),
    swatches: showsMask(ctx.state.stage) ? [BLOCKED_SWATCH] : [],
  });
  switch (view) {
    case 'heads': {
      const scale = stageScale(ctx);
      return {
        panels: heads.map((h) => heatmapPanel(heatmapSpec(ctx, h, scale), { head: String(h) })),
        legend: stageLegend(),
      };
    }
    case 'head': {
      const panels = [
        heatmapPanel(heatmapSpec(ctx, ctx.head, stageScale(ctx)), { head: String(ctx.head), kind: 'heatmap' }),
        linePanel(lineSpec(ctx, ctx.head), { head: String(ctx.head), kind: 'lines' }),
      ];
      const legend = stageLegend();
      return {
        panels,
        legend: {
          ...legend,
          swatches: [
            ...legend.swatches!,
            { label: `head ${ctx.head} (lines)`, color: headColor(ctx.head), shape: 'line' },
          ],
          note: LINE_NOTE,
        },
      };
    }
    case 'lines': {
      // Heads ticked in the overlay strip: one picture of them; none: one per head.
      const overlay = overlayHeads(ctx.state.overlay, ctx.trace.config.heads);
      const shown = overlay.length > 0 ? overlay : heads;
      const panels =
        overlay.length > 0
          ? [linePanel(overlaySpec(ctx, overlay), { heads: overlay.join(',') })]
          : heads.map((h) => linePanel(lineSpec(ctx, h), { head: String(h) }));
      return {
        panels,
        legend: {
          swatches: shown.map((h) => ({ label: `head ${h}`, color: headColor(h), shape: 'line' as const })),
          note: LINE_NOTE,
        },
      };
    }
    case 'masks':
      return {
        panels: maskPanels(ctx).map((p) => heatmapPanel(p.spec, { mask: p.mask })),
        legend: {
          swatches: [
            { label: 'allowed', color: '#e3f1e5', shape: 'box' },
            { label: 'blocked: the softmax gives it weight 0', color: BLOCKED_FILL, shape: 'hatch' },
          ],
          note: 'one mask per layer, shared by every head',
        },
      };
    case 'overview': {
      const perRow = ctx.state.colorScale === 'row';
      return {
        panels: thumbnails(ctx).map((t) => ({
          svg: canvasPanel(thumbnailCanvas(t, perRow), THUMBNAIL_SIDE),
          caption: `L${t.layer} H${t.head}`,
          data: { layer: String(t.layer), head: String(t.head) },
        })),
        // The thumbnails fill blocked cells with plain grey (no room for hatching), so the legend does too.
        legend: {
          scale: scaleLegend(weightScale(), 'Weight'),
          swatches: [{ label: 'blocked (masked)', color: BLOCKED_FILL, shape: 'box' }],
        },
        columns: ctx.trace.config.heads,
      };
    }
  }
}

/** The picture of the current view, or null when the view is not a picture. */
export function viewPicture(ctx: ViewContext): ViewPicture | null {
  const view = ctx.state.view;
  if (!isPictureView(view)) return null;
  const { panels, legend, columns } = viewPanels(ctx, view);
  if (panels.length === 0) return null;
  const subject = pictureSubject(ctx, view);
  const svg = composeFigure({ heading: pictureHeading(subject), texts: inputTexts(ctx), legend, panels, columns });
  return { svg, fileName: (ext) => pictureFileName(subject, ext) };
}
