// The "What heads do" view's figures as pictures and files: each tool's figure drawn from its
// result (the same drawing functions as the screen: heatmapPicture, barsPicture,
// textGridPicture), composed with a title and legend (ui/export-figure.ts), and downloaded as
// PNG, SVG or CSV (the numbers, model/heads-figures.ts).
import type { HeadsResult } from '../model/heads-results.js';
import {
  DETECTORS,
  DETECTOR_LABELS,
  attributionBars,
  attributionCsv,
  detectorCsv,
  headsFileName,
  lensCsv,
  logitName,
  patchCsv,
  rankCsv,
} from '../model/heads-figures.js';
import { HEAD_TOOL_LABELS, PATCH_OVER, type HeadRefState } from '../model/heads-state.js';
import { composeFigure, type FigureSpec, type Panel } from '../ui/export-figure.js';
import { exportPng, exportSvg, exportText } from '../ui/export.js';
import { barsPicture, type BarsSpec } from '../ui/bars.js';
import { heatmapPicture, type HeatmapSpec } from '../ui/heatmap.js';
import { textGridPicture, type TextGridSpec } from '../ui/text-grid.js';
import { scoreScale, weightScale } from '../ui/colors.js';
import { fixed } from '../model/words.js';

export type FigureFormat = 'png' | 'svg' | 'csv';

const layerLabels = (n: number) => Array.from({ length: n }, (_, i) => ({ label: `L${i}`, pad: false }));
const headLabels = (n: number) => Array.from({ length: n }, (_, i) => ({ label: `H${i}`, pad: false }));
const positionLabels = (tokens: readonly string[]) => tokens.map((t) => ({ label: t, pad: false }));

/** A detector's (L, H) scores as a heatmap. */
export function detectorHeatmap(result: Extract<HeadsResult, { tool: 'detect' }>, kind: (typeof DETECTORS)[number]) {
  return {
    values: Float32Array.from(result.scores[kind]),
    rows: result.layers,
    cols: result.heads,
    rowLabels: layerLabels(result.layers),
    colLabels: headLabels(result.heads),
    scale: weightScale(1),
    caption: `${DETECTOR_LABELS[kind]} score`,
    rowAxis: 'layer',
    colAxis: 'head',
    colUnit: 'heads',
    showNumbers: true,
  } satisfies HeatmapSpec;
}

/** A patching map, exact or estimated, as a heatmap (diverging around 0; 1 = the whole difference recovered). */
export function patchHeatmap(
  result: Extract<HeadsResult, { tool: 'patch' }>,
  over: (typeof PATCH_OVER)[number],
  method: 'exact' | 'estimate',
) {
  const map = result.maps[over];
  const values = Float32Array.from(method === 'exact' ? map.exact : map.estimate);
  // One scale for both methods of a map, so their colours compare.
  const scale = scoreScale([...map.exact, ...map.estimate, 1]);
  return {
    values,
    rows: result.layers,
    cols: map.cols,
    rowLabels: layerLabels(result.layers),
    colLabels: over === 'resid' ? positionLabels(result.cleanTokens) : headLabels(map.cols),
    scale,
    caption: `${method === 'exact' ? 'Exact' : 'Attribution'} patching of ${over === 'resid' ? 'the residual stream' : 'each head'}`,
    rowAxis: 'layer',
    colAxis: over === 'resid' ? 'position' : 'head',
    colUnit: over === 'resid' ? 'tokens' : 'heads',
    showNumbers: map.cols <= 24,
  } satisfies HeatmapSpec;
}

/** The logit lens as a grid: layers x positions, each cell the top token coloured by its probability. */
export function lensGrid(result: Extract<HeadsResult, { tool: 'lens' }>): TextGridSpec {
  const seq = result.tokens.length;
  const texts: string[] = [],
    values: number[] = [],
    details: string[] = [];
  for (let layer = 0; layer < result.layers; layer++)
    for (let p = 0; p < seq; p++) {
      const at = (layer * seq + p) * result.topK;
      texts.push(result.top[at]);
      values.push(result.probs[at]);
      details.push(
        `layer ${layer}, after \u2018${result.tokens[p]}\u2019: ` +
          Array.from(
            { length: result.topK },
            (_, k) => `\u2018${result.top[at + k]}\u2019 ${fixed(result.probs[at + k], 3)}`,
          ).join(', ') +
          `; the final prediction \u2018${result.prediction[p]}\u2019 ${fixed(result.predictionProbs[layer * seq + p], 3)}`,
      );
    }
  return {
    rows: result.layers,
    cols: seq,
    rowLabels: Array.from({ length: result.layers }, (_, i) => `after L${i}`),
    colLabels: result.tokens,
    texts,
    values,
    details,
    scale: weightScale(1),
    rowAxis: 'layer',
    colAxis: 'position (its input token)',
    caption: 'Logit lens: the top next token after each layer',
  };
}

