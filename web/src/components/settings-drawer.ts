// The playground's model settings column. Beside the view when there is room; in a narrow
// container (a phone) it comes before the view, and with many settings folds into a drawer:
// a button naming the model in a few words that opens the settings (the CSS in
// playground-styles.ts decides by the container's width).
import { html, nothing, type TemplateResult } from 'lit';
import { settingByName, type Setting, type State } from '../state/settings.js';

export interface DrawerOptions {
  open: boolean;
  /** The settings in a few words, on the drawer's button; '' for no drawer (a few settings show as they are). */
  summary: string;
  /** The labels of the settings inside that have a problem: a closed drawer still says so on its button. */
  problems: string[];
  onToggle: () => void;
}

export function settingsDrawer(content: TemplateResult, { open, summary, problems, onToggle }: DrawerOptions) {
  if (!summary) return html`<aside aria-label="Model settings">${content}</aside>`;
  return html`<aside aria-label="Model settings" class="drawer ${open ? 'open' : ''}">
    <button type="button" class="drawer-toggle" aria-expanded=${open ? 'true' : 'false'} aria-controls="settings-body"
      data-testid="settings-drawer" @click=${onToggle}><span class="drawer-title">Model settings</span>
      <span class="drawer-summary">${summary}</span>${problems.length ? html`<span class="drawer-problem" data-testid="drawer-problem">⚠
        ${problems.length === 1 ? 'a problem' : `${problems.length} problems`} to fix: ${problems.join(', ')}</span>` : nothing}</button>
    <div class="drawer-body" id="settings-body">${content}</div>
  </aside>`;
}

/** The model settings in a few words, for the drawer's button: a trained or pretrained model's name, else the main settings. */
export function modelSummary(state: State, modelName: string): string {
  if (modelName) return modelName;
  const preset = settingByName('preset') as Extract<Setting, { type: 'choice' }>;
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  return `d_model ${state.dModel}, ${count(state.heads, 'head')}, ${count(state.layers, 'layer')}, ${preset.labels?.[state.preset] ?? state.preset}`;
}
