// The "What heads do" view's figures as data (no DOM): the detector grid's rows and their
// order, the attribution bars, the ablation's change, the agreement of exact and attribution
// patching, and every figure's CSV (the numbers behind the picture, one row per cell).
// Shapes: L layers, H heads, S positions.
import type { HeadScoreKind } from 'attention-playground';
import type {
  AblateResult,
  AttributeResult,
  DetectResult,
  LensResult,
  PatchResult,
  RankResult,
} from './heads-results.js';
import { PATCH_OVER, type DetectSort } from './heads-state.js';

export const DETECTORS: readonly HeadScoreKind[] = ['previous', 'duplicate', 'induction'];

/** The detectors' column titles. */
export const DETECTOR_LABELS: Record<HeadScoreKind, string> = {
  previous: 'previous token',
  duplicate: 'duplicate token',
  induction: 'induction',
};

export interface DetectorRow {
  layer: number;
  head: number;
  scores: Record<HeadScoreKind, number>;
  label: string;
  labelScore: number;
}

/** One row per head, in layer, head order, or by a detector's score (highest first; ties in layer, head order). */
export function detectorRows(result: DetectResult, sort: DetectSort): DetectorRow[] {
  const rows: DetectorRow[] = [];
  for (let layer = 0; layer < result.layers; layer++)
    for (let head = 0; head < result.heads; head++) {
      const i = layer * result.heads + head;
      rows.push({
        layer,
        head,
        scores: {
          previous: result.scores.previous[i],
          duplicate: result.scores.duplicate[i],
          induction: result.scores.induction[i],
        },
        label: result.labels[i].name,
        labelScore: result.labels[i].score,
      });
    }
  if (sort !== 'layer') rows.sort((a, b) => b.scores[sort] - a.scores[sort] || a.layer - b.layer || a.head - b.head);
  return rows;
}

/** The head with the highest score of a detector. */
export function bestHead(result: DetectResult, kind: HeadScoreKind): { layer: number; head: number; score: number } {
  const scores = result.scores[kind];
  let best = 0;
  for (let i = 1; i < scores.length; i++) if (scores[i] > scores[best]) best = i;
  return { layer: Math.floor(best / result.heads), head: best % result.heads, score: scores[best] };
}

export interface Bar {
  /** 'embed', 'L0H1', 'L0 MLP', 'biases'. */
  label: string;
  value: number;
  part: 'embed' | 'head' | 'mlp' | 'biases';
  layer: number;
  head: number;
}

/** The attribution's parts in the order of the residual stream: the embedding, then each layer's heads and MLP, then the biases. */
export function attributionBars(result: AttributeResult): Bar[] {
  const bars: Bar[] = [{ label: 'embed', value: result.embed, part: 'embed', layer: -1, head: -1 }];
  for (let layer = 0; layer < result.layers; layer++) {
    for (let head = 0; head < result.heads; head++)
      bars.push({
        label: `L${layer}H${head}`,
        value: result.headParts[layer * result.heads + head],
        part: 'head',
        layer,
        head,
      });
    bars.push({ label: `L${layer} MLP`, value: result.mlpParts[layer], part: 'mlp', layer, head: -1 });
  }
  bars.push({ label: 'biases', value: result.biases, part: 'biases', layer: -1, head: -1 });
  return bars;
}

/**
 * What the logit explained is, for people: "logit of ‘6’" or "logit(‘Mary’) - logit(‘John’)". The minus is the
 * hyphen-minus, as in the numbers beside it (formatValue's -5.474): the view writes one minus sign.
 */
export function logitName(target: { token: string }, against: { token: string } | null): string {
  return against
    ? `logit(\u2018${target.token}\u2019) - logit(\u2018${against.token}\u2019)`
    : `logit of \u2018${target.token}\u2019`;
}

/** The ablation's effect in numbers: the target's probability and logit (difference) before and after, and the change. */
export function ablationChange(result: AblateResult): {
  probability: [number, number];
  logit: [number, number];
  logitChange: number;
  topChanged: boolean;
} {
  return {
    probability: [result.before.probability, result.after.probability],
    logit: [result.before.logit, result.after.logit],
    logitChange: result.after.logit - result.before.logit,
    topChanged: result.before.top[0]?.id !== result.after.top[0]?.id,
  };
}

export interface Agreement {
  /** Pearson correlation of the two maps' cells (NaN when either map is constant). */
  correlation: number;
  /** Share of the cells where both have the same sign (cells where both are near 0 count as agreeing). */
  sameSign: number;
  /** The largest |exact − estimate|. */
  largestGap: number;
  /** Of the exact map's `top` largest |cells|, how many are also among the estimate's. */
  topShared: number;
  top: number;
}

