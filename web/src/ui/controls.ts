// A setting's control, drawn from its description (model/setting.ts): a checkbox, a number
// box (with a slider beside it where the value is continuous: see sliderRange), a menu or a
// text box, with its label, help and problem; the look they share (CONTROL_STYLES, on the
// design tokens of ui/tokens.ts); and the { name, raw } a control's input event carries. The settings
// tables are the features' (<ap-controls>: playground/model-controls.ts; the Train view's
// fieldsets: train/train-controls.ts).
import { css, html, nothing } from 'lit';
import type { Setting } from '../model/setting.js';
import { TOKENS } from './tokens.js';

export function settingInput(event: Event): { name: string; raw: string } {
  const target = event.target as HTMLInputElement;
  return { name: target.name, raw: target.type === 'checkbox' ? (target.checked ? '1' : '0') : target.value };
}

/** Few enough whole steps that a slider can land on each (a head, a layer, a percentage), not an id such as a seed. */
const SLIDER_STEPS = 256;

/**
 * The slider beside a number box, from the setting's declared range: whole numbers whose range has at most
 * SLIDER_STEPS steps, and real numbers in a closed range no wider than 1 (a decay rate); null for the rest (a seed,
 * d_model up to 1024, a learning rate over decades: the box alone).
 */
export function sliderRange(
  setting: Setting,
  max = 'max' in setting ? setting.max : 0,
): { min: number; max: number; step: number } | null {
  if (setting.type === 'int' && max - setting.min >= 1 && max - setting.min <= SLIDER_STEPS)
    return { min: setting.min, max, step: 1 };
  if (setting.type === 'number' && !setting.minExclusive && max - setting.min > 0 && max - setting.min <= 1)
    return { min: setting.min, max, step: (max - setting.min) / 1000 };
  return null;
}

export function renderControl(
  setting: Setting,
  value: unknown,
  error: string | undefined,
  onInput: (e: Event) => void,
  /** max: a tighter maximum than the setting's; defaulted: what a 0 that stands for something else means ('default (4)'). */
  options: { max?: number; defaulted?: string | null } = {},
) {
  const id = `setting-${setting.name}`;
  const describedBy = error ? `${id}-error` : nothing;
  let control;
  const numberBox = (inputmode: string, step: string, min: number, max: number) => {
    const slider = sliderRange(setting, max);
    const box = html`<input id=${id} name=${setting.name} type="number" inputmode=${inputmode} step=${step} min=${min}
        max=${max} .value=${String(value)} aria-invalid=${error ? 'true' : 'false'}
        aria-describedby=${describedBy} @input=${onInput}>`;
    if (!slider) return box;
    // The slider and the box are one setting: either sends the same { name, raw }; the box shows a typed draft.
    return html`<span class="slider-pair"><input id=${`${id}-slider`} class="slider" name=${setting.name} type="range"
      min=${slider.min} max=${slider.max} step=${slider.step} .value=${String(value)} aria-label=${`${setting.label} (slider)`}
      @input=${onInput}>${box}</span>`;
  };
  switch (setting.type) {
    case 'bool':
      control = html`<input id=${id} name=${setting.name} type="checkbox" .checked=${Boolean(value)} @change=${onInput}>`;
      break;
    case 'int':
      control = numberBox('numeric', '1', setting.min, options.max ?? setting.max);
      break;
    case 'number':
      control = numberBox('decimal', 'any', setting.min, setting.max);
      break;
    case 'choice':
      control = html`<select id=${id} name=${setting.name} @change=${onInput} aria-describedby=${describedBy}>
        ${setting.choices.map((c) => html`<option value=${c} ?selected=${c === value}>${setting.labels?.[c] ?? c}</option>`)}
      </select>`;
      break;
    case 'text':
      control = html`<textarea id=${id} name=${setting.name} rows="3" spellcheck="false" maxlength=${setting.maxLength}
        .value=${String(value)} aria-describedby=${describedBy} @input=${onInput}></textarea>`;
      break;
  }
  return html`<div class="setting ${setting.type}" data-setting=${setting.name}>
    <label for=${id}>${setting.label}</label>${control}
    ${options.defaulted ? html`<output class="defaulted" for=${id} data-testid="defaulted">= ${options.defaulted}</output>` : nothing}
    ${setting.help ? html`<small>${setting.help}</small>` : nothing}
    ${error ? html`<p class="error" id=${`${id}-error`} role="alert">${error}</p>` : nothing}
  </div>`;
}

