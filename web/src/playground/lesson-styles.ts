// The look shared by the views that argue from numbers (Row by row, Head split, Step by
// step): a formula line, matrices side by side, and tables of the numbers with a check
// mark where a recomputed value agrees with the engine's.
import { css } from 'lit';

export const LESSON_STYLES = css`
  :host { display: block; font: 0.9rem/1.45 system-ui, sans-serif; color: #111; }
  .formula { margin: 0 0 0.5rem; }
  .formula code, td code, .note code { font: 0.88em ui-monospace, monospace; background: #f3f3f3; padding: 0 0.2em; border-radius: 3px; }
  .note { color: #444; margin: 0.3rem 0 0.6rem; }
  .warn { color: #8a4b00; }
  .side { display: flex; flex-wrap: wrap; gap: 0.8rem 1.2rem; align-items: flex-start; margin: 0.4rem 0; }
  figure { margin: 0; min-width: 0; max-width: 100%; }
  figcaption { font: 600 0.82rem system-ui, sans-serif; margin-bottom: 0.2rem; }
  .scroll { max-width: 100%; overflow-x: auto; }
  table { border-collapse: collapse; font: 0.78rem ui-monospace, monospace; margin: 0.3rem 0; }
  th, td { border: 1px solid #ddd; padding: 0.1rem 0.35rem; text-align: right; white-space: nowrap; }
  th { font-weight: 600; background: #fafafa; }
  th[scope='row'] { text-align: left; }
  caption, .table-caption { text-align: left; font: 0.8rem system-ui, sans-serif; color: #444; padding-bottom: 0.15rem; }
  .table-caption { margin: 0.3rem 0 0; }
  td.blocked { color: #777; background: #eee; }
  .ok { color: #0a6b2b; font-weight: 600; }
  .bad { color: #b00020; font-weight: 700; }
  .picker { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; margin: 0.3rem 0 0.6rem; }
  .picker button { font: inherit; font-size: 0.82rem; padding: 0.15rem 0.5rem; border: 1px solid #bbb; border-radius: 4px; background: #fafafa; cursor: pointer; }
  .picker button[aria-pressed='true'] { background: #1a73e8; border-color: #1a73e8; color: #fff; font-weight: 600; }
  .picker select { font: inherit; font-size: 0.85rem; }
  ol.steps { list-style: none; padding: 0; margin: 0; display: grid; gap: 0.9rem; }
  ol.steps > li { border-left: 3px solid #1a73e8; padding: 0.1rem 0 0.1rem 0.7rem; min-width: 0; }
  ol.steps h3 { font-size: 0.95rem; margin: 0 0 0.2rem; }
`;
