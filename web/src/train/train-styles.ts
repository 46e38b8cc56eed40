// The Train view's styles (its controls share the playground's).
import { css } from 'lit';
import { CONTROL_STYLES } from '../ui/controls.js';
import { DRAWER_STYLES, NARROW_CONTAINER } from '../ui/settings-drawer.js';
import { FIGURE_STYLES } from '../ui/tokens.js';

export const TRAIN_STYLES = [
  CONTROL_STYLES,
  DRAWER_STYLES,
  FIGURE_STYLES,
  css`
  :host { display: block; font: var(--ap-text-md)/var(--ap-leading) var(--ap-font); color: var(--ap-text); container-type: inline-size; }
  .layout { display: grid; gap: 1rem; grid-template-columns: minmax(12rem, 16rem) minmax(0, 1fr); grid-template-areas: 'aside main'; }
  aside { grid-area: aside; }
  main { grid-area: main; min-width: 0; }
  .layout.bare { grid-template-columns: minmax(0, 1fr); grid-template-areas: 'main'; }
  /* A narrow container (a phone): the settings first, folded into a drawer (settings-drawer.ts), so Start stays near the top. */
  @container ${NARROW_CONTAINER} { .layout { grid-template-columns: minmax(0, 1fr); grid-template-areas: 'aside' 'main'; } }
  fieldset { border: 1px solid var(--ap-border); border-radius: var(--ap-radius); margin: 0 0 0.7rem; padding: 0.4rem 0.6rem 0; min-width: 0; }
  fieldset select, fieldset input[type='number'] { width: 100%; box-sizing: border-box; }
  legend { font-weight: 700; font-size: var(--ap-text-sm); }
  .checkpoints { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; margin-bottom: 0.5rem; font-size: 0.9rem; }
  .checkpoints button[aria-pressed='true'] { background: var(--ap-accent); color: var(--ap-on-accent); border-color: var(--ap-accent); }
  .head { display: flex; flex-direction: column; gap: 0.2rem; min-width: 0; }
  .head.off ap-heatmap { opacity: 0.45; }
  .head-switch { font-size: 0.8rem; padding: 0.15rem 0.5rem; align-self: flex-start; }
  .head-switch[aria-pressed='true'] { background: var(--ap-danger); color: var(--ap-bg); border-color: var(--ap-danger); }
  .ablation { font-size: var(--ap-text-sm); background: var(--ap-warn-soft); border-left: 3px solid var(--ap-warn-border); padding: 0.3rem 0.6rem; }
  .buttons { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; margin-bottom: 0.4rem; }
  /* The timeline's slider: a setting's column would grow it to the range inputs' 6rem basis (a tall empty band and a
     100 px focus box); it keeps its own height, the width of the view. */
  .timeline input[type='range'] { flex: 0 0 auto; width: 100%; max-width: 40rem; }
  /* The Load weights button sits in a <label> (for its file input): not the settings' bold label type. */
  .buttons label { font-weight: inherit; font-size: inherit; }
  button { font: inherit; padding: 0.35rem 0.9rem; cursor: pointer; border-radius: var(--ap-radius); border: 1px solid var(--ap-border-strong); background: var(--ap-surface); color: var(--ap-text); }
  button.primary { background: var(--ap-accent); color: var(--ap-on-accent); border-color: var(--ap-accent); font-weight: 700; }
  button:disabled { opacity: 0.5; cursor: default; }
  button:focus-visible { outline: 3px solid var(--ap-focus); outline-offset: 1px; }
  .progress { font-variant-numeric: tabular-nums; margin: 0.3rem 0; }
  .task { color: var(--ap-text); font-size: var(--ap-text-sm); max-width: 46rem; margin: 0 0 0.6rem; }
  .plots { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 22rem), 1fr)); }
  .probe-tokens { display: flex; flex-wrap: wrap; gap: 0.25rem; margin: 0.4rem 0; font: var(--ap-text-xs) var(--ap-mono); }
  .tok { border: 1px solid var(--ap-border); border-radius: var(--ap-radius-sm); padding: 0.1rem 0.3rem; text-align: center; min-width: 1.4rem; }
  .tok small { display: block; color: var(--ap-text-muted); font-size: var(--ap-text-xs); }
  .tok.right { border-color: var(--ap-ok-border); background: var(--ap-ok-soft); }
  .tok.wrong { border-color: var(--ap-danger); background: var(--ap-danger-soft); }
  .tok.written { border-style: dashed; border-color: var(--ap-accent); background: var(--ap-accent-soft); }
  .probe-box { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; margin: 0.4rem 0; }
  .probe-box label { flex-basis: 100%; font-size: var(--ap-text-sm); font-weight: 600; }
  .probe-box input { font: var(--ap-text-md) var(--ap-mono); color: var(--ap-text); background: var(--ap-bg); border: 1px solid var(--ap-border-strong); border-radius: var(--ap-radius-sm); padding: 0.3rem; flex: 1 1 12rem; min-width: 0; }
  .probe-box .error { flex-basis: 100%; }
  .heads { display: grid; gap: 0.8rem; grid-template-columns: repeat(auto-fill, minmax(min(100%, 15rem), 1fr)); }
  /* Grid items take their track's width, not their content's: a drawing measures its box (ui/host-width.ts), and an
     item as wide as its last drawing (min-width: auto) would keep it from ever seeing the track shrink. */
  .layout > *, .plots > *, .probe-runs > *, .heads > * { min-width: 0; }
  .folded { font-size: var(--ap-text-sm); color: var(--ap-text-muted); margin: 0.2rem 0; }
  button.fold { margin: 0.6rem 0 0.4rem; }
  .error { color: var(--ap-danger); }
  .run-error { border: 1px solid var(--ap-danger); background: var(--ap-danger-soft); padding: 0.4rem 0.6rem; border-radius: var(--ap-radius-sm); }
  h3 { font-size: var(--ap-text-md); margin: 1rem 0 0.3rem; }
  .probe-runs { display: grid; gap: 1.5rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 30rem), 1fr)); }
  .summary { border-left: 4px solid var(--ap-accent); padding: 0.3rem 0.6rem; background: var(--ap-accent-soft); max-width: 46rem; }
`,
];
