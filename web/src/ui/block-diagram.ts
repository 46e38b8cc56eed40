// The block diagram whose boxes are the views (model/block-diagram.ts says what is drawn): one
// tab list (the WAI-ARIA tabs pattern) of the diagram's boxes in the order data
// flows, then the views that are no step of the block (a compact row beside it). The step on
// screen is the selected tab (aria-selected, highlighted) and the only one in the Tab order;
// left / right (wrapping), Home and End move to a box and open it. Arrows carry the shape of
// what flows along them, letters above, sizes below. In a narrow container the diagram is one
// row that scrolls sideways (the step on screen scrolled into sight) so the view stays near the top.
import { css, html, nothing, type TemplateResult } from 'lit';
import type { BlockDiagram, DiagramBox, DiagramShape, SettingChange } from '../model/block-diagram.js';

const KEYS = ['ArrowLeft', 'ArrowRight', 'Home', 'End'];

/** What a shape's letters stand for (the arrows' and the sizes line's tooltips). */
export const AXIS_MEANING: Record<string, string> = {
  B: 'sentences in the batch',
  S: 'tokens per sentence (padded)',
  Sq: 'query positions',
  Sk: 'key positions',
  E: 'd_model, the width of every token vector',
  H: 'heads',
  d_k: 'the width of each head, E / H',
  F: 'the FFN’s width',
};

/** A view that is no step of the block: a tab in the row beside the diagram. */
export interface ExtraView {
  view: string;
  label: string;
  /** What a click applies (the view last). */
  settings: SettingChange[];
}

export interface DiagramOptions {
  /** null: the trace has no diagram to draw (only the row of views shows). */
  diagram: BlockDiagram | null;
  /** The views that no box opens, beside the diagram. */
  extras: ExtraView[];
  /** The id of the selected control: a box's id, 'per-head', or 'view:<view>' for an extra. */
  current: string;
  /** The ids of the controls that are their view's home (marked data-view=<view>, one per view). */
  homes: Record<string, string>;
  /** The tab panel the tabs control. */
  panelId: string;
  /** The tab label in the stack ('Encoder layer 0 · self-attention'). */
  caption: string;
  onChoose: (settings: SettingChange[]) => void;
}

/** The id of a control's element: the tab panel names the selected one (aria-labelledby). */
export const diagramTabId = (id: string) => `step-${id.replace(/[^a-z0-9_-]/gi, '-')}`;

/** A label with its _x parts as subscripts (W_q, d_k); words of a multi-part label each on a line where the CSS says so. */
function labelText(label: string) {
  return label.split(' ').map((word, i) => {
    const [base, ...subs] = word.split('_');
    return html`${i > 0 ? ' ' : ''}<span class="word">${base}${subs.map((s) => html`<sub>${s}</sub>`)}</span>`;
  });
}

/** A shape's letters as the boxes and the sizes line write them (d_k as d with a subscript k), joined by dots. */
const axesText = (axes: readonly string[]) => axes.map((a, i) => html`${i > 0 ? '·' : ''}${labelText(a)}`);

const sameShape = (a: DiagramShape | null, b: DiagramShape | null) =>
  !!a && !!b && a.shape.join() === b.shape.join() && a.axes.join() === b.axes.join();

function shapeText(shape: DiagramShape): string {
  return `(${shape.axes.join(', ')}) = (${shape.shape.join(', ')})`;
}

