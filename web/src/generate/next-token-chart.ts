// The next-token distribution as bars (model/next-token.ts's ShownDistribution): the top
// candidates under the panel's settings and "the rest"; a bar is a button: "what if this
// token?" branches there. Text as Lit text bindings only.
import { html, nothing } from 'lit';
import type { ShownDistribution } from '../model/next-token.js';
import { fixed } from '../model/words.js';

export interface ChartOptions {
  position: number;
  /** The token the branch shown has at this position (drawn, or chosen to branch). */
  chosenToken: number;
  /** The entropy at the draw (the engine's); the caption gives the shown distribution's (`shown.entropy`). */
  entropy: number;
  /** The sliders are where they were at the draw (else the bars are the preview of the new settings). */
  sameSettings: boolean;
  onPick(token: number): void;
  disabled: boolean;
}

const percent = (p: number) => `${fixed(p * 100, p < 0.001 && p > 0 ? 3 : 1)}%`;

export function nextTokenChart(shown: ShownDistribution, o: ChartOptions) {
  return html`<figure class="chart" data-testid="next-token-chart" data-position=${o.position}>
    <figcaption>Position ${o.position}: the distribution its token is drawn from${
      o.sameSettings ? nothing : html` <em>(redrawn for the settings now; the next step draws with them)</em>`
    } · ${entropyText(shown, o)} · ${shown.kept.toLocaleString('en')} tokens possible${
      shown.exact ? nothing : html` <span title="the spread of the tokens beyond the candidates is estimated">≈</span>`
    }</figcaption>
    <ol class="bars">
      ${shown.bars.map(
        (b) => html`<li>
          <button class="bar ${b.token === o.chosenToken ? 'chosen' : ''} ${b.kept ? '' : 'filtered'}" data-token=${b.token}
            ?disabled=${o.disabled} title=${`what if “${b.text}”? Branch here with it`} @click=${() => o.onPick(b.token)}>
            <span class="label">${b.text}</span>
            <span class="track"><span class="fill" style=${`width:${fixed(b.probability * 100, 2)}%`}></span></span>
            <span class="value" data-probability=${b.probability}>${valueText(b, b.token === o.chosenToken)}</span>
          </button>
        </li>`,
      )}
      <li class="rest"><span class="label">the rest</span>
        <span class="track"><span class="fill" style=${`width:${fixed(shown.rest * 100, 2)}%`}></span></span>
        <span class="value" data-testid="rest">${percent(shown.rest)}</span></li>
    </ol>
  </figure>`;
}

/**
 * A bar's value: its probability, or for a token the settings filter out 'filtered out', unless the branch has it
 * there (a person branched on it: it was picked, not drawn).
 */
function valueText(bar: ShownDistribution['bars'][number], chosen: boolean): string {
  if (bar.kept) return percent(bar.probability);
  return chosen ? 'picked (outside the filters)' : 'filtered out';
}

/** The shown distribution's entropy: the draw's, or the redrawn one's ('≈' when the redraw is), beside the draw's. */
function entropyText(shown: ShownDistribution, o: ChartOptions) {
  if (o.sameSettings || !Number.isFinite(shown.entropy)) return html`entropy ${fixed(o.entropy, 2)} nats`;
  return html`entropy ${
    shown.exact ? nothing : html`<span title="the spread of the tokens beyond the candidates is estimated">≈</span>`
  }${fixed(shown.entropy, 2)} nats (${fixed(o.entropy, 2)} at the draw)`;
}
