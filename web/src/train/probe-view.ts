// The Train view's probe: one held-out example through a model — its guess for each next
// token, and every head's attention weights, each head named by the pattern it best matches.
import { html, nothing } from 'lit';
import type { Ablation, Probe, ProbeHead } from '../model/training-data.js';
import { weightScale } from '../ui/colors.js';
import { fitColumns, gridWidth } from '../ui/heatmap.js';
import { VAGUE, headLabel as patternLabel, type HeadLabel, type PatternScore } from '../model/head-patterns.js';
import { fixed } from '../model/words.js';

/** Whitespace tokens (character-level text) made visible. */
export const visible = (token: string) => token.replace(/ /g, '␣').replace(/\n/g, '⏎');

/** Switching heads off: which are off now, and what a toggle does (absent: no switches). */
export interface HeadSwitches {
  off: ReadonlySet<string>;
  toggle(head: ProbeHead): void;
}

export const headKey = (h: { layer: number; head: number }) => `${h.layer}.${h.head}`;

/** How a probe is drawn: its heads' switches, the step it shows, and whether every head shows. */
export interface ProbeOptions {
  switches?: HeadSwitches;
  /** The training step of the probe's model: at 0 the heads are untrained (no label says they learned anything). */
  step: number;
  /** Every head, or only the heads that matter (headsThatMatter), the others folded away. */
  all: boolean;
}

export function probeView(probe: Probe, heading: string, options: ProbeOptions) {
  const { switches, step, all } = options;
  const scale = weightScale();
  const labels = probe.tokens.map((label) => ({ label: visible(label), pad: false }));
  const blocked = new Uint8Array(probe.seq * probe.seq); // causal: query i sees keys 0..i
  for (let i = 0; i < probe.seq; i++) for (let j = i + 1; j < probe.seq; j++) blocked[i * probe.seq + j] = 1;
  const named = probe.heads.map((h) => ({ head: h, label: headLabel(probe, h, step) }));
  const kept = all ? null : headsThatMatter(named);
  const shown = named.filter(({ head }) => !kept || kept.has(headKey(head)) || switches?.off.has(headKey(head)));
  return html`<h3>${heading}</h3>
    <div class="probe-tokens" data-testid="probe">${probe.tokens.map((t, i) => {
      const expected = probe.expected[i];
      const cls =
        expected === null
          ? probe.typed !== undefined && i >= probe.typed
            ? 'written'
            : ''
          : expected === probe.predicted[i]
            ? 'right'
            : 'wrong';
      return html`<span class="tok ${cls}" title=${expected === null ? 'not scored' : `should be ${visible(expected)}`}>${visible(t)}
        <small>${
          expected === null && probe.typed === undefined
            ? '·'
            : `${visible(probe.predicted[i])} ${fixed(100 * probe.confidence[i], 0)}%`
        }</small></span>`;
    })}</div>
    <ap-legend .scale=${scale} label="Attention weight:"></ap-legend>
    ${
      shown.length < named.length
        ? html`<p class="folded" data-testid="folded">${shown.length} of ${named.length} heads: the best-named head of the
      first and of the last layer${switches?.off.size ? ', and those switched off' : ''}.</p>`
        : nothing
    }
    <div class="heads" style=${`grid-template-columns:${fitColumns(gridWidth({ rows: probe.seq, cols: probe.seq, rowLabels: labels, colLabels: labels, rowAxis: 'query', colAxis: 'key' }))}`}>${shown.map(
      ({ head: h, label: best }) => {
        const off = switches?.off.has(headKey(h)) ?? false;
        return html`<div class="head ${off ? 'off' : ''}"><ap-heatmap data-layer=${h.layer} data-head=${h.head} data-pattern=${best.name}
        .values=${h.weights} .rows=${probe.seq} .cols=${probe.seq} .rowLabels=${labels} .colLabels=${labels} .blocked=${blocked}
        .scale=${scale} row-axis="query" col-axis="key"
        caption=${`Layer ${h.layer} · head ${h.head}: ${best.name}${step === 0 ? ' (untrained)' : ''} (${fixed(best.score, 2)}${best.rows ? ' on the rows not scored' : ''}) · weights (Sq, Sk) = (${probe.seq}, ${probe.seq})`}
      ></ap-heatmap>${
        switches
          ? html`<button class="head-switch" data-action="head-off" data-layer=${h.layer} data-head=${h.head}
        aria-pressed=${String(off)} @click=${() => switches.toggle(h)}>${
          off ? `Layer ${h.layer}, head ${h.head} is off: switch it on` : `Switch off layer ${h.layer}, head ${h.head}`
        }</button>`
          : nothing
      }</div>`;
      },
    )}</div>`;
}

