// The Train view's controls: its settings, the button bar — run control (Start / Pause / Resume, Step,
// Reset), the weights (save, load, open in the Explore views), the exports of the curves and
// plots — the timeline slider and the box for your own input. What is enabled follows from the runs' state; the actions
// are train-view.ts's.
import { html, nothing } from 'lit';
import { RUN_BUTTON, type Probe } from '../model/training-data.js';
import type { RunInfo } from '../workers/training.js';
import { promptOf } from '../model/probe-input.js';
import { shownValue } from '../settings/settings.js';
import { trainSettingByName, type TrainSetting, type TrainState } from '../settings/train-settings.js';
import { count } from '../model/words.js';
import { renderControl } from '../ui/controls.js';
import { zeroDefaultText } from '../model/zero-defaults.js';

const GROUPS: [TrainSetting['group'], string][] = [
  ['task', 'Task'],
  ['model', 'Model'],
  ['modern', 'Modern block (Llama, Qwen, Gemma)'],
  ['optimizer', 'Optimizer'],
  ['run', 'Run'],
];

/** The settings shown, in their groups' fieldsets, and (once run A has its model) the model's size. */
export function trainSettings(
  shown: TrainSetting[],
  state: TrainState,
  errors: Record<string, string>,
  info: RunInfo | null | undefined,
) {
  return html`${GROUPS.filter(([group]) => shown.some((s) => s.group === group)).map(
    ([group, title]) => html`<fieldset><legend>${title}</legend>
      ${shown
        .filter((s) => s.group === group)
        .map((s) =>
          renderControl(s, state[s.name], errors[s.name], () => {}, {
            defaulted: zeroDefaultText(s.name, state[s.name], state),
          }),
        )}
    </fieldset>`,
  )}
    ${
      info
        ? html`<p class="task">${info.parameters.toLocaleString('en')} parameters · sequences of ${info.seqLen} tokens ·
      vocabulary ${info.vocabulary.length}${heldOutAt(shown, state)}</p>`
        : nothing
    }`;
}

/** With a held-out length of its own: ' · trained at length 3, held out at 6' (length generalisation); else ''. */
function heldOutAt(shown: TrainSetting[], state: TrainState): string {
  const evalLength = state.evalLength as number;
  if (!shown.some((s) => s.name === 'evalLength') || !evalLength || evalLength === state.length) return '';
  return ` · trained at length ${state.length}, held out at ${evalLength}`;
}

/** How the page names a Train setting's value ("Sort" for the task 'sort'). */
export const valueLabel = (state: TrainState, name: string) => shownValue(trainSettingByName(name)!, state[name]);

/** The training settings in a few words, for the drawer's button on a phone: the task, the model's size, the run. */
export function trainSummary(state: TrainState): string {
  const label = (name: string) => valueLabel(state, name);
  const parts = [
    label('task'),
    `${count(state.layers as number, 'layer')} × ${count(state.heads as number, 'head')}`,
    `d_model ${state.dModel}`,
    count(state.steps as number, 'step'),
  ];
  if (state.compare !== 'none') parts.push(`comparing ${label('compare')}`);
  return parts.join(', ');
}

export interface TrainButtons {
  /** The runs' status (train-view.ts #status): 'running', 'done', ... */
  status: string;
  /** Every run has its model and no setting has a problem. */
  ready: boolean;
  /** Run A shows a shipped checkpoint (trained elsewhere). */
  checkpoint: boolean;
  /** Run A's step (0: not started). */
  step: number;
  /** How many runs train side by side (the weights buttons act on run A). */
  runs: number;
  /** Some setting has a problem. */
  errors: boolean;
  /** Offer "Explore this model" (the site's page, where the Explore views are). */
  explore: boolean;
  start(): void;
  pause(): void;
  stepOnce(): void;
  reset(): void;
  save(): void;
  load(event: Event): void;
  openExplore(): void;
  exportCurves(format: 'csv' | 'json'): void;
  exportPlots(format: 'svg' | 'png'): void;
}

