// A settings column (the playground's model settings, the Train view's training settings).
// Beside the view when there is room; in a narrow container (a phone) the page decides where it
// goes (the playground puts it after the view, so a picture comes first), and with many settings
// it folds into a drawer: a button naming the settings in a few words that opens them
// (DRAWER_STYLES decide by the container's width).
import { css, html, nothing, type TemplateResult } from 'lit';

/** A container this narrow (a phone, a narrow column) stacks the settings above the view. */
export const NARROW_CONTAINER = css`(max-width: 720px)`;

/** The drawer: only a narrow container folds it; elsewhere its button is hidden and the settings show. */
export const DRAWER_STYLES = css`
  .drawer-toggle { display: none; }
  @container ${NARROW_CONTAINER} {
    aside.drawer { border: 1px solid var(--ap-border); border-radius: var(--ap-radius); padding: var(--ap-space-1) var(--ap-space-2);
      background: var(--ap-surface); }
    aside.drawer .drawer-toggle {
      display: flex; flex-wrap: wrap; gap: 0.1rem var(--ap-space-2); align-items: baseline; width: 100%; text-align: left;
      font: var(--ap-text-md) var(--ap-font); color: var(--ap-text); background: none; border: none;
      padding: var(--ap-space-1) 0; cursor: pointer; min-height: var(--ap-control-height);
    }
    .drawer-toggle::before { content: '▸'; }
    aside.drawer.open .drawer-toggle::before { content: '▾'; }
    .drawer-toggle:focus-visible { outline: 3px solid var(--ap-focus); }
    .drawer-title { font-weight: 700; }
    .drawer-summary { color: var(--ap-text-muted); font-size: var(--ap-text-sm); }
    .drawer-problem { color: var(--ap-danger); font-weight: 600; font-size: var(--ap-text-sm); }
    aside.drawer:not(.open) .drawer-body { display: none; }
    aside.drawer.open .drawer-body { margin-top: var(--ap-space-2); }
  }
`;

export interface DrawerOptions {
  /** The column's name: its landmark's label and the drawer button's title. */
  title?: string;
  open: boolean;
  /** The settings in a few words, on the drawer's button; '' for no drawer (a few settings show as they are). */
  summary: string;
  /** The labels of the settings inside that have a problem: a closed drawer still says so on its button. */
  problems: string[];
  onToggle: () => void;
}

export function settingsDrawer(
  content: TemplateResult,
  { title = 'Model settings', open, summary, problems, onToggle }: DrawerOptions,
) {
  if (!summary) return html`<aside aria-label=${title}>${content}</aside>`;
  return html`<aside aria-label=${title} class="drawer ${open ? 'open' : ''}">
    <button type="button" class="drawer-toggle" aria-expanded=${open ? 'true' : 'false'} aria-controls="settings-body"
      data-testid="settings-drawer" @click=${onToggle}><span class="drawer-title">${title}</span>
      <span class="drawer-summary">${summary}</span>${
        problems.length
          ? html`<span class="drawer-problem" data-testid="drawer-problem">⚠
        ${problems.length === 1 ? 'a problem' : `${problems.length} problems`} to fix: ${problems.join(', ')}</span>`
          : nothing
      }</button>
    <div class="drawer-body" id="settings-body">${content}</div>
  </aside>`;
}
