// Types for `import 'attention-playground/element'` (dist/element.js, built by Vite).
import type { Trace } from 'attention-playground';

/**
 * <attention-playground>: a live attention view for tutorials. Attributes: every
 * playground setting in kebab-case (text, source, mode, d-model, heads, layers, seed,
 * preset, scale, residual, positional, activation, norm, view, stage, block, layer,
 * head, sequence), plus `controls` ('all' | 'none' | a comma list of setting names,
 * 'views', 'export') and `compare-text`. Fires 'trace' (detail.trace) after each run.
 */
interface AttentionPlaygroundElement extends HTMLElement {
  controls: string;
  compareText: string;
}

export {};

declare global {
  interface HTMLElementTagNameMap {
    'attention-playground': AttentionPlaygroundElement;
  }
  interface HTMLElementEventMap {
    trace: CustomEvent<{ trace: Trace }>;
  }
}
