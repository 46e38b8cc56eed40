// The pretrained model's guesses under the views: GPT-2's next token after the last
// position, BERT's candidates for each [MASK], each with its probability (the softmax of
// that position's logits, computed where the engine runs). A token is written as tokenLabel
// writes it (a control character as '\v', not a tofu box), in a column of one width, cut
// with '…' (the whole label is its tooltip), so that every bar starts at the same x.
import { html, nothing } from 'lit';
import { tokenLabel } from '../model/token-label.js';
import { familyTokenizer, type Prediction, type PretrainedInfo } from '../model/pretrained-info.js';
import { fixed } from '../model/words.js';

export function predictionsView(info: PretrainedInfo, predictions: Prediction[], tokens: string[]) {
  const body = !info.predicts
    ? html`<p class="hint">This checkpoint has no language-model head (${info.architecture || info.family}): it gives hidden states, not token
        predictions.</p>`
    : predictions.length === 0
      ? html`<p class="hint">${
          info.causal
            ? 'No prediction.'
            : familyTokenizer(info.family) === 'wordpiece'
              ? `Write [MASK] in place of a word to see what ${info.name} guesses there.`
              : `${info.name} reads the whole text at once (no causal mask) and has no [MASK] token: it predicts no next token here.`
        }</p>`
      : predictions.map(
          (p) => html`<figure class="prediction" data-kind=${p.kind} data-position=${p.position}>
          <figcaption>${
            p.kind === 'next'
              ? html`Next token after \u201c${tokens[p.position] ?? ''}\u201d (position ${p.position})`
              : html`[MASK] at position ${p.position}`
          }</figcaption>
          <ol>${p.candidates.map(
            (c) => html`<li data-id=${c.id} data-probability=${c.probability}>
            <span class="token" title=${tokenLabel(c.token)}>${tokenLabel(c.token)}</span><span class="track"><span class="bar"
              style=${`width:${Math.max(1, 100 * c.probability)}%`}></span></span><span class="num">${fixed(100 * c.probability, 1)}%</span></li>`,
          )}</ol>
        </figure>`,
        );
  return html`<section class="predictions" data-testid="predictions" aria-label="Predictions">
    <style>
      /* The token column has one width (a long token is cut with '…'), so every bar starts at the same x. */
      .predictions li > * { vertical-align: middle; }
      .predictions li .token { display: inline-block; width: 9rem; min-width: 0; overflow: hidden; text-overflow: ellipsis;
        white-space: pre; margin-right: 0.4rem; }
      .predictions li .track { display: inline-block; width: 8rem; margin-right: 0.3rem; }
      .predictions li .track .bar { display: block; margin: 0; }
    </style>
    <h3>${info.causal ? 'Next-token prediction' : 'Masked-token prediction'}</h3>
    ${body}
    ${info.predicts && predictions.length ? html`<p class="status">Top ${predictions[0].candidates.length} of ${info.vocabSize} tokens; probabilities are the softmax of the logits.</p>` : nothing}
  </section>`;
}