/**
 * The heads worth showing when the probe is folded: the head with the best score among those a pattern names
 * (else the best-scoring one, broad or unclear) of the first layer and of the last, where the tasks' stories are
 * (positions read in the first layer, content or induction in the last).
 */
export function headsThatMatter(named: readonly { head: ProbeHead; label: PatternScore }[]): Set<string> {
  const layers = named.map((n) => n.head.layer);
  const ends = new Set([Math.min(...layers), Math.max(...layers)]);
  const best = new Map<number, { head: ProbeHead; label: PatternScore }>();
  const rank = (l: PatternScore) => (VAGUE.includes(l.name) ? 0 : 1) * 10 + l.score;
  for (const entry of named) {
    if (!ends.has(entry.head.layer)) continue;
    const current = best.get(entry.head.layer);
    if (!current || rank(entry.label) > rank(current.label)) best.set(entry.head.layer, entry);
  }
  return new Set([...best.values()].map((e) => headKey(e.head)));
}

/**
 * The rows a head is judged on: the probe's scored positions (or, on your own input, those
 * the model wrote from), where the task constrains what the model must attend to.
 */
export function scoredRows(probe: Probe): boolean[] | undefined {
  if (probe.expected.some((e) => e !== null)) return probe.expected.map((e) => e !== null);
  if (probe.typed !== undefined) return probe.tokens.map((_, i) => i >= probe.typed! - 1);
  return undefined;
}

/**
 * A head's best-matching pattern on a probe, with its score. An untrained head (step 0) that is sharp attends where
 * its random weights point: 'unclear', not 'content' (content means it learned to look for a token).
 */
export function headLabel(probe: Probe, head: ProbeHead, step?: number): HeadLabel {
  const best = patternLabel(head.weights, probe.seq, probe.tokens, scoredRows(probe));
  return step === 0 && best.name === 'content' ? { name: 'unclear', score: best.score } : best;
}

/** What switching heads off did, measured on the held-out set at `step`, beside the same run with every head on. */
export function ablationSummary(a: Ablation, step: number) {
  const pct = (x: number) => `${fixed(100 * x, 1)}%`;
  const names = a.heads.map(headKey).join(', ');
  const several = a.heads.length > 1;
  return html`<p class="ablation" data-testid="ablation" data-sequences=${a.ablated.sequenceAccuracy}
    data-baseline=${a.baseline.sequenceAccuracy}>With head${several ? 's' : ''} ${names} off at step ${step}, held-out:
    sequences right ${pct(a.ablated.sequenceAccuracy)} (all heads on: ${pct(a.baseline.sequenceAccuracy)}), tokens right
    ${pct(a.ablated.accuracy)} (${pct(a.baseline.accuracy)}), loss ${fixed(a.ablated.loss, 3)} (${fixed(a.baseline.loss, 3)}).
    The guesses above are the model's with ${several ? 'those heads' : 'that head'} off.</p>`;
}

/** How to read the probes below it. */
export function probeIntro() {
  return html`<p class="task">Under each token of a held-out example: the model's guess for the next one (green: right, red:
    wrong, where scored) and its probability. Each head is named by the pattern it best matches (previous token, self, first
    token, a fixed offset back, induction, reverse diagonal, or broad) with the share of attention that falls where the
    pattern puts it; content when it is sharp but no position pattern explains it; unclear when nothing does (an
    untrained head, say). Type your own input below: the tokens with a dashed border are the ones the model wrote.</p>`;
}
