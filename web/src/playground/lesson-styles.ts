// The look shared by the views that argue from numbers (Row by row, Head split, Step by
// step): a formula line, matrices side by side, and tables of the numbers with a check
// mark where a recomputed value agrees with the engine's.
import { css } from 'lit';
import { FIGURE_STYLES, TOKENS } from '../ui/tokens.js';

export const LESSON_STYLES = [
  TOKENS,
  FIGURE_STYLES,
  css`
  :host { display: block; font: var(--ap-text-sm)/var(--ap-leading) var(--ap-font); color: var(--ap-text); }
  .formula { margin: 0 0 var(--ap-space-2); }
  .formula code, td code, .note code { font: 0.88em var(--ap-mono); background: var(--ap-surface-2); padding: 0 0.2em; border-radius: 3px; }
  .note { color: var(--ap-text-muted); margin: 0.3rem 0 0.6rem; }
  .warn { color: var(--ap-warn); }
  .side { display: flex; flex-wrap: wrap; gap: var(--ap-space-3) var(--ap-space-5); align-items: flex-start; margin: 0.4rem 0; }
  figure { margin: 0; min-width: 0; max-width: 100%; }
  figcaption { font: 600 var(--ap-text-sm) var(--ap-font); margin-bottom: 0.2rem; }
  /* A table wider (or taller) than its box scrolls in it, its headers staying in sight: the column names at the top,
     the row names ('engine', 'recomputed', a token) at the left, so a scrolled cell still says what it is. */
  .scroll { max-width: 100%; max-height: 70vh; overflow: auto; }
  .scroll thead th { position: sticky; top: 0; z-index: 1; }
  .scroll th[scope='row'], .scroll thead th:first-child { position: sticky; left: 0; z-index: 1; }
  .scroll thead th:first-child { z-index: 2; }
  table { border-collapse: collapse; font: var(--ap-text-xs) var(--ap-mono); margin: 0.3rem 0; }
  th, td { border: 1px solid var(--ap-border); padding: 0.1rem 0.35rem; text-align: right; white-space: nowrap; }
  th { font-weight: 600; background: var(--ap-surface); }
  /* Headers may wrap ("attention output" over two lines): on a phone the numbers' columns then fit the box. */
  thead th { white-space: normal; }
  th[scope='row'] { text-align: left; }
  caption, .table-caption { text-align: left; font: var(--ap-text-xs) var(--ap-font); color: var(--ap-text-muted); padding-bottom: 0.15rem; }
  .table-caption { margin: 0.3rem 0 0; }
  td.blocked { color: var(--ap-text-muted); background: var(--ap-surface-2); }
  .ok { color: var(--ap-ok); font-weight: 600; }
  .bad { color: var(--ap-danger); font-weight: 700; }
  .picker { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; margin: 0.3rem 0 0.6rem; }
  .picker button { font: inherit; font-size: var(--ap-text-sm); padding: 0.2rem 0.6rem; border: 1px solid var(--ap-border-strong);
    border-radius: var(--ap-radius-sm); background: var(--ap-surface); color: var(--ap-text); cursor: pointer; }
  .picker button:hover { border-color: var(--ap-accent); }
  .picker button:focus-visible { outline: 3px solid var(--ap-focus); outline-offset: 2px; }
  .picker button[aria-pressed='true'] { background: var(--ap-accent); border-color: var(--ap-accent); color: var(--ap-on-accent); font-weight: 600; }
  .picker select { font: inherit; font-size: var(--ap-text-sm); color: var(--ap-text); background: var(--ap-bg);
    border: 1px solid var(--ap-border-strong); border-radius: var(--ap-radius-sm); padding: 0.15rem 0.3rem; }
  ol.steps { list-style: none; padding: 0; margin: 0; display: grid; gap: var(--ap-space-3); }
  ol.steps > li { border-left: 3px solid var(--ap-accent); padding: 0.1rem 0 0.1rem var(--ap-space-3); min-width: 0; }
  ol.steps h3 { font-size: var(--ap-text-md); margin: 0 0 0.2rem; }
`,
];