export function trainButtons(b: TrainButtons) {
  const running = b.status === 'running';
  const finished = b.status === 'done';
  const idle = !b.ready || running;
  const runA = b.runs > 1 ? ' (A)' : '';
  return html`<div class="buttons">
    ${
      running
        ? html`<button class="primary" data-action="pause" @click=${b.pause}>Pause</button>`
        : html`<button class="primary" data-action="start" ?disabled=${!b.ready || (finished && !b.checkpoint)} @click=${b.start}>${
            b.checkpoint
              ? RUN_BUTTON.train
              : finished
                ? RUN_BUTTON.finished
                : b.step
                  ? RUN_BUTTON.resume
                  : RUN_BUTTON.start
          }</button>`
    }
    <button data-action="step" ?disabled=${idle || finished} @click=${b.stepOnce}>Step</button>
    <button data-action="reset" ?disabled=${b.errors} @click=${b.reset}>Reset</button>
    <button data-action="save" ?disabled=${idle} @click=${b.save}>Save weights${runA}</button>
    <label><button data-action="load" ?disabled=${idle}
      @click=${(e: Event) => (e.currentTarget as HTMLElement).parentElement!.querySelector('input')!.click()}>Load weights${runA}</button>
      <input type="file" accept=".safetensors" hidden @change=${b.load}></label>
    ${
      b.explore
        ? html`<button data-action="explore" ?disabled=${idle} @click=${b.openExplore}
      title="Open every Explore view (heads, lines, masks, shapes, layers × heads, what changed) on run A's model">Explore this model</button>`
        : nothing
    }
    <button data-action="csv" ?disabled=${!b.step} @click=${() => b.exportCurves('csv')}>Curves CSV</button>
    <button data-action="json" ?disabled=${!b.step} @click=${() => b.exportCurves('json')}>Curves JSON</button>
    <button data-action="svg" ?disabled=${!b.step} @click=${() => b.exportPlots('svg')}>Plots SVG</button>
    <button data-action="png" ?disabled=${!b.step} @click=${() => b.exportPlots('png')}>Plots PNG</button>
  </div>`;
}

/** Which of the recorded `steps` the timeline shows: the scrubbed one (the first at or after it), or the latest. */
export function timelineIndex(steps: readonly number[], scrub: number | null): number {
  return scrub === null
    ? steps.length - 1
    : Math.max(
        0,
        steps.findIndex((s) => s >= scrub),
      );
}

/**
 * The timeline: a slider over the steps whose heads were recorded, in any run (not while training). `scrub` is the
 * step shown, null for the latest; moving to the last step gives null again, so the view follows new steps.
 * `ends`: each run's last recorded step (compared runs may stop at different steps; one that stopped earlier shows
 * its last heads, and the label says so).
 */
export function timeline(
  ends: number[],
  steps: number[],
  scrub: number | null,
  onScrub: (step: number | null) => void,
) {
  if (steps.length < 2) return nothing;
  const index = timelineIndex(steps, scrub);
  const earlier = ends.some((end) => end < steps[index]) ? ' (a run that stopped earlier: its last heads)' : '';
  return html`<div class="setting timeline"><label for="timeline">Timeline: the heads at step ${steps[index]}${earlier}</label>
    <input id="timeline" type="range" min="0" max=${steps.length - 1} .value=${String(index)}
      @input=${(e: Event) => {
        e.stopPropagation();
        const i = Number((e.target as HTMLInputElement).value);
        onScrub(i === steps.length - 1 ? null : steps[i]);
      }}>
  </div>`;
}

export interface ProbeBox {
  /** Run A's held-out example: its prompt is the box's starting text. */
  example: Probe | null;
  /** The text task reads characters, not space-separated tokens. */
  characters: boolean;
  /** Run A has its model (Complete can run). */
  ready: boolean;
  /** Your own input shown now, if any. */
  custom: { text: string } | null;
  error: string;
  note: string;
  onSubmit(event: Event): void;
  onBack(): void;
}

/** "Your own input": a prompt the runs' models complete, in place of the held-out example. */
export function probeBox(b: ProbeBox) {
  const placeholder = b.example ? promptOf(b.example.tokens, b.example.expected, b.characters) : '';
  return html`<form class="probe-box" @submit=${b.onSubmit} @input=${(e: Event) => e.stopPropagation()}>
    <label for="probe-input">Your own input (${b.characters ? 'characters' : 'tokens separated by spaces'}); the model writes the rest:</label>
    <input id="probe-input" type="text" spellcheck="false" autocomplete="off" .value=${b.custom?.text ?? placeholder}>
    <button type="submit" data-action="complete" ?disabled=${!b.ready}>Complete</button>
    ${b.custom ? html`<button type="button" data-action="held-out" @click=${b.onBack}>Back to the held-out example</button>` : nothing}
    ${b.error ? html`<p class="error" role="alert">${b.error}</p>` : nothing}
    ${b.custom && b.note ? html`<p class="task" role="status" data-testid="probe-note">${b.note}</p>` : nothing}
  </form>`;
}
