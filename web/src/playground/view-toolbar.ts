// The row above the playground's view: the view tabs (ui/tabs.ts: the WAI-ARIA tabs pattern:
// arrow keys, Home and End move and select, one tab in the Tab order), then, inside the tab panel, the
// view settings that the chosen view uses (stage, block, layer, head, overlay, sentence) and
// the export buttons.
// Split out of playground.ts to keep it readable; it renders from what it is given and
// reports choices through `onSetting`, like the other controls.
import { html, nothing } from 'lit';
import { blocksFor, settingByName, type Setting, type State } from '../settings/settings.js';
import { exportJson, exportPng, exportSvg } from '../ui/export.js';
import { isPictureView } from '../model/export-names.js';
import { overlayStrip, type ViewContext } from './views.js';
import { renderControl } from '../ui/controls.js';
import { tabs } from '../ui/tabs.js';
import { viewPicture } from './view-picture.js';

export interface ToolbarOptions {
  ctx: ViewContext;
  errors: Record<string, string>;
  /** The typed text of view settings that do not parse (their boxes show it). */
  drafts: Record<string, string>;
  /** Whether the setting (or 'views', 'export') has a control here. */
  shows: (name: string) => boolean;
  onSetting: (event: Event) => void;
}

/** The sentence to show, picked by its words; the padded ones say so. */
function sentencePicker(ctx: ViewContext, onSetting: (event: Event) => void) {
  const longest = Math.max(...ctx.trace.tokens.map((t) => t.length));
  const shorten = (text: string) => (text.length > 40 ? `${text.slice(0, 39)}…` : text);
  return html`<div class="setting choice" data-setting="sequence"><label for="setting-sequence">Sentence</label>
    <select id="setting-sequence" name="sequence" @change=${onSetting}>
      ${ctx.trace.tokens.map(
        (tokens, i) =>
          html`<option value=${i} ?selected=${i === ctx.sequence}>${i + 1}: ${shorten(tokens.join(' '))}${
            tokens.length < longest ? ` (+${longest - tokens.length} padding)` : ''
          }</option>`,
      )}
    </select></div>`;
}

/** The id of a view's tab; the tab panel is VIEW_PANEL_ID. */
export const viewTabId = (view: string) => `view-tab-${view}`;
export const VIEW_PANEL_ID = 'view-panel';

/** The view tabs (ui/tabs.ts): choosing one sets the 'view' setting. */
export function viewTabs(current: string, onSetting: (event: Event) => void) {
  const view = settingByName('view') as Extract<Setting, { type: 'choice' }>;
  return tabs({
    label: 'View',
    choices: view.choices,
    labels: view.labels,
    current,
    tabId: viewTabId,
    panelId: VIEW_PANEL_ID,
    onChoose: (c) => onSetting(new CustomEvent('view-tab', { detail: { name: 'view', raw: c } })),
  });
}

export function viewToolbar({ ctx, errors, drafts, shows, onSetting }: ToolbarOptions) {
  const state: State = ctx.state;
  const control = (name: string, max?: number) =>
    shows(name)
      ? renderControl(
          settingByName(name)!,
          drafts[name] ?? (state as unknown as Record<string, unknown>)[name],
          errors[name],
          onSetting,
          { max },
        )
      : nothing;
  const blocks = blocksFor(ctx.trace.mode);
  // The PNG or SVG of the view on screen (the buttons show only in views that are pictures).
  const save = (ext: 'png' | 'svg') => {
    const picture = viewPicture(ctx);
    if (!picture) return;
    if (ext === 'svg') exportSvg(picture.svg, picture.fileName('svg'));
    else void exportPng(picture.svg, picture.fileName('png'));
  };
  return html`<div class="view-settings">
      ${['heads', 'head', 'overview'].includes(state.view) ? control('stage') : nothing}
      ${blocks.length > 1 ? control('block') : nothing}
      ${ctx.trace.config.layers > 1 && state.view !== 'overview' ? control('layer', ctx.trace.config.layers - 1) : nothing}
      ${state.view === 'head' || state.view === 'steps' ? control('head', ctx.trace.config.heads - 1) : nothing}
      ${state.view === 'lines' && shows('overlay') && ctx.trace.config.heads > 1 ? overlayStrip(ctx) : nothing}
      ${ctx.trace.tokens.length > 1 && shows('sequence') ? sentencePicker(ctx, onSetting) : nothing}
      ${
        shows('export')
          ? html`<div class="exports">
        ${
          isPictureView(state.view)
            ? html`<button @click=${() => save('png')}>PNG</button>
          <button @click=${() => save('svg')}>SVG</button>`
            : nothing
        }
        <button @click=${() => exportJson(ctx.trace, 'attention-trace.json')}>Trace JSON</button>
      </div>`
          : nothing
      }
    </div>`;
}
