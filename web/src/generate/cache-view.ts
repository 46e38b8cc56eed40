// The KV cache as it grows: one row per layer, one cell per position it holds (a sliding
// window layer holds its window only: a ring), with its bytes; and what it would hold
// without grouped-query attention's sharing of K/V heads.
import { html, nothing } from 'lit';
import { cacheLayers, cacheWithoutGrouping } from '../model/generation-view.js';
import type { GenerationModelFacts } from '../workers/generation-run.js';
import { fixed, formatBytes } from '../model/words.js';

export function cacheView(bytes: readonly number[], facts: GenerationModelFacts, positions: number) {
  const layers = cacheLayers(bytes, facts.kvHeads, facts.headDim);
  const total = bytes.reduce((a, b) => a + b, 0);
  const ungrouped = cacheWithoutGrouping(positions, facts.layers, facts.heads, facts.headDim);
  const width = Math.max(positions, 1);
  return html`<figure class="cache" data-testid="kv-cache" data-total-bytes=${total}>
    <figcaption>KV cache: ${formatBytes(total)} (K and V of ${facts.kvHeads} K/V head${facts.kvHeads > 1 ? 's' : ''} × ${facts.headDim}
      per position and layer)${
        facts.kvHeads < facts.heads
          ? html`; ${formatBytes(ungrouped)} without grouped-query attention (${facts.heads} heads)`
          : nothing
      }</figcaption>
    <div class="cache-rows">
      ${layers.map(
        (l) => html`<div class="cache-row" data-layer=${l.layer} data-bytes=${l.bytes} data-positions=${l.positions}>
          <span class="label">layer ${l.layer}</span>
          <span class="cells"><span class="held" style=${`width:${fixed((l.positions / width) * 100, 1)}%`}></span></span>
          <span class="value">${l.positions} pos · ${formatBytes(l.bytes)}</span>
        </div>`,
      )}
    </div>
  </figure>`;
}
