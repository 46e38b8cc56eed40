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

export function weightScale(): ColorScale {
  const scale = scaleSequential(interpolateViridis).domain([0, 1]);
  return { kind: 'sequential', domain: [0, 1], color: (v) => scale(v), at: (t) => interpolateViridis(t) };
}

/** Symmetric around 0, reaching the largest finite |value|. */
export function scoreScale(values: ArrayLike<number>): ColorScale {
  let extent = 0;
  for (let i = 0; i < values.length; i++) if (Number.isFinite(values[i])) extent = Math.max(extent, Math.abs(values[i]));
  if (extent === 0) extent = 1;
  // PuOr runs orange (low) to purple (high); flip so that high scores are orange-warm.
  const interpolate = (t: number) => interpolatePuOr(1 - t);
  const scale = scaleDiverging(interpolate).domain([-extent, 0, extent]);
  return { kind: 'diverging', domain: [-extent, extent], color: (v) => scale(v), at: interpolate };
}

/** Black or white, whichever reads better on this background colour. */
export function textColorOn(background: string): string {
  const m = /rgb\((\d+), ?(\d+), ?(\d+)\)/.exec(background) ?? /#(..)(..)(..)/.exec(background);
  if (!m) return '#000';
  const [r, g, b] = m.slice(1, 4).map((x) => (x.length === 2 && background.startsWith('#') ? parseInt(x, 16) : Number(x)));
  return 0.299 * r + 0.587 * g + 0.114 * b > 140 ? '#000' : '#fff';
}

export function formatValue(value: number): string {
  if (value === -Infinity) return '−∞';
  if (Number.isNaN(value)) return 'NaN';
  const abs = Math.abs(value);
  if (abs !== 0 && (abs < 0.001 || abs >= 10000)) return value.toExponential(2);
  return value.toFixed(abs >= 100 ? 1 : 3);
}
