// The picture of the view on screen, for the PNG and SVG buttons: its panels (the SVGs the
// components drew, or the overview's canvases), a title naming what they show and the
// input text, and a legend for their colours.
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
import { headColor, overlayHeads, showsMask, stageScale, type ViewContext } from './views.js';
import type { Heatmap } from '../ui/heatmap.js';
import type { LineView } from '../ui/line-view.js';

const STAGE_LEGEND: Record<string, string> = {
  scores: 'Score',
  scaled: 'Scaled score',
  masked: 'Masked score',
  weights: 'Weight',
};
const LINE_NOTE = 'line opacity and width = softmax weight (query on the left → key on the right)';
const BLOCKED_SWATCH = { label: 'blocked (−∞ before softmax, 0 after)', color: BLOCKED_FILL, shape: 'hatch' } as const;
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

function heatmapPanel(el: Heatmap, data: Record<string, string>): Panel | null {
  const svg = el.svgElement();
  return svg && { svg, caption: el.caption, data };
}

function linePanel(el: LineView, data: Record<string, string>): Panel | null {
  const svg = el.svgElement();
  return svg && { svg, caption: el.caption, data };
}

function present<T>(list: (T | null)[]): T[] {
  return list.filter((x): x is T => x !== null);
}

/** The panels and legend of each picture view, read from what is on screen. */
function viewPanels(
  root: ParentNode,
  ctx: ViewContext,
  view: PictureView,
): { panels: Panel[]; legend: Legend; columns?: number } {
  const heatmaps = (selector: string) => [...root.querySelectorAll<Heatmap>(`ap-heatmap${selector}`)];
  const lineViews = (selector: string) => [...root.querySelectorAll<LineView>(`ap-line-view${selector}`)];
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
    case 'heads':
      return {
        panels: present(heatmaps('[data-head]').map((el) => heatmapPanel(el, { head: el.dataset.head! }))),
        legend: stageLegend(),
      };
    case 'head': {
      const panels = present([
        ...heatmaps(`[data-head="${ctx.head}"]`).map((el) =>
          heatmapPanel(el, { head: String(ctx.head), kind: 'heatmap' }),
        ),
        ...lineViews(`[data-head="${ctx.head}"]`).map((el) => linePanel(el, { head: String(ctx.head), kind: 'lines' })),
      ]);
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
      const overlay = lineViews('[data-overlay]')[0];
      const heads = overlay
        ? overlay.dataset.overlay!.split(',').map(Number)
        : Array.from({ length: ctx.trace.config.heads }, (_, h) => h);
      const panels = overlay
        ? present([linePanel(overlay, { heads: overlay.dataset.overlay! })])
        : present(lineViews('[data-head]').map((el) => linePanel(el, { head: el.dataset.head! })));
      return {
        panels,
        legend: {
          swatches: heads.map((h) => ({ label: `head ${h}`, color: headColor(h), shape: 'line' as const })),
          note: LINE_NOTE,
        },
      };
    }
    case 'masks':
      return {
        panels: present(heatmaps('[data-mask]').map((el) => heatmapPanel(el, { mask: el.dataset.mask! }))),
        legend: {
          swatches: [
            { label: 'allowed', color: '#e3f1e5', shape: 'box' },
            { label: 'blocked: the softmax gives it weight 0', color: BLOCKED_FILL, shape: 'hatch' },
          ],
          note: 'one mask per layer, shared by every head',
        },
      };
    case 'overview': {
      const canvases = [
        ...(root.querySelector('ap-overview')?.shadowRoot?.querySelectorAll<HTMLCanvasElement>('canvas[data-layer]') ??
          []),
      ];
      return {
        panels: canvases.map((c) => ({
          svg: canvasPanel(c, THUMBNAIL_SIDE),
          caption: `L${c.dataset.layer} H${c.dataset.head}`,
          data: { layer: c.dataset.layer!, head: c.dataset.head! },
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

/** The picture of the current view, or null when the view is not a picture (or not drawn yet). */
export function viewPicture(root: ParentNode, ctx: ViewContext): ViewPicture | null {
  const view = ctx.state.view;
  if (!isPictureView(view)) return null;
  const { panels, legend, columns } = viewPanels(root, ctx, view);
  if (panels.length === 0) return null;
  const subject = pictureSubject(ctx, view);
  const svg = composeFigure({ heading: pictureHeading(subject), texts: inputTexts(ctx), legend, panels, columns });
  return { svg, fileName: (ext) => pictureFileName(subject, ext) };
}
