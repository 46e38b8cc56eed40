// <ap-curves>: lines over training steps in one SVG plot with axes, tick labels, an
// optional log scale, a legend, and the values at the hovered step (pointer or arrow
// keys). Data in (properties); no global state. The plot itself is drawn from a
// CurvesSpec by curvesSvg(), so an export draws the same picture from the same data
// (curvesPicture) instead of copying it off the screen.
import { LitElement, css, html, nothing, render, svg } from 'lit';
import { scaleLinear, scaleLog } from 'd3-scale';
import { PICTURE_INK } from './tokens.js';
import { defineOnce } from './define.js';
import { fixed } from '../model/words.js';

export interface Series {
  label: string;
  color: string;
  points: readonly { x: number; y: number }[];
  /** How the line is drawn: compared runs after the first are dashed, then dotted. */
  dash?: Dash;
}

export type Dash = 'solid' | 'dashed' | 'dotted' | 'dashdot' | 'long';

/** What one plot shows: its lines, its axes' titles, the y scale (log or linear, fixed or fitted) and the x range. */
export interface CurvesSpec {
  series: readonly Series[];
  log: boolean;
  yLabel: string;
  xLabel: string;
  /** Fixed y range, e.g. [0, 1] for accuracies; default: fitted to the data. */
  yDomain?: [number, number];
  /** Largest x to show (e.g. the run's steps), so the plot does not rescale as it grows. */
  xMax: number;
  /** A step marked by a solid line (the step whose heads the Train view's timeline shows); none when absent or null. */
  cursor?: number | null;
}

/** The plot's handlers for the hovered step (the element's; an exported picture has none). */
interface Hover {
  x: number | null;
  onPointer(event: PointerEvent): void;
  onLeave(): void;
  onKey(event: KeyboardEvent): void;
}
const DASH_ARRAY: Record<Dash, string> = {
  solid: 'none',
  dashed: '5 3',
  dotted: '1.5 2.5',
  dashdot: '6 2.5 1.5 2.5',
  long: '11 4',
};

/** A series' SVG stroke-dasharray (also for legends drawn elsewhere, such as an exported figure's). */
export const dashArray = (dash: Dash = 'solid') => DASH_ARRAY[dash];

const W = 560;
const H = 230;
const M = { left: 62, right: 12, top: 12, bottom: 34 }; // left: the axis title and a tick label such as 0.0600
/** Lines keep at most this many vertices (long runs are thinned evenly; hover still reads every point). */
const MAX_VERTICES = 600;

function nearest(points: readonly { x: number; y: number }[], x: number): { x: number; y: number } | null {
  if (points.length === 0) return null;
  let lo = 0,
    hi = points.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid].x < x) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && Math.abs(points[lo - 1].x - x) <= Math.abs(points[lo].x - x)) lo -= 1;
  return points[lo];
}

function thin(points: readonly { x: number; y: number }[]) {
  if (points.length <= MAX_VERTICES) return points;
  const every = Math.ceil(points.length / MAX_VERTICES);
  return points.filter((_, i) => i % every === 0 || i === points.length - 1);
}

const format = (v: number) =>
  Math.abs(v) >= 100 || v === 0 ? fixed(v, 0) : Math.abs(v) >= 0.01 ? v.toPrecision(3) : v.toExponential(1);

/**
 * One format for a whole axis (not "8.00 / 0.900 / 1.0e-3"): plain decimals with as many places as the
 * smallest tick needs and no trailing zeros (8, 0.9, 0.001), or, for ticks below 0.0001, all in e-notation.
 */
export function tickFormat(ticks: readonly number[]): (v: number) => string {
  const nonzero = ticks.filter((t) => t !== 0).map(Math.abs);
  const smallest = nonzero.length ? Math.min(...nonzero) : 1;
  if (smallest < 1e-4) return (v) => (v === 0 ? '0' : v.toExponential(0).replace('e+', 'e'));
  // Enough places for the smallest tick's two significant digits (a log axis's 0.02, a linear one's 0.25).
  const places = Math.min(6, Math.max(0, 1 - Math.floor(Math.log10(smallest))));
  return (v) => String(Number(fixed(v, places)));
}

/** At most this many labelled ticks on a log axis: more and the labels crowd the plot's 200-odd pixels. */
const MAX_LOG_TICKS = 7;

/**
 * A log axis's ticks over [lo, hi]: 1, 2 and 5 times each power of ten when they fit (0.1, 0.2, 0.5, 1), else the
 * powers of ten, every second or third one when there are many (1e-6, 0.001, 1). Never d3's 1-9 run thinned to
 * "8, 3, 0.7, 0.2", whose steps a reader cannot follow.
 */