/** The attribution bars (the chosen head marked). */
export function attributionChart(
  result: Extract<HeadsResult, { tool: 'attribute' }>,
  head: HeadRefState | null,
): BarsSpec {
  return {
    bars: attributionBars(result).map((b) => ({
      label: b.label,
      value: b.value,
      marked: b.part === 'head' && head !== null && b.layer === head.layer && b.head === head.head,
    })),
    valueAxis: `direct contribution to the ${logitName(result.target, result.against)}`,
    caption: 'Direct logit attribution',
  };
}

/** The ranking's most needed parts as bars (at most `limit`). */
export function rankChart(result: Extract<HeadsResult, { tool: 'rank' }>, limit = 16): BarsSpec {
  return {
    bars: result.ranking.slice(0, limit).map((e) => ({
      label: e.part === 'head' ? `L${e.layer}H${e.head}` : `L${e.layer} MLP`,
      value: e.change,
    })),
    valueAxis: `change of the ${logitName(result.target, result.against)} with the part switched off`,
    caption: 'What the prediction depends on',
  };
}

function figure(result: HeadsResult, model: string, text: string, head: HeadRefState | null): FigureSpec {
  const texts = [
    { label: 'Model:', text: model },
    { label: 'Text:', text },
  ];
  const panel = (svg: SVGSVGElement, caption: string): Panel => ({ svg, caption });
  switch (result.tool) {
    case 'detect':
      return {
        heading: `What heads do: detector scores (${result.detector.batch} random sequences of 2 \u00d7 ${result.detector.length} tokens, seed ${result.detector.seed})`,
        texts: [texts[0]],
        legend: { scale: { scale: weightScale(1), label: 'score' } },
        panels: DETECTORS.map((kind) => {
          const spec = detectorHeatmap(result, kind);
          return panel(heatmapPicture(spec), spec.caption);
        }),
      };
    case 'lens': {
      const spec = lensGrid(result);
      return {
        heading: 'What heads do: logit lens',
        texts,
        legend: { scale: { scale: weightScale(1), label: 'probability of the top token' } },
        panels: [panel(textGridPicture(spec), spec.caption)],
      };
    }
    case 'attribute': {
      const spec = attributionChart(result, head);
      return {
        heading: `What heads do: direct logit attribution of the ${logitName(result.target, result.against)}`,
        texts,
        legend: { note: `The parts sum to ${fixed(result.logit, 4)}.` },
        panels: [panel(barsPicture(spec), spec.caption)],
      };
    }
    case 'rank': {
      const spec = rankChart(result);
      return {
        heading: `What heads do: each part switched off alone, by the change of the ${logitName(result.target, result.against)}`,
        texts,
        legend: { note: `Full run: ${fixed(result.logit, 4)}.` },
        panels: [panel(barsPicture(spec), spec.caption)],
      };
    }
    case 'ablate':
      throw new Error('the ablation has no figure of its own (its ranking has)');
    case 'patch': {
      const panels = PATCH_OVER.flatMap((over) =>
        (['exact', 'estimate'] as const).map((method) => {
          const spec = patchHeatmap(result, over, method);
          return panel(heatmapPicture(spec), spec.caption);
        }),
      );
      return {
        heading: `What heads do: activation patching, the share of logit(\u2018${result.good.token}\u2019) - logit(\u2018${result.bad.token}\u2019) recovered`,
        texts: [
          texts[0],
          { label: 'Clean:', text: result.cleanTokens.join(' ') },
          { label: 'Corrupted:', text: result.corruptedTokens.join(' ') },
        ],
        legend: { scale: { scale: patchHeatmap(result, 'heads', 'exact').scale, label: 'share recovered' } },
        panels,
        columns: 2,
      };
    }
  }
}

function csvOf(result: HeadsResult): string {
  switch (result.tool) {
    case 'detect':
      return detectorCsv(result);
    case 'lens':
      return lensCsv(result);
    case 'attribute':
      return attributionCsv(result);
    case 'rank':
      return rankCsv(result);
    case 'patch':
      return patchCsv(result);
    case 'ablate':
      throw new Error('the ablation has no figure of its own (its ranking has)');
  }
}

/** Downloads one figure of a result in a format. */
export async function exportFigure(
  result: HeadsResult,
  format: FigureFormat,
  subject: { model: string; modelLabel: string; text: string; head: HeadRefState | null },
): Promise<void> {
  const name = headsFileName(result.tool, subject.model, format);
  if (format === 'csv') return exportText(csvOf(result), 'text/csv', name);
  const svg = composeFigure(figure(result, subject.modelLabel, subject.text, subject.head));
  if (format === 'svg') exportSvg(svg, name);
  else await exportPng(svg, name);
}

/** The figure's name for its export buttons' labels. */
export const FIGURE_NAMES: Record<HeadsResult['tool'], string> = {
  ...HEAD_TOOL_LABELS,
  detect: 'detector scores',
  rank: 'ranking',
};
