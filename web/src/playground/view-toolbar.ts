// The rows above the playground's view: the block diagram whose boxes are the views (ui/block-diagram.ts: the
// WAI-ARIA tabs pattern: arrow keys, Home and End move and select, one tab in the Tab order), then, inside the tab
// panel, the view settings that the chosen view uses (stage, block, layer, head, overlay, sentence) and
// the export buttons.
// Split out of playground.ts to keep it readable; it renders from what it is given and
// reports choices through `onSetting`, like the other controls.
import { html, nothing } from 'lit';
import { blocksFor, DEFAULT_STATE, settingByName, type ChoiceSetting, type State } from '../settings/settings.js';
import { exportJson, exportPng, exportSvg } from '../ui/export.js';
import { isPictureView } from '../model/export-names.js';
import { overlayStrip, type ViewContext } from './views.js';
import { renderControl } from '../ui/controls.js';
import { blockDiagram as blockDiagramTemplate, diagramTabId } from '../ui/block-diagram.js';
import { blockDiagram, boxCovers, type DiagramBox } from '../model/block-diagram.js';
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

export const VIEW_PANEL_ID = 'view-panel';

/** The view settings a box's coverage is judged by. */
type ViewState = Pick<State, 'view' | 'stage' | 'tensor'>;

/**
 * The block diagram of the view's block and layer (model/block-diagram.ts), whose boxes are the views: every view
 * of the settings table that no box opens sits in the row beside it, so each view is reachable. A view's home (the
 * control marked data-view) is the box that opens it with the view settings at their defaults, else its tab in that
 * row. Returns the diagram and the id of the selected control's element (the tab panel is labelled by it).
 */
export function viewDiagram(ctx: ViewContext, onSetting: (event: Event) => void): { template: unknown; tabId: string } {
  const viewSetting = settingByName('view') as ChoiceSetting;
  const diagram = blockDiagram(ctx.trace, ctx.block, ctx.layer);
  const boxes: DiagramBox[] = diagram ? [...diagram.boxes, diagram.group] : [];
  const defaults = DEFAULT_STATE as unknown as Record<string, unknown>;
  const homes: Record<string, string> = {};
  const homeOf = new Map<string, string>();
  for (const box of boxes) {
    if (box.otherBlock) continue; // it draws another block: the view's home is a box of this one
    const atDefaults = box.settings.every((s) => s.name === 'view' || s.name === 'block' || defaults[s.name] === s.raw);
    if (atDefaults && !homeOf.has(box.view)) homeOf.set(box.view, box.id);
  }
  // A view's tab beside the diagram opens it at the default of what its boxes choose (the Values view's tensor), so
  // that it, and not a box, is the step on screen.
  const extras = viewSetting.choices
    .filter((view) => !homeOf.has(view))
    .map((view) => {
      const keys = new Set(boxes.flatMap((b) => b.covers.filter((c) => c.view === view && c.name).map((c) => c.name!)));
      const settings = [...keys].map((name) => ({ name, raw: String(defaults[name]) }));
      return { view, label: viewSetting.labels?.[view] ?? view, settings: [...settings, { name: 'view', raw: view }] };
    });
  for (const { view } of extras) homeOf.set(view, `view:${view}`);
  for (const [view, id] of homeOf) homes[id] = view;
  const state: ViewState = ctx.state;
  const current = boxes.find((box) => boxCovers(box, state))?.id ?? homeOf.get(state.view) ?? `view:${state.view}`;
  const onChoose = (settings: { name: string; raw: string }[]) => {
    for (const detail of settings) onSetting(new CustomEvent('view-tab', { detail }));
  };
  const stack = ctx.block.startsWith('encoder') ? 'Encoder' : 'Decoder';
  const blockLabel = (settingByName('block') as ChoiceSetting).labels?.[ctx.block] ?? ctx.block;
  const caption = `${stack} layer ${ctx.layer} · ${blockLabel.toLowerCase().replace(/^encoder |^decoder /, '')}`;
  const template = blockDiagramTemplate({ diagram, extras, current, homes, panelId: VIEW_PANEL_ID, caption, onChoose });
  return { template, tabId: diagramTabId(current) };
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
      ${['head', 'steps', 'positions'].includes(state.view) ? control('head', ctx.trace.config.heads - 1) : nothing}
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