export function logTicks(lo: number, hi: number): number[] {
  if (!(lo > 0) || !(hi >= lo) || !Number.isFinite(hi)) return [];
  const first = Math.floor(Math.log10(lo) + 1e-9);
  const last = Math.ceil(Math.log10(hi) - 1e-9);
  // Ticks are built from exact decimal strings so 0.2 is 0.2, not 0.20000000000000004.
  const at = (m: number, e: number) => Number(`${m}e${e}`);
  const within = (v: number) => v >= lo * (1 - 1e-9) && v <= hi * (1 + 1e-9);
  const oneTwoFive: number[] = [];
  for (let e = first; e <= last; e++) for (const m of [1, 2, 5]) if (within(at(m, e))) oneTwoFive.push(at(m, e));
  if (oneTwoFive.length <= MAX_LOG_TICKS && oneTwoFive.length >= 3) return oneTwoFive;
  const decades: number[] = [];
  for (let e = first; e <= last; e++) if (within(at(1, e))) decades.push(at(1, e));
  const every = Math.ceil(decades.length / MAX_LOG_TICKS);
  return decades.filter((_, i) => i % every === 0);
}

function scales(spec: CurvesSpec) {
  const all = spec.series.flatMap((s) => s.points);
  const xs = all.map((p) => p.x);
  const x = scaleLinear()
    .domain([0, Math.max(spec.xMax, ...xs, 1)])
    .range([M.left, W - M.right]);
  let y;
  if (spec.log) {
    const ys = all.map((p) => p.y).filter((v) => v > 0 && Number.isFinite(v));
    const lo = ys.length ? Math.min(...ys) : 0.01,
      hi = ys.length ? Math.max(...ys) : 1;
    y = scaleLog()
      .domain([lo, Math.max(hi, lo * 10)])
      .nice()
      .range([H - M.bottom, M.top]);
  } else {
    const ys = all.map((p) => p.y).filter(Number.isFinite);
    y = scaleLinear()
      .domain(spec.yDomain ?? [Math.min(0, ...ys), Math.max(...ys, 1e-6)])
      .nice()
      .range([H - M.bottom, M.top]);
  }
  return { x, y };
}

/** The plot as an SVG template: with `hover`, the element's (the hovered step marked, its handlers bound), else a picture's. */
export function curvesSvg(spec: CurvesSpec, hover: Hover | null = null) {
  const cursor = spec.cursor ?? null;
  const { x, y } = scales(spec);
  const clampY = (v: number) => Math.min(H - M.bottom, Math.max(M.top, y(v)));
  const [yLo, yHi] = y.domain() as [number, number];
  const yTicks = spec.log ? logTicks(Math.min(yLo, yHi), Math.max(yLo, yHi)) : y.ticks(5);
  const tick = tickFormat(yTicks);
  const hoverX = hover?.x ?? null;
  const hovered = hoverX === null ? [] : spec.series.map((s) => ({ s, p: nearest(s.points, hoverX) }));
  return html`<svg viewBox="0 0 ${W} ${H}" role="img" tabindex="0"
      aria-label=${`${spec.yLabel} by ${spec.xLabel}: ${spec.series.map((s) => s.label).join(', ')}`}
      @pointermove=${hover?.onPointer} @pointerleave=${hover?.onLeave} @keydown=${hover?.onKey}>
    <rect x=${M.left} y=${M.top} width=${W - M.left - M.right} height=${H - M.top - M.bottom} fill="#fff" stroke="#ccc" class="pic-paper pic-frame"></rect>
    ${yTicks.map(
      (t) => svg`<line x1=${M.left} x2=${W - M.right} y1=${y(t)} y2=${y(t)} stroke="#eee" class="pic-grid"></line>
      <text x=${M.left - 5} y=${y(t) + 4} text-anchor="end" font-size="11">${tick(t)}</text>`,
    )}
    ${x.ticks(6).map((t) => svg`<text x=${x(t)} y=${H - M.bottom + 15} text-anchor="middle" font-size="11">${t}</text>`)}
    <text x=${(M.left + W - M.right) / 2} y=${H - 4} text-anchor="middle" font-size="11">${spec.xLabel}</text>
    <text transform="translate(12 ${(M.top + H - M.bottom) / 2}) rotate(-90)" text-anchor="middle" font-size="11">${spec.yLabel}${spec.log ? ' (log scale)' : ''}</text>
    ${spec.series.map((s) => {
      const pts = thin(s.points).filter((p) => Number.isFinite(p.y) && (!spec.log || p.y > 0));
      if (pts.length === 0) return nothing;
      const d = pts.map((p, i) => `${i ? 'L' : 'M'}${fixed(x(p.x), 1)},${fixed(clampY(p.y), 1)}`).join('');
      return svg`<path d=${d} fill="none" stroke=${s.color} stroke-width="1.6" stroke-dasharray=${DASH_ARRAY[s.dash ?? 'solid']}
        data-series=${s.label} data-points=${s.points.length}></path>`;
    })}
    ${
      cursor !== null && Number.isFinite(cursor)
        ? svg`<line class="cursor pic-stroke-ink" data-step=${cursor} x1=${x(cursor)} x2=${x(cursor)} y1=${M.top} y2=${H - M.bottom}
      stroke="#111" stroke-width="1.5"></line>`
        : nothing
    }
    ${
      hoverX !== null
        ? svg`<line x1=${x(hoverX)} x2=${x(hoverX)} y1=${M.top} y2=${H - M.bottom} stroke="#888"
      stroke-dasharray="2 2"></line>
      ${hovered.map(({ s, p }) =>
        p && Number.isFinite(p.y) && (!spec.log || p.y > 0)
          ? svg`<circle cx=${x(p.x)} cy=${clampY(p.y)} r="3" fill=${s.color}></circle>`
          : nothing,
      )}`
        : nothing
    }
  </svg>`;
}