/** The look of a number box, a text box, a menu and a text area: CONTROL_STYLES's, and any panel's with its own layout. */
export const FIELD_STYLES = css`
  input[type='number'], input[type='text'], select, textarea {
    font: var(--ap-text-md)/1.3 var(--ap-font); color: var(--ap-text); background: var(--ap-bg);
    border: 1px solid var(--ap-border-strong); border-radius: var(--ap-radius); max-width: 100%; box-sizing: border-box;
  }
  input[type='number'], select { min-height: var(--ap-control-height); padding: 0.2rem 0.45rem; }
  input[type='number'] { width: 7.5rem; font-variant-numeric: tabular-nums; }
  select { padding-right: 1.8rem; appearance: none; cursor: pointer;
    background-image: linear-gradient(45deg, transparent 50%, currentColor 50%), linear-gradient(135deg, currentColor 50%, transparent 50%);
    background-position: right 0.85rem center, right 0.55rem center; background-size: 0.3rem 0.3rem; background-repeat: no-repeat; }
  textarea { width: 100%; resize: vertical; padding: 0.4rem 0.55rem; }
  input:hover, select:hover, textarea:hover { border-color: var(--ap-accent); }
  input:focus-visible, select:focus-visible, textarea:focus-visible { outline: 3px solid var(--ap-focus); outline-offset: 1px; }
`;

/** The controls' look, with the design tokens it is made of (an element that adopts it has them on its :host). */
export const CONTROL_STYLES = css`
  ${TOKENS}
  .setting { display: flex; flex-direction: column; gap: 0.2rem; margin-bottom: var(--ap-space-3); }
  /* A switch: the box and its label on one line, the help and any error below. */
  .setting.bool { flex-direction: row; flex-wrap: wrap; align-items: center; gap: 0.15rem var(--ap-space-2); }
  .setting.bool input { order: -1; }
  .setting.bool small, .setting.bool .error { flex-basis: 100%; }
  label { font-weight: 600; font-size: var(--ap-text-sm); color: var(--ap-text); }
  small { color: var(--ap-text-muted); font-size: var(--ap-text-xs); line-height: 1.35; }
  .defaulted { font-size: var(--ap-text-xs); color: var(--ap-text); }
  ${FIELD_STYLES}
  input[aria-invalid='true'] { border-color: var(--ap-danger); }
  input[type='checkbox'] { width: 1.1rem; height: 1.1rem; margin: 0; accent-color: var(--ap-accent); cursor: pointer; }
  .slider-pair { display: flex; align-items: center; gap: var(--ap-space-2); max-width: 100%; }
  .slider-pair input[type='number'] { width: 4.5rem; flex: 0 0 auto; }
  input[type='range'] { flex: 1 1 6rem; min-width: 4rem; margin: 0; accent-color: var(--ap-accent); cursor: pointer; }
  input[type='range']:focus-visible { outline: 3px solid var(--ap-focus); outline-offset: 2px; }
  button { font: 600 var(--ap-text-sm)/1.2 var(--ap-font); color: var(--ap-text); background: var(--ap-surface);
    border: 1px solid var(--ap-border-strong); border-radius: var(--ap-radius); padding: 0.35rem 0.7rem; cursor: pointer;
    min-height: var(--ap-control-height); }
  button:hover:not(:disabled) { border-color: var(--ap-accent); background: var(--ap-accent-soft); }
  button:focus-visible { outline: 3px solid var(--ap-focus); outline-offset: 2px; }
  button:disabled { opacity: 0.55; cursor: default; }
  .error { color: var(--ap-danger); font-size: var(--ap-text-sm); margin: 0.1rem 0 0; }
`;
