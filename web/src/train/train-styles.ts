// The Train view's styles (its controls share the playground's).
import { css } from 'lit';
import { CONTROL_STYLES } from '../ui/controls.js';
import { DRAWER_STYLES, NARROW_CONTAINER } from '../ui/settings-drawer.js';

export const TRAIN_STYLES = [
  CONTROL_STYLES,
  DRAWER_STYLES,
  css`
  :host { display: block; font: 1rem/1.4 system-ui, sans-serif; color: #111; container-type: inline-size; }
  .layout { display: grid; gap: 1rem; grid-template-columns: minmax(12rem, 16rem) minmax(0, 1fr); grid-template-areas: 'aside main'; }
  aside { grid-area: aside; }
  main { grid-area: main; min-width: 0; }
  .layout.bare { grid-template-columns: minmax(0, 1fr); grid-template-areas: 'main'; }
  /* A narrow container (a phone): the settings first, folded into a drawer (settings-drawer.ts), so Start stays near the top. */
  @container ${NARROW_CONTAINER} { .layout { grid-template-columns: minmax(0, 1fr); grid-template-areas: 'aside' 'main'; } }
  fieldset { border: 1px solid #ddd; border-radius: 6px; margin: 0 0 0.7rem; padding: 0.4rem 0.6rem 0; min-width: 0; }
  fieldset select, fieldset input[type='number'] { width: 100%; box-sizing: border-box; }
  legend { font-weight: 700; font-size: 0.9rem; }
  .checkpoints { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; margin-bottom: 0.5rem; font-size: 0.9rem; }
  .checkpoints button[aria-pressed='true'] { background: #1a73e8; color: #fff; border-color: #1a73e8; }
  .head { display: flex; flex-direction: column; gap: 0.2rem; min-width: 0; }
  .head.off ap-heatmap { opacity: 0.45; }
  .head-switch { font-size: 0.8rem; padding: 0.15rem 0.5rem; align-self: flex-start; }
  .head-switch[aria-pressed='true'] { background: #b00020; color: #fff; border-color: #b00020; }
  .ablation { font-size: 0.9rem; background: #fff7e0; border-left: 3px solid #e8a317; padding: 0.3rem 0.6rem; }
  .buttons { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; margin-bottom: 0.4rem; }
  /* The Load weights button sits in a <label> (for its file input): not the settings' bold label type. */
  .buttons label { font-weight: inherit; font-size: inherit; }
  button { font: inherit; padding: 0.35rem 0.9rem; cursor: pointer; border-radius: 5px; border: 1px solid #888; background: #f4f4f4; }
  button.primary { background: #1a73e8; color: #fff; border-color: #1a73e8; font-weight: 700; }
  button:disabled { opacity: 0.5; cursor: default; }
  button:focus-visible { outline: 3px solid #1a73e8; outline-offset: 1px; }
  .progress { font-variant-numeric: tabular-nums; margin: 0.3rem 0; }
  .task { color: #333; font-size: 0.9rem; max-width: 46rem; margin: 0 0 0.6rem; }
  .plots { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 22rem), 1fr)); }
  .probe-tokens { display: flex; flex-wrap: wrap; gap: 0.25rem; margin: 0.4rem 0; font: 0.8rem ui-monospace, monospace; }
  .tok { border: 1px solid #ccc; border-radius: 4px; padding: 0.1rem 0.3rem; text-align: center; min-width: 1.4rem; }
  .tok small { display: block; color: #555; font-size: 0.7rem; }
  .tok.right { border-color: #2e7d32; background: #e8f5e9; }
  .tok.wrong { border-color: #b00020; background: #fdecee; }
  .tok.written { border-style: dashed; border-color: #1a73e8; background: #f3f7fe; }
  .probe-box { display: flex; flex-wrap: wrap; gap: 0.4rem; align-items: center; margin: 0.4rem 0; }
  .probe-box label { flex-basis: 100%; font-size: 0.85rem; font-weight: 600; }
  .probe-box input { font: 0.95rem ui-monospace, monospace; padding: 0.3rem; flex: 1 1 12rem; min-width: 0; }
  .probe-box .error { flex-basis: 100%; }
  .heads { display: grid; gap: 0.8rem; grid-template-columns: repeat(auto-fill, minmax(min(100%, 13rem), 1fr)); }
  .folded { font-size: 0.85rem; color: #555; margin: 0.2rem 0; }
  button.fold { margin: 0.6rem 0 0.4rem; }
  .error { color: #b00020; }
  .run-error { border: 1px solid #b00020; background: #fdecee; padding: 0.4rem 0.6rem; border-radius: 4px; }
  h3 { font-size: 1rem; margin: 1rem 0 0.3rem; }
  .probe-runs { display: grid; gap: 1.5rem; grid-template-columns: repeat(auto-fit, minmax(min(100%, 30rem), 1fr)); }
  .summary { border-left: 4px solid #1a73e8; padding: 0.3rem 0.6rem; background: #f3f7fe; max-width: 46rem; }
`,
];