/** The plot as a standalone SVG element (not on the page), drawn from `spec` as <ap-curves> draws it, for exports. */
export function curvesPicture(spec: CurvesSpec): SVGSVGElement {
  const box = document.createElement('div');
  render(curvesSvg(spec), box);
  return box.querySelector('svg')!;
}

export class Curves extends LitElement {
  static override properties = {
    series: { attribute: false },
    log: { type: Boolean },
    yLabel: { type: String, attribute: 'y-label' },
    xLabel: { type: String, attribute: 'x-label' },
    /** Fixed y range, e.g. [0, 1] for accuracies; default: fitted to the data. */
    yDomain: { attribute: false },
    /** Largest x to show (e.g. the run's steps), so the plot does not rescale as it grows. */
    xMax: { type: Number, attribute: 'x-max' },
    /** A step marked by a solid line (the step the Train view's timeline shows), or null. */
    cursor: { attribute: false },
    hoverX: { state: true },
  };
  declare series: Series[];
  declare log: boolean;
  declare yLabel: string;
  declare xLabel: string;
  declare yDomain: [number, number] | undefined;
  declare xMax: number;
  declare cursor: number | null;
  declare hoverX: number | null;

  constructor() {
    super();
    this.series = [];
    this.log = false;
    this.yLabel = '';
    this.xLabel = 'step';
    this.xMax = 0;
    this.cursor = null;
    this.hoverX = null;
  }

  static override styles = [
    PICTURE_INK,
    css`
    :host { display: block; font: 0.75rem system-ui, sans-serif; }
    svg { width: 100%; height: auto; display: block; touch-action: pan-y; }
    /* The ticks and axis names (drawn without a fill: black in an export) take the theme's text on screen. */
    svg > text { fill: var(--ap-text); }
    svg:focus-visible { outline: 3px solid var(--ap-focus); }
    .legend { display: flex; flex-wrap: wrap; gap: 0.2rem 0.9rem; margin: 0.2rem 0 0 ${M.left}px; }
    .legend span::before { content: ''; display: inline-block; width: 1.2rem; height: 0; border-top: 2px solid var(--c);
      vertical-align: middle; margin-right: 0.3rem; }
    .legend span.dashed::before { border-top-style: dashed; }
    .legend span.dotted::before { border-top-style: dotted; }
    .readout { min-height: 1.1rem; margin-left: ${M.left}px; color: var(--ap-text); }
  `,
  ];

  #spec(): CurvesSpec {
    return {
      series: this.series,
      log: this.log,
      yLabel: this.yLabel,
      xLabel: this.xLabel,
      yDomain: this.yDomain,
      xMax: this.xMax,
      cursor: this.cursor,
    };
  }

  #onPointer = (event: PointerEvent) => {
    const svgEl = event.currentTarget as SVGSVGElement;
    const box = svgEl.getBoundingClientRect();
    const { x } = scales(this.#spec());
    this.hoverX = Math.round(x.invert(((event.clientX - box.left) / box.width) * W));
  };

  #onLeave = () => {
    this.hoverX = null;
  };

  #onKey = (event: KeyboardEvent) => {
    const steps = this.series.flatMap((s) => s.points.map((p) => p.x));
    if (steps.length === 0) return;
    const max = Math.max(...steps);
    const stepBy = Math.max(1, Math.round(max / 50));
    if (event.key === 'ArrowRight') this.hoverX = Math.min(max, (this.hoverX ?? 0) + stepBy);
    else if (event.key === 'ArrowLeft') this.hoverX = Math.max(0, (this.hoverX ?? max) - stepBy);
    else return;
    event.preventDefault();
  };

  override render() {
    const hovered = this.hoverX === null ? [] : this.series.map((s) => ({ s, p: nearest(s.points, this.hoverX!) }));
    const hover = { x: this.hoverX, onPointer: this.#onPointer, onLeave: this.#onLeave, onKey: this.#onKey };
    return html`${curvesSvg(this.#spec(), hover)}
    <div class="legend">${this.series.map((s) => html`<span class=${s.dash ?? 'solid'} style="--c: ${s.color}">${s.label}</span>`)}</div>
    <div class="readout" aria-live="polite">${
      hovered.length
        ? hovered
            .filter(({ p }) => p)
            .map(({ s, p }) => `${s.label} at step ${p!.x}: ${format(p!.y)}`)
            .join(' · ')
        : ''
    }</div>`;
  }
}

defineOnce('ap-curves', Curves);

declare global {
  interface HTMLElementTagNameMap {
    'ap-curves': Curves;
  }
}