/** How well attribution patching's estimate agrees with exact patching, cell by cell (the same (L, cols) maps). */
export function patchAgreement(exact: ArrayLike<number>, estimate: ArrayLike<number>, top = 5): Agreement {
  const n = Math.min(exact.length, estimate.length);
  let mx = 0,
    my = 0;
  for (let i = 0; i < n; i++) {
    mx += exact[i];
    my += estimate[i];
  }
  mx /= n || 1;
  my /= n || 1;
  let sxy = 0,
    sxx = 0,
    syy = 0,
    same = 0,
    gap = 0;
  const NEAR = 1e-3;
  for (let i = 0; i < n; i++) {
    const x = exact[i] - mx,
      y = estimate[i] - my;
    sxy += x * y;
    sxx += x * x;
    syy += y * y;
    const a = exact[i],
      b = estimate[i];
    if ((Math.abs(a) < NEAR && Math.abs(b) < NEAR) || Math.sign(a) === Math.sign(b)) same++;
    gap = Math.max(gap, Math.abs(a - b));
  }
  const k = Math.min(top, n);
  const largest = (v: ArrayLike<number>) =>
    new Set(
      Array.from({ length: n }, (_, i) => i)
        .sort((i, j) => Math.abs(v[j]) - Math.abs(v[i]) || i - j)
        .slice(0, k),
    );
  const a = largest(exact),
    b = largest(estimate);
  return {
    correlation: sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : NaN,
    sameSign: n ? same / n : NaN,
    largestGap: gap,
    topShared: [...a].filter((i) => b.has(i)).length,
    top: k,
  };
}

// ---- CSV: one header row, then one row per cell; text fields quoted. ----

/** A CSV field: numbers as they are (full precision), text quoted with its quotes doubled. */
function field(value: string | number): string {
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : '';
  return `"${value.replace(/"/g, '""')}"`;
}

function csv(header: string[], rows: (string | number)[][]): string {
  return [header.map(field), ...rows.map((r) => r.map(field))].map((r) => r.join(',')).join('\n') + '\n';
}

export function detectorCsv(result: DetectResult): string {
  return csv(
    ['layer', 'head', ...DETECTORS.map((k) => `${k}_score`), 'pattern_label', 'pattern_score'],
    detectorRows(result, 'layer').map((r) => [
      r.layer,
      r.head,
      ...DETECTORS.map((k) => r.scores[k]),
      r.label,
      r.labelScore,
    ]),
  );
}

export function rankCsv(result: RankResult): string {
  return csv(
    ['rank', 'part', 'layer', 'head', 'logit_change'],
    result.ranking.map((e, i) => [i + 1, e.part, e.layer, e.part === 'head' ? e.head : '', e.change]),
  );
}

export function lensCsv(result: LensResult): string {
  const seq = result.tokens.length;
  const rows: (string | number)[][] = [];
  for (let layer = 0; layer < result.layers; layer++)
    for (let position = 0; position < seq; position++)
      for (let k = 0; k < result.topK; k++) {
        const i = (layer * seq + position) * result.topK + k;
        rows.push([
          layer,
          position,
          result.tokens[position],
          k + 1,
          result.top[i],
          result.probs[i],
          result.prediction[position],
          result.predictionProbs[layer * seq + position],
        ]);
      }
  return csv(
    [
      'layer',
      'position',
      'input_token',
      'rank',
      'token',
      'probability',
      'final_prediction',
      'final_prediction_probability',
    ],
    rows,
  );
}

export function attributionCsv(result: AttributeResult): string {
  return csv(
    ['part', 'layer', 'head', 'contribution', 'token', 'against'],
    attributionBars(result).map((b) => [
      b.part,
      b.layer >= 0 ? b.layer : '',
      b.head >= 0 ? b.head : '',
      b.value,
      result.target.token,
      result.against?.token ?? '',
    ]),
  );
}

/** Both patching maps, one row per cell: which map, layer, column, the exact share recovered and the estimate. */
export function patchCsv(result: PatchResult): string {
  const rows: (string | number)[][] = [];
  for (const over of PATCH_OVER) {
    const map = result.maps[over];
    for (let layer = 0; layer < result.layers; layer++)
      for (let c = 0; c < map.cols; c++) {
        const i = layer * map.cols + c;
        rows.push([
          over,
          layer,
          over === 'resid' ? c : '',
          over === 'resid' ? result.cleanTokens[c] : '',
          over === 'heads' ? c : '',
          map.exact[i],
          map.estimate[i],
        ]);
      }
  }
  return csv(['patched', 'layer', 'position', 'clean_token', 'head', 'exact_recovered', 'attribution_estimate'], rows);
}

/** A figure's file name: the tool, the model, the extension ('heads-lens-induction.svg'). */
export function headsFileName(tool: string, model: string, ext: 'svg' | 'png' | 'csv'): string {
  const safe = (model || 'model').replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^-+|-+$/g, '') || 'model';
  return `heads-${tool}-${safe}.${ext}`;
}
