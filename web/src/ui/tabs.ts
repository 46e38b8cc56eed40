// A row of tabs (the WAI-ARIA tabs pattern): the chosen tab is the only one in the Tab order;
// left / right (wrapping), Home and End move to a tab and choose it. Up and down are left to
// scroll the page (a horizontal tab list). What the tabs stand for is the caller's; each tab
// carries its choice as data-view (the playground's view tabs were the first).
import { html } from 'lit';

const TAB_KEYS = ['ArrowLeft', 'ArrowRight', 'Home', 'End'];

export interface TabsOptions {
  /** The tab list's label for screen readers. */
  label: string;
  choices: readonly string[];
  /** Each choice's text on its tab (default: the choice itself). */
  labels?: Record<string, string>;
  current: string;
  /** A tab's id (choice -> id), and the id of the panel the tabs control. */
  tabId: (choice: string) => string;
  panelId: string;
  onChoose: (choice: string) => void;
}

export function tabs({ label, choices, labels, current, tabId, panelId, onChoose }: TabsOptions) {
  const onKey = (event: KeyboardEvent) => {
    if (!TAB_KEYS.includes(event.key)) return;
    event.preventDefault();
    const at = choices.indexOf(current);
    const n = choices.length;
    const next =
      event.key === 'Home' ? 0 : event.key === 'End' ? n - 1 : (at + (event.key === 'ArrowLeft' ? -1 : 1) + n) % n;
    const list = event.currentTarget as HTMLElement;
    list.querySelector<HTMLElement>(`#${tabId(choices[next])}`)?.focus();
    onChoose(choices[next]);
  };
  return html`<div class="tabs" role="tablist" aria-label=${label} @keydown=${onKey}>
    ${choices.map(
      (c) => html`<button role="tab" id=${tabId(c)} aria-selected=${c === current ? 'true' : 'false'}
      aria-controls=${panelId} tabindex=${c === current ? '0' : '-1'} data-view=${c} @click=${() => onChoose(c)}>${labels?.[c] ?? c}</button>`,
    )}
  </div>`;
}
