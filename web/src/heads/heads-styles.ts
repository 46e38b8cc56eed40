// The "What heads do" view's styles (design tokens from ui/tokens.ts through CONTROL_STYLES).
import { css } from 'lit';
import { CONTROL_STYLES } from '../ui/controls.js';
import { PICTURE_INK } from '../ui/tokens.js';

export const HEADS_STYLES = [
  CONTROL_STYLES,
  PICTURE_INK,
  css`
    :host { display: block; font: var(--ap-text-md)/var(--ap-leading) var(--ap-font); color: var(--ap-text); }
    .bar { display: flex; flex-wrap: wrap; gap: var(--ap-space-3); align-items: flex-end; margin-bottom: var(--ap-space-3); }
    .bar .setting { margin: 0; }
    .text-box { flex: 1 1 22rem; }
    .text-box textarea { min-height: 2.4rem; font-family: var(--ap-mono); }
    /* No row gap: where the tabs fill the width (a phone) the status wraps below them, and an idle one (no height)
       must leave no band; a busy one is as tall as a tab, which spaces it. */
    .tool-bar { display: flex; flex-wrap: wrap; align-items: center; gap: 0 var(--ap-space-3);
      margin: var(--ap-space-2) 0 var(--ap-space-3); }
    [role='tablist'] { display: flex; flex-wrap: wrap; gap: var(--ap-space-1); }
    button[role='tab'][aria-selected='true'], button[role='tab'][aria-selected='true']:hover:not(:disabled) {
      background: var(--ap-accent); border-color: var(--ap-accent); color: var(--ap-on-accent); }
    .status { display: flex; align-items: center; gap: var(--ap-space-2); min-height: 2rem; color: var(--ap-text-muted);
      font-size: var(--ap-text-sm); }
    .status.idle { min-height: 0; }
    .status progress { width: 12rem; }
    .note { color: var(--ap-text-muted); font-size: var(--ap-text-sm); max-width: 60rem; }
    .problems { color: var(--ap-warn); font-size: var(--ap-text-sm); }
    .figure { border: 1px solid var(--ap-border); border-radius: var(--ap-radius-lg); padding: var(--ap-space-3);
      margin-bottom: var(--ap-space-3); background: var(--ap-surface); overflow-x: auto; }
    .figure h3 { margin: 0 0 var(--ap-space-2); font-size: var(--ap-text-lg); }
    .exports { display: flex; gap: var(--ap-space-1); margin-top: var(--ap-space-2); }
    .maps { display: grid; grid-template-columns: repeat(auto-fill, minmax(18rem, 1fr)); gap: var(--ap-space-3); }
    table.detectors { border-collapse: collapse; font-variant-numeric: tabular-nums; }
    table.detectors th, table.detectors td { padding: 0.2rem 0.6rem; border-bottom: 1px solid var(--ap-border); text-align: right; }
    table.detectors td.label { text-align: left; white-space: nowrap; }
    /* A table wider than the screen scrolls sideways on its own (the figure's text stays put); shadows at the edges
       say there is more (each uncovered once scrolled to its end). */
    .table-scroll { max-width: 100%; max-height: 70vh; overflow: auto;
      background: linear-gradient(to right, var(--ap-surface) 40%, transparent) left / 2rem 100% no-repeat local,
        linear-gradient(to left, var(--ap-surface) 40%, transparent) right / 2rem 100% no-repeat local,
        radial-gradient(farthest-side at 0 50%, #0003, transparent) left / 0.6rem 100% no-repeat scroll,
        radial-gradient(farthest-side at 100% 50%, #0003, transparent) right / 0.6rem 100% no-repeat scroll; }
    /* Scrolled, the table keeps its headers in sight: the column names at the top, the heads at the left. */
    table.detectors thead th { position: sticky; top: 0; z-index: 1; background: var(--ap-surface); }
    /* The heads' column is a pane of its own: opaque, above the cells it covers (its header above the scrolled
       headers too), with an edge that says the columns pass under it. */
    table.detectors tbody th { position: sticky; left: 0; z-index: 1; background: var(--ap-surface); }
    table.detectors thead th:first-child { left: 0; z-index: 2; }
    table.detectors tbody th, table.detectors thead th:first-child { box-shadow: inset -1px 0 0 var(--ap-border-strong); }
    /* The chosen head: the selection's colours (as a pressed button's), the text keeping its contrast. */
    table.detectors tr[aria-selected='true'] > * { background: var(--ap-accent-soft); color: var(--ap-text); font-weight: 700; }
    table.detectors tr[aria-selected='true'] > th { box-shadow: inset 3px 0 0 var(--ap-accent), inset -1px 0 0 var(--ap-border-strong); }
    table.detectors tbody tr { cursor: pointer; }
    table.detectors th button { min-height: 0; padding: 0.1rem 0.4rem; }
    table.detectors th button.head { font-family: var(--ap-mono); }
    table.detectors th button[aria-pressed='true'] { background: var(--ap-accent-soft); border-color: var(--ap-accent); }
    @media (max-width: 40rem) {
      table.detectors { font-size: var(--ap-text-sm); }
      table.detectors th, table.detectors td { padding: 0.2rem 0.3rem; }
      table.detectors th button { padding: 0.1rem 0.25rem; }
    }
    .switches { display: grid; justify-content: start; gap: 0.2rem var(--ap-space-2); align-items: center; margin-bottom: var(--ap-space-2); }
    .switches label { font-weight: 400; display: inline-flex; gap: 0.25rem; align-items: center; font-family: var(--ap-mono);
      font-size: var(--ap-text-sm); }
    .change { font-size: var(--ap-text-md); }
    .change strong { font-variant-numeric: tabular-nums; }
    ol.ranking { margin: 0; padding-left: 1.6rem; font-variant-numeric: tabular-nums; }
    .chosen { font-weight: 700; }
    a { color: var(--ap-accent); }
  `,
];
