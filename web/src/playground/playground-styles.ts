import { css } from 'lit';
import { CONTROL_STYLES } from '../ui/controls.js';
import { DRAWER_STYLES, NARROW_CONTAINER } from '../ui/settings-drawer.js';

export const PLAYGROUND_STYLES = [
  CONTROL_STYLES,
  DRAWER_STYLES,
  css`
  :host { display: block; font: 1rem/1.4 system-ui, sans-serif; color: #111; container-type: inline-size; }
  .layout {
    display: grid; gap: 1rem; grid-template-columns: minmax(12rem, 19rem) minmax(0, 1fr);
    grid-template-areas: 'text text' 'aside main';
  }
  .texts { grid-area: text; display: grid; gap: 0.5rem; grid-template-columns: repeat(auto-fit, minmax(16rem, 1fr)); }
  aside { grid-area: aside; }
  main { grid-area: main; min-width: 0; }
  .layout.no-aside { grid-template-columns: minmax(0, 1fr); grid-template-areas: 'text' 'main'; }
  .layout.no-aside.no-text { grid-template-areas: 'main'; }
  .layout.no-text:not(.no-aside) { grid-template-areas: 'aside main'; }
  /* Wide enough for every choice of the menus (a mode such as "Encoder–decoder cross-attention" is not cut off). */
  aside select { width: 100%; font-size: 0.9rem; }
  /* Sized by the container, not the window: the same layout works embedded in a narrow column. There the settings
     come first (after the text), folded into a drawer when there are many, so the view is not pushed below them. */
  @container ${NARROW_CONTAINER} {
    .layout, .layout.no-text:not(.no-aside) { grid-template-columns: minmax(0, 1fr); grid-template-areas: 'text' 'aside' 'main'; }
    .layout.no-text:not(.no-aside) { grid-template-areas: 'aside' 'main'; }
  }
  .tabs { display: flex; flex-wrap: wrap; gap: 0.25rem; border-bottom: 1px solid #ccc; margin-bottom: 0.5rem; }
  .tabs button {
    font: inherit; font-size: 0.85rem; padding: 0.35rem 0.6rem; border: 1px solid #ccc; border-bottom: none;
    background: #f4f4f4; border-radius: 6px 6px 0 0; cursor: pointer;
  }
  .tabs button[aria-selected='true'] { background: #fff; font-weight: 700; border-color: #888; }
  .tabs button:focus-visible, .exports button:focus-visible { outline: 3px solid #1a73e8; }
  .view-settings { display: flex; flex-wrap: wrap; gap: 0.2rem 1rem; align-items: flex-end; margin-bottom: 0.5rem; }
  .view-settings .setting { margin-bottom: 0.2rem; }
  .exports { display: flex; gap: 0.3rem; margin-left: auto; margin-bottom: 0.2rem; }
  .exports button { font: inherit; font-size: 0.8rem; padding: 0.25rem 0.5rem; cursor: pointer; }
  .heads { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fill, minmax(min(100%, 17rem), 1fr)); }
  /* Four pictures (four heads, the four masks) as 2 + 2, never 3 + 1: each column at least a third of the row, so at
     most two fit. */
  .heads[data-count='4'], .heads:has(> :nth-child(4):last-child) {
    grid-template-columns: repeat(auto-fill, minmax(min(100%, max(17rem, 34%)), 1fr));
  }
  .one-head { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 20rem), 1fr)); }
  ap-legend { margin-bottom: 0.5rem; }
  /* The Colour scale menu on the legend's line: label and menu side by side. */
  .legend-row { display: flex; flex-wrap: wrap; align-items: center; gap: 0.3rem 1rem; margin-bottom: 0.5rem; }
  .legend-row ap-legend { margin-bottom: 0; }
  .legend-row .setting { flex-direction: row; align-items: center; gap: 0.4rem; margin-bottom: 0; }
  .overlay-strip { display: flex; flex-wrap: wrap; align-items: center; gap: 0.15rem 0.55rem; border: 1px solid #ddd;
    border-radius: 4px; padding: 0.2rem 0.5rem 0.35rem; margin: 0 0 0.2rem; font-size: 0.85rem; }
  .overlay-strip legend { font-size: 0.8rem; color: #333; padding: 0 0.2rem; }
  .overlay-strip .note { color: #666; }
  .overlay-strip label { display: inline-flex; align-items: center; gap: 0.15rem; cursor: pointer; font-variant-numeric: tabular-nums; }
  .overlay-strip .swatch { display: inline-block; width: 0.8rem; height: 0.8rem; border-radius: 2px; background: var(--head-color); }
  .overlay-strip button { font: inherit; font-size: 0.75rem; padding: 0.1rem 0.4rem; cursor: pointer; }
  .status { color: #555; font-size: 0.8rem; }
  .error { color: #b00020; }
  .engine-error { border: 1px solid #b00020; background: #fdecee; padding: 0.4rem 0.6rem; border-radius: 4px; }
  .hint { color: #333; max-width: 40rem; }
  table.changes { border-collapse: collapse; font-size: 0.85rem; min-width: min(100%, 30rem); }
  table.changes caption { text-align: left; margin-bottom: 0.4rem; }
  table.changes th, table.changes td { padding: 0.2rem 0.5rem; border-bottom: 1px solid #eee; text-align: left; }
  table.changes td { width: 40%; }
  table.changes tr.edited th { color: #e8175d; }
  .baseline-bar { display: flex; flex-wrap: wrap; align-items: center; gap: 0.4rem 0.6rem; margin-bottom: 0.6rem; }
  .baseline-bar .comparing { margin: 0; flex: 1 1 24rem; }
  .baseline-bar q { font-weight: 600; quotes: none; }
  .baseline-bar button { font: inherit; font-size: 0.85rem; padding: 0.2rem 0.6rem; cursor: pointer; }
  .baseline-bar[data-reference="pinned"] { border-left: 3px solid #1a73e8; padding-left: 0.5rem; }
  .incomparable { color: #6b4e00; background: #fff8e1; border: 1px solid #e0c060; padding: 0.4rem 0.6rem; border-radius: 4px; max-width: 44rem; }
  .bar { display: inline-block; height: 0.7rem; background: #1a73e8; vertical-align: middle; margin-right: 0.3rem; }
  .num { font: 0.75rem ui-monospace, monospace; color: #333; }
  ap-shape-flow { margin-bottom: 1rem; }
  /* The last good view stays while a problem is shown (or another model loads), dimmed and labelled. */
  .view.stale > :not(.stale-note) { opacity: 0.45; }
  .stale-note { margin: 0 0 0.4rem; font-size: 0.8rem; color: #6b4e00; }
  .range-note { margin: 0 0 0.4rem; font-size: 0.85rem; color: #6b4e00; background: #fff8e1; border: 1px solid #e0c060;
    padding: 0.3rem 0.5rem; border-radius: 4px; max-width: 44rem; }
  .first-view-hint { color: #333; max-width: 52rem; margin: 0 0 0.6rem; padding: 0.4rem 0.6rem; border-left: 3px solid #1a73e8; background: #f3f7fe; font-size: 0.9rem; }
  .trained-model { font-size: 0.85rem; margin-bottom: 0.6rem; }
  .trained-model .note { margin: 0 0 0.3rem; }
  .trained-model .about { margin: 0 0 0.3rem; color: #333; }
  .trained-model dl { display: grid; grid-template-columns: auto 1fr; gap: 0.1rem 0.6rem; margin: 0; }
  .trained-model dt { color: #555; }
  .trained-model dd { margin: 0; font-weight: 600; }
  .load-pretrained { font: inherit; font-size: 0.85rem; margin-top: 0.35rem; padding: 0.25rem 0.5rem; cursor: pointer; }
  ap-pretrained-loader { margin: 0.5rem 0 0.75rem; }
  .predictions { margin-top: 1rem; border-top: 1px solid #ddd; padding-top: 0.5rem; }
  .predictions h3 { font-size: 0.95rem; margin: 0 0 0.4rem; }
  .predictions figure { margin: 0 0 0.6rem; }
  .predictions figcaption { font-weight: 600; font-size: 0.85rem; margin-bottom: 0.2rem; }
  .predictions ol { margin: 0; padding-left: 1.5rem; font-size: 0.9rem; }
  .predictions .token { display: inline-block; min-width: 7rem; font-family: ui-monospace, monospace; white-space: pre; }
`,
];
