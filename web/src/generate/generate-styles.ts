// The Generate panel's styles (the page's design tokens: ui/tokens.ts).
import { css } from 'lit';
import { FIGURE_STYLES } from '../ui/tokens.js';
import { FIELD_STYLES } from '../ui/controls.js';

export const GENERATE_STYLES = [
  FIGURE_STYLES,
  FIELD_STYLES,
  css`
  :host { display: block; font: var(--ap-text-md)/var(--ap-leading) var(--ap-font); color: var(--ap-text); container-type: inline-size; }
  .panel { border-top: 1px solid var(--ap-border); margin-top: 1rem; padding-top: 0.5rem; }
  h2 { font-size: 1.15rem; margin: 0 0 0.4rem; }
  h3 { font-size: var(--ap-text-md); margin: 0.6rem 0 0.3rem; }
  .why { color: var(--ap-text-muted, var(--ap-text)); max-width: 46rem; }
  .prompt { display: flex; flex-direction: column; gap: 0.25rem; max-width: 46rem; }
  .prompt > label { font-weight: 700; font-size: var(--ap-text-sm); }
  textarea { font: inherit; padding: 0.3rem; border: 1px solid var(--ap-border-strong); border-radius: var(--ap-radius); background: var(--ap-surface); color: var(--ap-text); }
  .chat { font-size: var(--ap-text-sm); }
  .prompt > .hint { margin: 0; font-size: var(--ap-text-sm); color: var(--ap-text-muted, var(--ap-text)); }
  .rendered { white-space: pre-wrap; font-family: var(--ap-mono, monospace); font-size: var(--ap-text-sm); margin: 0; }
  .actions { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; margin: 0.5rem 0; }
  button { font: inherit; padding: 0.3rem 0.8rem; cursor: pointer; border-radius: var(--ap-radius); border: 1px solid var(--ap-border-strong); background: var(--ap-surface); color: var(--ap-text); }
  button[data-action='generate'] { background: var(--ap-accent); color: var(--ap-on-accent); border-color: var(--ap-accent); font-weight: 700; }
  button:disabled { opacity: 0.5; cursor: default; }
  button:focus-visible { outline: 3px solid var(--ap-focus); outline-offset: 1px; }
  .speed, .status { font-size: var(--ap-text-sm); font-variant-numeric: tabular-nums; }
  .error { color: var(--ap-danger); }
  .sliders { display: flex; flex-wrap: wrap; gap: 0.4rem 1.2rem; }
  .setting { display: inline-flex; align-items: center; gap: 0.4rem; font-size: var(--ap-text-sm); }
  .setting span { font-weight: 700; }
  .setting output { font-variant-numeric: tabular-nums; min-width: 2.5rem; }
  .setting input[type='number'] { width: 6rem; }
  .drawer { margin: 0.3rem 0; font-size: var(--ap-text-sm); }
  .drawer .setting { margin: 0.2rem 1rem 0.2rem 0; }
  .text { line-height: 1.9; max-width: 60rem; }
  .token { white-space: pre; }
  .prompt-token { color: var(--ap-text); }
  .new-token { padding: 0 0.15rem; border-radius: 3px; border: 1px solid var(--ap-accent); background: var(--ap-accent-soft, var(--ap-surface)); font: inherit; }
  .new-token.selected { outline: 2px solid var(--ap-focus); }
  .columns { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 1rem; }
  @container (max-width: 40rem) { .columns { grid-template-columns: minmax(0, 1fr); } }
  .chart, .cache { margin: 0; }
  .chart figcaption, .cache figcaption { font-size: var(--ap-text-sm); margin-bottom: 0.3rem; }
  .bars { list-style: none; padding: 0; margin: 0; }
  .bars li { margin: 0.1rem 0; }
  .bar, .rest { display: grid; grid-template-columns: 8rem minmax(4rem, 1fr) 6.5rem; gap: 0.4rem; align-items: center; width: 100%; text-align: left; padding: 0.1rem 0.3rem; }
  .bar .label, .rest .label { white-space: pre; overflow: hidden; text-overflow: ellipsis; }
  .track { height: 0.8rem; background: var(--ap-border); border-radius: 2px; overflow: hidden; }
  .fill { display: block; height: 100%; background: var(--ap-accent); }
  .bar.chosen { border-color: var(--ap-accent); border-width: 2px; }
  .bar.filtered .fill { background: transparent; }
  .bar.filtered { opacity: 0.6; }
  .rest .fill { background: var(--ap-border-strong); }
  .value { font-variant-numeric: tabular-nums; font-size: var(--ap-text-sm); }
  .tree ul { list-style: none; padding-left: 1rem; margin: 0.15rem 0; }
  .tree > ul { padding-left: 0; }
  .branch { padding: 0.05rem 0.4rem; font-size: var(--ap-text-sm); white-space: pre-wrap; text-align: left; }
  .branch.current { border-color: var(--ap-accent); border-width: 2px; }
  .cache-rows { display: flex; flex-direction: column; gap: 2px; }
  .cache-row { display: grid; grid-template-columns: 4.5rem minmax(4rem, 1fr) 8rem; gap: 0.4rem; align-items: center; font-size: var(--ap-text-sm); }
  .cells { height: 0.7rem; background: var(--ap-border); border-radius: 2px; overflow: hidden; }
  .held { display: block; height: 100%; background: var(--ap-accent); transition: width 0.1s; }
  .growth-controls { display: flex; flex-wrap: wrap; align-items: center; gap: 0.4rem 1.2rem; margin-bottom: 0.4rem; }
  .growth-controls label { display: inline-flex; align-items: center; gap: 0.4rem; font-size: var(--ap-text-sm); font-weight: 700; }
  .growth-controls select { font-size: var(--ap-text-sm); }
  .heads { display: flex; flex-wrap: wrap; gap: 0.5rem; }
  .head { margin: 0; width: 14rem; max-width: 100%; }
  .growth ap-line-view { display: block; max-width: 30rem; }
  `,
];
