// The hint above the heads that says what the weights shown do and what to try. Random
// weights make every head look like noise, so the page opens on the positional preset
// (settings/settings.ts PAGE_DEFAULT_STATE): heads built (not trained) to attend to the
// previous token, the next one, themselves and the first one, which a sentence shows at a
// glance. Embeds and the <attention-playground> element keep the engine's defaults (random weights).
import { html, nothing } from 'lit';
import type { State } from '../settings/settings.js';

/** The views that draw attention weights, where the hint applies. */
const WEIGHT_VIEWS: readonly string[] = ['heads', 'head', 'lines', 'overview'];

const POSITIONAL_ROLES = ['the previous token', 'the next token', 'itself', 'the first token'];

/** What head h of the positional preset attends to (the roles repeat every four heads: core/src/presets.cpp). */
export function positionalRole(head: number): string {
  return POSITIONAL_ROLES[head % POSITIONAL_ROLES.length];
}

/**
 * The hint for the untrained model's weights (nothing for a trained or pretrained model: they describe themselves).
 * `state`: the page's settings with the model settings of the result on screen (not a value still being typed);
 * `block`: the attention block on screen (view-body.ts viewContext), which decides what the positional heads can do.
 */
export function weightsHint(state: State, block?: string) {
  if (state.model !== '' || !WEIGHT_VIEWS.includes(state.view)) return nothing;
  let text: string;
  if (state.preset === 'positional' && block === 'decoder.cross_attn') {
    // The keys are the source sentence after the encoder's layers, whose attention has already mixed its positions.
    text =
      'These heads are built, not trained, to attend by position within one sentence. In cross-attention the queries ' +
      'come from one sentence and the keys from the other, after the encoder\u2019s layers have mixed its positions, so the ' +
      'roles need not hold here: pick Block \u201cEncoder self-attention\u201d to see them.';
  } else if (state.preset === 'positional' && state.positional && state.positions === 'alibi') {
    // ALiBi adds nothing to the token vectors, so the built heads have no positions to read (core/src/presets.cpp).
    text =
      'With ALiBi these heads have no position to read: every score is ALiBi’s penalty alone, so each head ' +
      'attends to the nearest words, itself first (the Positions view draws each head’s slope). Pick Positions ' +
      '“RoPE” or “Sinusoidal” to see the built heads again.';
  } else if (state.preset === 'positional') {
    const causal = block === 'decoder.self_attn';
    const shown = Math.min(state.heads, POSITIONAL_ROLES.length);
    const roles = Array.from({ length: shown }, (_, h) => `head ${h} \u2192 ${positionalRole(h)}`).join(', ');
    text =
      `These heads are built, not trained, to attend by position: ${roles}` +
      `${state.heads > shown ? ` (heads ${shown}\u2013${state.heads - 1} repeat the four)` : ''}. ` +
      (causal
        ? 'Here the causal mask blocks the next token, so head 1 settles on the nearest key it may see: itself. '
        : '') +
      (state.positional
        ? 'Try: add a word; untick \u201cPositional encoding\u201d; set Weights to \u201cRandom\u201d (an untrained ' +
          'model: noise); or pick the trained model \u201cReverse 8 symbols\u201d.'
        : 'With positional encoding off no head can tell positions apart: tick it again.');
  } else if (state.preset === 'identity') {
    text =
      'Identity projections: each token attends to the tokens most like itself. Try: type a word twice; or set Weights to ' +
      '\u201cPositional heads\u201d.';
  } else {
    text =
      'Random weights: an untrained model\u2019s heads spread their weight with no pattern. Try: set Weights to ' +
      '\u201cPositional heads\u201d, or pick a trained model such as \u201cReverse 8 symbols\u201d.';
  }
  return html`<p class="first-view-hint" data-testid="weights-hint">${text}</p>`;
}