export function blockDiagram(options: DiagramOptions): TemplateResult {
  const { diagram, extras, current, homes, panelId, caption, onChoose } = options;
  const onKey = (event: KeyboardEvent) => {
    if (!KEYS.includes(event.key)) return;
    const list = event.currentTarget as HTMLElement;
    const tabs = [...list.querySelectorAll<HTMLButtonElement>('[role="tab"]')];
    const at = tabs.indexOf(event.target as HTMLButtonElement);
    if (at < 0) return;
    event.preventDefault();
    const n = tabs.length;
    const next =
      event.key === 'Home' ? 0 : event.key === 'End' ? n - 1 : (at + (event.key === 'ArrowLeft' ? -1 : 1) + n) % n;
    tabs[next].focus();
    tabs[next].click();
  };
  const tab = (id: string, box: Pick<DiagramBox, 'label' | 'help' | 'settings'>, cls: string, shape?: string) => {
    const selected = id === current;
    const home = homes[id];
    return html`<button type="button" role="tab" class=${cls} id=${diagramTabId(id)} data-step=${id}
      data-view=${home ?? nothing} aria-selected=${selected ? 'true' : 'false'} aria-controls=${panelId}
      tabindex=${selected ? '0' : '-1'} title=${box.help || nothing} @click=${() => onChoose(box.settings)}>${labelText(box.label)}${
        shape ? html`<span class="sr-only">, gives ${shape}</span>` : nothing
      }</button>`;
  };
  let last: DiagramShape | null = null;
  /** The arrow after a box: its shape when the shape changes there, else a bare arrow. */
  const arrow = (out: DiagramShape | null) => {
    const show = out && !sameShape(out, last) ? out : null;
    if (out) last = out;
    return show
      ? html`<span class="arrow shaped" aria-hidden="true" data-axes=${show.axes.join(',')} data-dims=${show.shape.join(',')}
          title=${`${shapeText(show)}: ${show.axes.map((a) => `${a} = ${AXIS_MEANING[a] ?? a}`).join('; ')}`}>
          <span class="axes">${axesText(show.axes)}</span><span class="line"></span><span class="dims">${show.shape.join('×')}</span></span>`
      : html`<span class="arrow" aria-hidden="true"><span class="line"></span></span>`;
  };
  const boxTab = (box: DiagramBox) =>
    tab(box.id, box, `box box-${box.id.replace(/\d+$/, '')}`, box.out ? shapeText(box.out) : '');
  /** Cross-attention's second input, drawn above W_q W_k W_v with an arrow down into it: K and V come from there. */
  const source = diagram?.source;
  const feed = (src: DiagramBox) =>
    html`<span class="source-in" role="none">${boxTab(src)}<span class="feed" aria-hidden="true"
        data-axes=${src.out!.axes.join(',')} data-dims=${src.out!.shape.join(',')}
        title=${`${shapeText(src.out!)}: the source, into W_k and W_v (K and V); Q comes from x`}><span class="line"></span
        ><span class="feed-text"><span class="axes">${axesText(src.out!.axes)}</span> <span class="dims">${src.out!.shape.join('×')}</span>
        → K, V</span></span></span>`;
  const unit = (box: DiagramBox, isLast: boolean) =>
    box.id === 'qkv' && source?.out
      ? html`<span class="unit has-source" role="none"><span class="kv-stack" role="none">${feed(source)}${boxTab(box)}</span>${
          isLast ? nothing : arrow(box.out)
        }</span>`
      : html`<span class="unit" role="none">${boxTab(box)}${isLast ? nothing : arrow(box.out)}</span>`;
  const parts: TemplateResult[] = [];
  const boxes = diagram?.boxes ?? [];
  for (let i = 0; i < boxes.length;) {
    if (boxes[i].perHead) {
      const start = i;
      while (i < boxes.length && boxes[i].perHead) i++;
      const inner = boxes.slice(start, i);
      const closing = inner[inner.length - 1];
      parts.push(html`<span class="unit" role="none"><span class="per-head" role="none">
        ${diagram ? tab(diagram.group.id, diagram.group, 'group-label') : nothing}
        <span class="per-head-steps" role="none">${inner.map((b, k) => unit(b, k === inner.length - 1))}</span>
      </span>${i < boxes.length ? arrow(closing.out) : nothing}</span>`);
    } else {
      parts.push(unit(boxes[i], i === boxes.length - 1));
      i++;
    }
  }
  return html`<div class="diagram" role="tablist" aria-label=${`${caption}: choose a step to see it`}
      aria-describedby="diagram-sizes" @keydown=${onKey}>
    ${diagram ? html`<div class="flow" role="none">${parts}<span class="end" aria-hidden="true">→ next layer</span></div>` : nothing}
    ${
      extras.length
        ? html`<div class="extras" role="none"><span class="extras-label" aria-hidden="true">Also</span>${extras.map(
            (e) => tab(`view:${e.view}`, { label: e.label, help: '', settings: e.settings }, 'extra'),
          )}</div>`
        : nothing
    }
  </div>
  <p class="diagram-sizes" id="diagram-sizes" data-testid="diagram-sizes"><span class="diagram-caption">${caption}</span>
    ${(diagram?.sizes ?? []).map(
      (s) =>
        html`<span class="size" title=${AXIS_MEANING[s.name] ?? ''} data-axis=${s.name}><var>${labelText(s.name)}</var> = ${s.value}</span>`,
    )}${diagram?.norm ? html`<span class="size">${diagram.norm}-LN</span>` : nothing}</p>`;
}

