// Types for `import 'attention-playground/element'` (dist/element.js, built by Vite).
import type { Trace } from 'attention-playground';

/**
 * <attention-playground>: a live attention view for tutorials. Attributes: every
 * playground setting in kebab-case (text, source, mode, d-model, heads, kv-heads, layers, window, seed,
 * preset, scale, residual, positional, positions, activation, ffn, norm, norm-type, view, stage, color-scale, block, layer,
 * head, sequence, overlay, tensor, model, weights, q8-activations — how a pretrained checkpoint loaded with the model
 * picker holds its weights), plus `controls` ('all' | 'none' | a comma list of setting names,
 * 'views', 'export', 'model', 'status' — the engine, milliseconds and heap line — and 'all') and `compare-text`. Fires 'trace' (detail.trace) after each run.
 * Train mode: `checkpoint` (a shipped checkpoint's id — sort, reverse, induction — or the
 * URL of a checkpoint's .json) shows a trained model; `train` with the Train view's
 * settings as attributes (task, length, symbols, d-model, heads, layers, ffn-dim,
 * residual, scale, compare, steps, stop-at, eval-every, lr, seed, ...) trains live,
 * `autostart` starting it; `controls` then lists those settings plus 'buttons' and
 * 'checkpoints' (default 'buttons'). Unknown attributes are reported in the element.
 * Generate mode: `generate` shows the Generate panel on the model the element holds (a shipped
 * trained decoder named by `model`, or a pretrained one loaded with the model picker), its
 * state as attributes (prompt, chat, temperature, top-k, top-p, min-p, repetition-penalty,
 * seed, max-new-tokens, path, tree), and a link to the playground page (`playground`: its URL,
 * default index.html beside the script); it loads attention-playground-generate.js and
 * attention-playground-pretrained.js from beside the element's script.
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
