// The pretrained model's guesses under the views: GPT-2's next token after the last
// position, BERT's candidates for each [MASK], each with its probability (the softmax of
// that position's logits, computed where the engine runs).
import { html, nothing } from 'lit';
import type { Prediction, PretrainedInfo } from '../model/pretrained-info.js';

export function predictionsView(info: PretrainedInfo, predictions: Prediction[], tokens: string[]) {
  const body = !info.predicts
    ? html`<p class="hint">This checkpoint has no language-model head (${info.architecture || info.family}): it gives hidden states, not token
        predictions.</p>`
    : predictions.length === 0
      ? html`<p class="hint">${info.causal ? 'No prediction.' : `Write [MASK] in place of a word to see what ${info.name} guesses there.`}</p>`
      : predictions.map(
          (p) => html`<figure class="prediction" data-kind=${p.kind} data-position=${p.position}>
          <figcaption>${
            p.kind === 'next'
              ? html`Next token after \u201c${tokens[p.position] ?? ''}\u201d (position ${p.position})`
              : html`[MASK] at position ${p.position}`
          }</figcaption>
          <ol>${p.candidates.map(
            (c) => html`<li data-id=${c.id} data-probability=${c.probability}>
            <span class="token">${c.token}</span><span class="bar" style=${`width:${Math.max(1, 8 * c.probability)}rem`}></span><span
              class="num">${(100 * c.probability).toFixed(1)}%</span></li>`,
          )}</ol>
        </figure>`,
        );
  return html`<section class="predictions" data-testid="predictions" aria-label="Predictions">
    <h3>${info.causal ? 'Next-token prediction' : 'Masked-token prediction'}</h3>
    ${body}
    ${info.predicts && predictions.length ? html`<p class="status">Top ${predictions[0].candidates.length} of ${info.vocabSize} tokens; probabilities are the softmax of the logits.</p>` : nothing}
  </section>`;
}