/**
 * Marks where the diagram's row wraps (measured: where a box starts a new line depends on the width), so the wrap is
 * drawn as a connection: the arrow ending a row gets data-wraps (it turns down), the box starting the next row
 * data-wrapped (an arrow comes in). Neither changes a width, so the wrap points stay where they were measured.
 */
export function markWraps(root: ParentNode): void {
  const flow = root.querySelector<HTMLElement>('.diagram .flow');
  if (!flow) return;
  const units = [...flow.querySelectorAll<HTMLElement>(':scope > .unit')];
  const sideways = getComputedStyle(flow).flexWrap === 'nowrap'; // a phone: one row that scrolls, no wrap
  let previous: HTMLElement | null = null;
  for (const unit of units) {
    const wrapped = !sideways && !!previous && unit.offsetTop >= previous.offsetTop + previous.offsetHeight - 2;
    unit.toggleAttribute('data-wrapped', wrapped);
    previous?.querySelector<HTMLElement>(':scope > .arrow')?.toggleAttribute('data-wraps', wrapped);
    previous = unit;
  }
}

const watched = new WeakSet<Element>();

/** Keeps markWraps up to date as the diagram's width changes (one observer per diagram). */
export function watchWraps(root: ParentNode): void {
  markWraps(root);
  const flow = root.querySelector<HTMLElement>('.diagram .flow');
  if (!flow || watched.has(flow)) return;
  watched.add(flow);
  new ResizeObserver(() => markWraps(root)).observe(flow);
}

/** Keeps the selected box in sight in a diagram that scrolls sideways (a phone), without scrolling the page. */
export function revealSelected(root: ParentNode): void {
  const flow = root.querySelector<HTMLElement>('.diagram .flow');
  const selected = flow?.querySelector<HTMLElement>('[role="tab"][aria-selected="true"]');
  if (!flow || !selected || flow.scrollWidth <= flow.clientWidth) return;
  const box = selected.getBoundingClientRect();
  const frame = flow.getBoundingClientRect();
  if (box.left < frame.left || box.right > frame.right)
    flow.scrollLeft += box.left - frame.left - (frame.width - box.width) / 2;
}

