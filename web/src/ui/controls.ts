// A setting's control, drawn from its description (model/setting.ts): a checkbox, a number
// box, a menu or a text box, with its label, help and problem; the look they share
// (CONTROL_STYLES); and the { name, raw } a control's input event carries. The settings
// tables are the features' (<ap-controls>: playground/model-controls.ts; the Train view's
// fieldsets: train/train-controls.ts).
import { css, html, nothing } from 'lit';
import type { Setting } from '../model/setting.js';

export function settingInput(event: Event): { name: string; raw: string } {
  const target = event.target as HTMLInputElement;
  return { name: target.name, raw: target.type === 'checkbox' ? (target.checked ? '1' : '0') : target.value };
}

export function renderControl(
  setting: Setting,
  value: unknown,
  error: string | undefined,
  onInput: (e: Event) => void,
  options: { max?: number } = {},
) {
  const id = `setting-${setting.name}`;
  const describedBy = error ? `${id}-error` : nothing;
  let control;
  switch (setting.type) {
    case 'bool':
      control = html`<input id=${id} name=${setting.name} type="checkbox" .checked=${Boolean(value)} @change=${onInput}>`;
      break;
    case 'int':
      control = html`<input id=${id} name=${setting.name} type="number" inputmode="numeric" step="1" min=${setting.min}
        max=${options.max ?? setting.max} .value=${String(value)} aria-invalid=${error ? 'true' : 'false'}
        aria-describedby=${describedBy} @input=${onInput}>`;
      break;
    case 'number':
      control = html`<input id=${id} name=${setting.name} type="number" inputmode="decimal" step="any" min=${setting.min}
        max=${setting.max} .value=${String(value)} aria-invalid=${error ? 'true' : 'false'}
        aria-describedby=${describedBy} @input=${onInput}>`;
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
    ${setting.help ? html`<small>${setting.help}</small>` : nothing}
    ${error ? html`<p class="error" id=${`${id}-error`} role="alert">${error}</p>` : nothing}
  </div>`;
}

export const CONTROL_STYLES = css`
  .setting { display: flex; flex-direction: column; gap: 0.15rem; margin-bottom: 0.6rem; }
  /* A switch: the box and its label on one line, the help and any error below. */
  .setting.bool { flex-direction: row; flex-wrap: wrap; align-items: center; gap: 0.15rem 0.4rem; }
  .setting.bool input { order: -1; }
  .setting.bool small, .setting.bool .error { flex-basis: 100%; }
  label { font-weight: 600; font-size: 0.85rem; }
  small { color: #555; font-size: 0.75rem; }
  input[type='number'], select { font: inherit; padding: 0.25rem; max-width: 100%; }
  textarea { font: 1rem/1.4 system-ui, sans-serif; width: 100%; box-sizing: border-box; resize: vertical; padding: 0.35rem; }
  .error { color: #b00020; font-size: 0.8rem; margin: 0.1rem 0 0; }
`;
