// Colour scales for heatmaps, from d3's colour-blind-safe palettes: viridis for
// softmax weights (0..1), purple-orange diverging around 0 for raw scores.
import { scaleDiverging, scaleSequential } from 'd3-scale';
import { interpolatePuOr, interpolateViridis } from 'd3-scale-chromatic';

export interface ColorScale {
  kind: 'sequential' | 'diverging';
  domain: [number, number];
  color(value: number): string;
  /** For the legend: colour at t in [0, 1] along the bar. */
  at(t: number): string;
}

export const BLOCKED_FILL = '#d9d9d9';
/** The Masks view's colour for a cell the mask allows. */
export const ALLOWED_FILL = '#e3f1e5';

/** Weights from 0 (dark) to `top` (yellow; 1 unless a row is fitted to its own largest weight). */
export function weightScale(top = 1): ColorScale {
  const scale = scaleSequential(interpolateViridis).domain([0, top]);
  return { kind: 'sequential', domain: [0, top], color: (v) => scale(v), at: (t) => interpolateViridis(t) };
}

/** Symmetric around 0, reaching the largest finite |value|. */
export function scoreScale(values: ArrayLike<number>): ColorScale {
  let extent = 0;
  for (let i = 0; i < values.length; i++)
    if (Number.isFinite(values[i])) extent = Math.max(extent, Math.abs(values[i]));
  if (extent === 0) extent = 1;
  // d3's PuOr runs from purple (t = 0) to orange (t = 1); flip it so a high score is dark purple and a
  // negative one orange, and the legend bar reads orange (−) … purple (+) from left to right.
  const interpolate = (t: number) => interpolatePuOr(1 - t);
  const scale = scaleDiverging(interpolate).domain([-extent, 0, extent]);
  return { kind: 'diverging', domain: [-extent, extent], color: (v) => scale(v), at: interpolate };
}

/**
 * One scale per row of a (rows, cols) matrix, for the colour scale 'row' (settings/settings.ts): a long text's weights are all near 1/S, which a
 * fixed 0..1 scale draws in one colour. Weights run from 0 to the row's largest weight, so a colour still reads as a
 * share of the row's strongest key; scores run symmetric around 0 to the row's largest finite |score|.
 */
export function rowScales(kind: ColorScale['kind'], values: Float32Array, rows: number, cols: number): ColorScale[] {
  return Array.from({ length: rows }, (_, i) =>
    kind === 'diverging' ? scoreScale(values.subarray(i * cols, (i + 1) * cols)) : weightScale(rowTop(values, i, cols)),
  );
}

/** Row i's largest finite weight in a matrix of `cols` columns: where its 'row' colour scale tops out (1 if none is above 0). */
export function rowTop(values: Float32Array, i: number, cols: number): number {
  let top = 0;
  for (let j = i * cols; j < (i + 1) * cols; j++) if (Number.isFinite(values[j])) top = Math.max(top, values[j]);
  return top > 0 ? top : 1;
}

/** What the ends of the legend's colour bar stand for when each row has its own scale. */
export function rowScaleEnds(kind: ColorScale['kind']): [string, string] {
  return kind === 'diverging'
    ? ['-(the row\u2019s largest |score|)', '+(the row\u2019s largest |score|)']
    : ['0', 'the row\u2019s largest weight'];
}

/**
 * Black or white, whichever has the larger WCAG contrast on this background colour (a mid teal of viridis takes black:
 * white on it is under 4.5 : 1). The cells' colours are the same in both themes, so is the text on them.
 */
export function textColorOn(background: string): string {
  const rgb = opaqueRgb(background);
  if (rgb === null) return '#000';
  const [r, g, b] = [rgb >>> 16, (rgb >>> 8) & 255, rgb & 255];
  const linear = (v: number) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
  const luminance = 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
  // Contrast with black (L + 0.05) / 0.05 against white 1.05 / (L + 0.05): black wins above L ≈ 0.179.
  return (luminance + 0.05) / 0.05 >= 1.05 / (luminance + 0.05) ? '#000' : '#fff';
}

/** Colours parsed so far, as 0xRRGGBB (the scales give a few thousand distinct strings; dropped past RGB_KEPT). */
const parsedRgb = new Map<string, number>();
const RGB_KEPT = 1 << 16;

/** A scale's colour ('rgb(r, g, b)', d3's) or a fill ('#rrggbb') as 0xRRGGBB; null for anything else. */
export function opaqueRgb(color: string | undefined): number | null {
  if (typeof color !== 'string') return null;
  const kept = parsedRgb.get(color);
  if (kept !== undefined) return kept;
  let rgb: number | null = null;
  const m = /^rgb\((\d+), ?(\d+), ?(\d+)\)$/.exec(color);
  if (m) rgb = (Math.min(255, Number(m[1])) << 16) | (Math.min(255, Number(m[2])) << 8) | Math.min(255, Number(m[3]));
  else if (/^#[0-9a-f]{6}$/i.test(color)) rgb = parseInt(color.slice(1), 16);
  if (rgb === null) return null;
  if (parsedRgb.size >= RGB_KEPT) parsedRgb.clear();
  parsedRgb.set(color, rgb);
  return rgb;
}