export const DIAGRAM_STYLES = css`
  .diagram { display: flex; flex-wrap: wrap; align-items: flex-start; gap: var(--ap-space-2) var(--ap-space-4);
    margin: 0 0 var(--ap-space-1); }
  .flow { display: flex; flex-wrap: wrap; align-items: center; row-gap: var(--ap-space-2); flex: 1 1 36rem; min-width: 0; }
  .unit { display: inline-flex; align-items: center; }
  .diagram [role='tab'] {
    font: 600 var(--ap-text-sm)/1.15 var(--ap-font); color: var(--ap-text); background: var(--ap-surface);
    border: 1px solid var(--ap-border); border-radius: var(--ap-radius); padding: 0.4rem 0.55rem; cursor: pointer;
    min-height: 2.25rem; white-space: nowrap; position: relative;
  }
  .diagram [role='tab']:hover { border-color: var(--ap-accent); }
  .diagram [role='tab']:focus-visible { outline: 3px solid var(--ap-focus); outline-offset: 2px; }
  .diagram [role='tab'][aria-selected='true'] {
    background: var(--ap-accent); border-color: var(--ap-accent); color: var(--ap-on-accent); box-shadow: var(--ap-shadow);
  }
  /* Q, K and V: three projections of the same x, stacked. */
  .diagram .box-qkv { display: inline-flex; flex-direction: column; align-items: center; justify-content: center;
    font-size: var(--ap-text-xs); line-height: 1.1; padding: 0.15rem 0.5rem; }
  .diagram .box-residual { background: var(--ap-ok-soft); border-color: var(--ap-ok-border); }
  .diagram .box-norm { background: var(--ap-norm-soft); border-color: var(--ap-norm-border); }
  /* Another attention sub-layer of the layer, folded into one box. */
  .diagram .box-self-attention,
  .diagram .box-cross-attention { border-style: dashed; font-weight: 500; }
  .per-head { display: inline-flex; flex-direction: column; gap: 0.2rem; padding: 0.2rem 0.35rem 0.35rem;
    border: 1px dashed var(--ap-border-strong); border-radius: var(--ap-radius-lg); }
  .per-head-steps { display: flex; align-items: center; }
  .diagram .group-label { align-self: flex-start; font-size: var(--ap-text-xs); min-height: 0; padding: 0.1rem 0.45rem;
    font-weight: 600; }
  .arrow { display: inline-flex; flex-direction: column; align-items: stretch; justify-content: center; min-width: 1rem;
    padding: 0 0.15rem; font: var(--ap-text-xs)/1.2 var(--ap-mono); color: var(--ap-text-muted); text-align: center; }
  .arrow.shaped { min-width: 3.2rem; }
  .arrow .line { display: block; height: 2px; background: var(--ap-border-strong); position: relative; margin: 0.15rem 0; }
  .arrow .line::after { content: ''; position: absolute; right: -1px; top: -4px; border: 5px solid transparent;
    border-left: 6px solid var(--ap-border-strong); border-right: 0; }
  .arrow .dims { color: var(--ap-text); }
  /* The source above W_q W_k W_v (cross-attention), its arrow pointing down into the box: drawn in the room the flow
     keeps above its first row, so the other boxes stay on the row's line. */
  .flow:has(.has-source) { padding-top: 4.3rem; }
  .kv-stack { position: relative; display: inline-flex; }
  .source-in { position: absolute; bottom: 100%; left: 50%; transform: translateX(-50%); display: flex; flex-direction: column;
    align-items: center; }
  .diagram .box-source { border-style: dashed; font-weight: 500; min-height: 2rem; padding: 0.25rem 0.55rem; }
  .feed { position: relative; display: flex; flex-direction: column; align-items: center; min-height: 1.5rem;
    font: var(--ap-text-xs)/1.2 var(--ap-mono); color: var(--ap-text-muted); }
  .feed .line { position: absolute; left: 50%; top: 0; bottom: 0; width: 2px; margin-left: -1px; background: var(--ap-border-strong); }
  .feed .line::after { content: ''; position: absolute; bottom: -1px; left: -4px; border: 5px solid transparent;
    border-top: 6px solid var(--ap-border-strong); border-bottom: 0; }
  .feed-text { position: relative; margin: 0.1rem 0 0.35rem; padding: 0 0.2rem; background: var(--ap-bg); white-space: nowrap; }
  .feed .dims { color: var(--ap-text); }
  /* A row that wraps (markWraps): the arrow at a row's end turns down, and the next row starts with one coming in. */
  .flow { padding-left: 1.1rem; }
  .arrow[data-wraps] .line::after { right: -4px; top: 0; border: 5px solid transparent; border-top: 6px solid var(--ap-border-strong);
    border-bottom: 0; }
  .unit[data-wrapped] { position: relative; }
  .unit[data-wrapped]::before { content: '↳'; position: absolute; right: 100%; top: 50%; transform: translateY(-55%);
    padding-right: 0.15rem; font: 1.1rem/1 var(--ap-font); color: var(--ap-border-strong); }
  .end { font-size: var(--ap-text-xs); color: var(--ap-text-muted); margin-left: var(--ap-space-2); white-space: nowrap; }
  .extras { display: flex; flex-wrap: wrap; align-items: center; gap: var(--ap-space-1); flex: 0 1 auto; }
  .extras-label { font-size: var(--ap-text-xs); color: var(--ap-text-muted); margin-right: var(--ap-space-1); }
  .diagram .extra { font-weight: 500; border-radius: 999px; min-height: 2rem; padding: 0.3rem 0.7rem; }
  .diagram-sizes { display: flex; flex-wrap: wrap; gap: 0.1rem 0.9rem; margin: 0 0 var(--ap-space-2);
    font-size: var(--ap-text-xs); color: var(--ap-text-muted); }
  .diagram sub, .diagram-sizes sub { font-size: 0.75em; line-height: 0; }
  .diagram-sizes var { font-style: normal; font-family: var(--ap-mono); color: var(--ap-text); }
  .diagram-caption { font-weight: 600; color: var(--ap-text); }
  .sr-only { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
`;

/** In a narrow container: one row that scrolls sideways, shapes by their sizes only. */
export const DIAGRAM_NARROW_STYLES = css`
  .diagram { gap: var(--ap-space-1); }
  .flow, .extras { flex: 1 1 100%; flex-wrap: nowrap; overflow-x: auto; overscroll-behavior-x: contain;
    padding: 4px 2px; scrollbar-width: thin; }
  .arrow .axes, .end, .extras-label, .diagram-sizes, .feed .axes { display: none; }
  .flow { padding-left: 2px; }
  .diagram [role='tab'] { padding: 0.3rem 0.45rem; min-height: 2.1rem; }
  .arrow.shaped { min-width: 2.6rem; }
  .per-head { flex-direction: row; align-items: center; padding: 0.2rem 0.35rem; }
  .diagram .group-label { align-self: center; }
`;
