import { css } from 'lit';
import { CONTROL_STYLES } from '../ui/controls.js';
import { DRAWER_STYLES, NARROW_CONTAINER } from '../ui/settings-drawer.js';
import { DIAGRAM_NARROW_STYLES, DIAGRAM_STYLES } from '../ui/block-diagram.js';
import { FIGURE_STYLES } from '../ui/tokens.js';

export const PLAYGROUND_STYLES = [
  CONTROL_STYLES,
  DRAWER_STYLES,
  DIAGRAM_STYLES,
  FIGURE_STYLES,
  css`
  :host { display: block; font: var(--ap-text-md)/var(--ap-leading) var(--ap-font); color: var(--ap-text); container-type: inline-size; }
  .layout {
    display: grid; gap: var(--ap-space-4); grid-template-columns: minmax(12rem, 19rem) minmax(0, 1fr);
    grid-template-areas: 'text text' 'aside main';
  }
  .texts { grid-area: text; display: grid; gap: var(--ap-space-2); grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); }
  .texts .setting { margin-bottom: 0; }
  /* With chat turns offered (a pretrained model, never the cross mode's two boxes): the box, its switch and the
     template's text one under the other, each the whole width. */
  .texts:has(> [data-setting="chat"]) > * { grid-column: 1 / -1; }
  /* The chat template's text: the whole row, as it is (newlines and special tokens), scrolling past a few lines. */
  .texts .rendered { grid-column: 1 / -1; font-size: var(--ap-text-sm); }
  .texts .rendered pre { margin: var(--ap-space-1) 0 0; padding: var(--ap-space-1) var(--ap-space-2); max-height: 10rem; overflow: auto;
    white-space: pre-wrap; overflow-wrap: anywhere; background: var(--ap-surface); border: 1px solid var(--ap-border); border-radius: var(--ap-radius-sm); font-family: var(--ap-mono); }
  aside { grid-area: aside; }
  main { grid-area: main; min-width: 0; }
  .layout.no-aside { grid-template-columns: minmax(0, 1fr); grid-template-areas: 'text' 'main'; }
  .layout.no-aside.no-text { grid-template-areas: 'main'; }
  .layout.no-text:not(.no-aside) { grid-template-areas: 'aside main'; }
  /* Wide enough for every choice of the menus (a mode such as "Encoder–decoder cross-attention" is not cut off). */
  aside select { width: 100%; font-size: var(--ap-text-sm); }
  /* Sized by the container, not the window: the same layout works embedded in a narrow column. There a picture comes
     first: the text, the diagram and the view, then the settings (folded into a drawer when there are many) and the
     hint on what the heads do. */
  @container ${NARROW_CONTAINER} {
    .layout, .layout.no-text:not(.no-aside) { grid-template-columns: minmax(0, 1fr); grid-template-areas: 'text' 'main' 'aside'; }
    .layout.no-text:not(.no-aside) { grid-template-areas: 'main' 'aside'; }
    .layout { gap: var(--ap-space-3); }
    main { display: flex; flex-direction: column; }
    main > .first-view-hint, main > ap-real-model { order: 1; }
    main > .view-panel ~ * { order: 2; }
    .texts textarea { height: 3.9em; }
    /* The view's settings each on one line with its label, so the picture stays near the top. */
    .view-settings { gap: var(--ap-space-1) var(--ap-space-3); align-items: center; }
    .view-settings .setting { flex-direction: row; align-items: center; gap: var(--ap-space-2); margin: 0; }
    .view-settings .setting small { display: none; }
    .view-settings .slider-pair { min-width: 0; }
    .view-settings .slider-pair input[type='range'] { flex-basis: 5rem; }
    .view-settings select { max-width: 14rem; }
    .exports { margin-left: 0; }
    ${DIAGRAM_NARROW_STYLES}
  }
  .view-settings { display: flex; flex-wrap: wrap; gap: var(--ap-space-1) var(--ap-space-4); align-items: flex-end; margin-bottom: var(--ap-space-2); }
  .view-settings .setting { margin-bottom: var(--ap-space-1); }
  .view-settings .slider-pair { min-width: 12rem; }
  .exports { display: flex; gap: var(--ap-space-1); margin-left: auto; margin-bottom: var(--ap-space-1); }
  .exports button { font-size: var(--ap-text-xs); min-height: 1.8rem; padding: 0.2rem 0.55rem; }
  .heads { display: grid; gap: var(--ap-space-4); grid-template-columns: repeat(auto-fill, minmax(min(100%, 17rem), 1fr)); }
  /* Four pictures (four heads, the four masks) as 2 + 2, never 3 + 1: each column at least a third of the row, so at
     most two fit. */
  .heads[data-count='4'], .heads:has(> :nth-child(4):last-child) {
    grid-template-columns: repeat(auto-fill, minmax(min(100%, max(17rem, 34%)), 1fr));
  }
  .one-head { display: grid; gap: var(--ap-space-4); grid-template-columns: repeat(auto-fit, minmax(min(100%, 20rem), 1fr)); }
  ap-legend { margin-bottom: var(--ap-space-2); }
  /* The Colour scale menu on the legend's line: label and menu side by side. */
  .legend-row { display: flex; flex-wrap: wrap; align-items: center; gap: var(--ap-space-1) var(--ap-space-4); margin-bottom: var(--ap-space-2); }
  .legend-row ap-legend { margin-bottom: 0; }
  .legend-row .setting { flex-direction: row; align-items: center; gap: var(--ap-space-2); margin-bottom: 0; }
  .overlay-strip { display: flex; flex-wrap: wrap; align-items: center; gap: 0.15rem 0.55rem; border: 1px solid var(--ap-border);
    border-radius: var(--ap-radius-sm); padding: 0.2rem var(--ap-space-2) 0.35rem; margin: 0 0 0.2rem; font-size: var(--ap-text-sm); }
  .overlay-strip legend { font-size: var(--ap-text-xs); color: var(--ap-text-muted); padding: 0 0.2rem; }
  .overlay-strip .note { color: var(--ap-text-muted); }
  .overlay-strip label { display: inline-flex; align-items: center; gap: 0.15rem; cursor: pointer; font-variant-numeric: tabular-nums; }
  .overlay-strip .swatch { display: inline-block; width: 0.8rem; height: 0.8rem; border-radius: 2px; background: var(--head-color); }
  .overlay-strip button { font-size: var(--ap-text-xs); min-height: 0; padding: 0.1rem 0.4rem; }
  .status { color: var(--ap-text-muted); font-size: var(--ap-text-xs); }
  .error { color: var(--ap-danger); }
  .engine-error { border: 1px solid var(--ap-danger); background: var(--ap-danger-soft); padding: 0.4rem 0.6rem; border-radius: var(--ap-radius-sm); }
  .hint { color: var(--ap-text); max-width: 40rem; }
  table.changes { border-collapse: collapse; font-size: var(--ap-text-sm); min-width: min(100%, 30rem); }
  table.changes caption { text-align: left; margin-bottom: 0.4rem; }
  table.changes th, table.changes td { padding: 0.2rem var(--ap-space-2); border-bottom: 1px solid var(--ap-surface-2); text-align: left; }
  table.changes td { width: 40%; }
  table.changes tr.edited th { color: var(--ap-highlight); }
  .baseline-bar { display: flex; flex-wrap: wrap; align-items: center; gap: 0.4rem 0.6rem; margin-bottom: 0.6rem; }
  .baseline-bar .comparing { margin: 0; flex: 1 1 24rem; }
  .baseline-bar q { font-weight: 600; quotes: none; }
  .baseline-bar button { font-size: var(--ap-text-sm); }
  .baseline-bar[data-reference="pinned"] { border-left: 3px solid var(--ap-accent); padding-left: var(--ap-space-2); }
  .incomparable { color: var(--ap-warn); background: var(--ap-warn-soft); border: 1px solid var(--ap-warn-border); padding: 0.4rem 0.6rem;
    border-radius: var(--ap-radius-sm); max-width: 44rem; }
  .bar { display: inline-block; height: 0.7rem; background: var(--ap-accent); vertical-align: middle; margin-right: 0.3rem; }
  .num { font: var(--ap-text-xs) var(--ap-mono); color: var(--ap-text); }
  ap-shape-flow { margin-bottom: var(--ap-space-4); }
  /* The last good view stays while a problem is shown (or another model loads), dimmed and labelled. */
  .view.stale > :not(.stale-note) { opacity: 0.45; }
  /* Wider than a phone: the view's why-note (drawn after the view: a phone keeps a picture on its first screen) moves
     to the top of the view, where it is read before the pictures rather than a screen below them. */
  @container not ${NARROW_CONTAINER} {
    .view { display: flex; flex-direction: column; }
    .view > * { min-width: 0; }
    .view > .stale-note { order: -2; }
    .view > .why-note { order: -1; margin-top: 0 !important; max-width: 52rem; }
  }
  .stale-note { margin: 0 0 0.4rem; font-size: var(--ap-text-xs); color: var(--ap-warn); }
  .range-note { margin: 0 0 0.4rem; font-size: var(--ap-text-sm); color: var(--ap-warn); background: var(--ap-warn-soft);
    border: 1px solid var(--ap-warn-border); padding: 0.3rem var(--ap-space-2); border-radius: var(--ap-radius-sm); max-width: 44rem; }
  .first-view-hint { color: var(--ap-text); max-width: 52rem; margin: 0 0 var(--ap-space-3); padding: 0.4rem 0.6rem;
    border-left: 3px solid var(--ap-accent); background: var(--ap-accent-soft); font-size: var(--ap-text-sm);
    border-radius: 0 var(--ap-radius-sm) var(--ap-radius-sm) 0; }
  .trained-model { font-size: var(--ap-text-sm); margin-bottom: 0.6rem; }
  .trained-model .note { margin: 0 0 0.3rem; }
  .trained-model .about { margin: 0 0 0.3rem; color: var(--ap-text); }
  .trained-model dl { display: grid; grid-template-columns: auto 1fr; gap: 0.1rem 0.6rem; margin: 0; }
  .trained-model dt { color: var(--ap-text-muted); }
  .trained-model dd { margin: 0; font-weight: 600; }
  ap-pretrained-loader { margin: var(--ap-space-2) 0 var(--ap-space-3); }
  .predictions { margin-top: var(--ap-space-4); border-top: 1px solid var(--ap-border); padding-top: var(--ap-space-2); }
  .predictions h3 { font-size: var(--ap-text-md); margin: 0 0 0.4rem; }
  .predictions figure { margin: 0 0 0.6rem; }
  .predictions figcaption { font-weight: 600; font-size: var(--ap-text-sm); margin-bottom: 0.2rem; }
  .predictions ol { margin: 0; padding-left: 1.5rem; font-size: var(--ap-text-sm); }
  .predictions .token { display: inline-block; min-width: 7rem; font-family: var(--ap-mono); white-space: pre; }
`,
];
