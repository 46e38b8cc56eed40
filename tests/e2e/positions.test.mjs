// The modern settings seen in the playground, in real Chromium against the production build:
// the Positions view's RoPE pairs and its two equal relative scores (checked against the
// engine in Node, and after moving both positions by another amount), ALiBi's slopes,
// the added position vectors; the sliding window as its own mask in the Masks view with
// its reach growing layer by layer; the K/V groups and the KV cache bytes in Head split;
// and a refused combination shown at its setting.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadAttention } from '../../dist/node.js';
import { openPage } from '../support/browser.mjs';
import { SHOTS, useSite } from '../support/site.mjs';

const site = useSite();
const engine = await loadAttention();
const TEXT = 'the cat sat on the mat and then it slept';

async function open(hash, ready) {
  const { page, errors } = await openPage(
    site.browser,
    { viewport: { width: 1280, height: 900 } },
    { onlyFrom: site.url },
  );
  await page.goto(site.url + hash);
  await page.locator(ready).first().waitFor();
  return { page, errors };
}

const hashOf = (settings) => `#${new URLSearchParams({ text: TEXT, ...settings })}`;

describe('the Positions view', () => {
  test('RoPE: the pairs turn, and both positions moved by the same amount give the same score as the engine', async () => {
    const settings = { view: 'positions', positions: 'rope', preset: 'random', mode: 'decoder', head: '2' };
    const { page, errors } = await open(hashOf(settings), '[data-testid="relative-scores"]');
    assert.equal(await page.locator('[data-testid="positions-view"]').getAttribute('data-kind'), 'rope');
    // d_k = 64 / 4 = 16: 8 pairs, drawn with their frequencies 10000^(−2i/16).
    const freqs = await page
      .locator('[data-testid="rope-pairs"] figure')
      .evaluateAll((els) => els.map((e) => Number(e.dataset.invFreq)));
    assert.equal(freqs.length, 8);
    freqs.forEach((f, i) => assert.ok(Math.abs(f - Math.pow(10000, -i / 8)) < 1e-12, `pair ${i}: ${f}`));
    assert.ok(Number(await page.locator('[data-testid="rope-check"]').getAttribute('data-max-difference')) < 1e-4);

    const table = page.locator('[data-testid="relative-scores"]');
    const read = async () => ({
      score: Number(await table.getAttribute('data-score')),
      shifted: Number(await table.getAttribute('data-shifted')),
      engine: Number(await table.getAttribute('data-engine')),
      same: await table.getAttribute('data-same'),
      shown: await table.locator('td').allTextContents(),
    });
    // The default pair: query 3, key 1, moved by 5. The engine in Node gives the same score for the same model.
    const trace = engine.run({ texts: [TEXT], mode: 'decoder', config: { positions: 'rope' } });
    const scores = trace.stages.find((s) => s.name === 'decoder.self_attn.scores' && s.layer === 0);
    const expected = scores.data[(2 * 10 + 3) * 10 + 1];
    let r = await read();
    assert.ok(Math.abs(r.engine - expected) < 1e-5, `${r.engine} vs ${expected}`);
    assert.ok(Math.abs(r.score - r.engine) < 1e-4 * (1 + Math.abs(r.engine)));
    assert.ok(Math.abs(r.shifted - r.score) < 1e-6 * (1 + Math.abs(r.score)));
    assert.equal(r.same, 'true');
    // The page prints the two equal numbers the same.
    assert.equal(r.shown[0], r.shown[1]);

    // Another key and another shift: still equal, and different from before (the distance changed).
    await page.locator('[data-testid="positions-key"]').selectOption('0');
    await page.locator('[data-testid="positions-shift"]').fill('40');
    await page.locator('[data-testid="positions-shift"]').dispatchEvent('change');
    await page.waitForFunction(() =>
      document
        .querySelector('ap-playground')
        .shadowRoot.querySelector('ap-positions')
        .shadowRoot.querySelector('[data-testid="relative-scores"]')
        .textContent.includes('moved by 40'),
    );
    const before = r.score;
    r = await read();
    assert.equal(r.same, 'true');
    assert.ok(Math.abs(r.shifted - r.score) < 1e-6 * (1 + Math.abs(r.score)));
    assert.ok(Math.abs(r.engine - scores.data[(2 * 10 + 3) * 10 + 0]) < 1e-5);
    assert.notEqual(r.score, before);
    await page.screenshot({ path: `${SHOTS}/positions-rope.png`, fullPage: true });
    assert.deepEqual(errors, []);
  });

  test('ALiBi: each head’s slope, read off the recorded bias; sinusoidal: the added vectors', async () => {
    const { page, errors } = await open(
      hashOf({ view: 'positions', positions: 'alibi', preset: 'random', mode: 'decoder' }),
      '[data-testid="alibi-slopes"]',
    );
    const rows = await page
      .locator('[data-testid="alibi-slopes"] tbody tr')
      .evaluateAll((els) => els.map((e) => [Number(e.dataset.slope), Number(e.dataset.recorded)]));
    assert.deepEqual(
      rows.map(([s]) => s),
      [0.25, 0.0625, 0.015625, 0.00390625],
    );
    for (const [slope, recorded] of rows) assert.ok(Math.abs(slope - recorded) < 1e-6);
    await page.screenshot({ path: `${SHOTS}/positions-alibi.png`, fullPage: true });

    await page.goto(site.url + hashOf({ view: 'positions', preset: 'random' }));
    await page.locator('[data-testid="added-check"]').waitFor();
    assert.equal(await page.locator('[data-testid="positions-view"]').getAttribute('data-kind'), 'added');
    assert.ok(Number(await page.locator('[data-testid="added-check"]').getAttribute('data-max-difference')) < 1e-6);
    // An old link that switches positions off still does.
    await page.goto(site.url + hashOf({ view: 'positions', positional: '0' }));
    await page.locator('[data-testid="no-positions"]').waitFor();
    assert.equal(await page.locator('#setting-positional').isChecked(), false);
    assert.deepEqual(errors, []);
  });
});

describe('the sliding window and grouped K/V heads', () => {
  test('Masks: the window is its own mask, combined with causal; the reach grows by w − 1 per layer', async () => {
    const { page, errors } = await open(
      hashOf({ view: 'masks', window: '3', layers: '3', mode: 'decoder', preset: 'random' }),
      'ap-heatmap[data-mask="window"]',
    );
    const blockedOf = (mask) =>
      page.locator(`ap-heatmap[data-mask="${mask}"]`).evaluate((el) =>
        [...el.shadowRoot.querySelectorAll('rect[data-row]')]
          .filter((c) => c.dataset.blocked === '1')
          .map((c) => `${c.dataset.row},${c.dataset.col}`)
          .sort(),
      );
    const window = await blockedOf('window');
    const causal = await blockedOf('causal');
    const combined = await blockedOf('combined');
    // Query i is blocked from keys j <= i - 3: 7 + 6 + ... + 1 = 28 cells of 10 x 10.
    assert.equal(window.length, 28);
    assert.ok(window.includes('5,2') && !window.includes('5,3'));
    assert.equal(causal.length, 45);
    assert.deepEqual(combined, [...new Set([...window, ...causal])].sort());
    const reach = page.locator('[data-testid="window-reach"]');
    assert.equal(await reach.getAttribute('data-window'), '3');
    assert.equal(await reach.getAttribute('data-farthest'), '2,4,6');
    // The reach figure: the last word (9) reaches keys 7.. after layer 0, 5.. after 1, 3.. after 2.
    const reachBlocked = await blockedOf('reach');
    assert.deepEqual(
      [0, 1, 2].map((l) => reachBlocked.filter((c) => c.startsWith(`${l},`)).length),
      [7, 5, 3],
    );
    await page.screenshot({ path: `${SHOTS}/masks-window.png`, fullPage: true });
    assert.deepEqual(errors, []);
  });

  test('Head split: 8 query heads in 2 groups, and the KV cache per token as MHA, GQA and MQA', async () => {
    const { page, errors } = await open(
      hashOf({ view: 'split', heads: '8', kvHeads: '2', preset: 'random' }),
      '[data-testid="kv-groups"]',
    );
    const groups = page.locator('[data-testid="kv-groups"]');
    assert.equal(await groups.getAttribute('data-kv-heads'), '2');
    assert.equal(await groups.locator('[data-kv-head]').count(), 2);
    assert.match(await groups.locator('[data-kv-head="1"]').textContent(), /q head 4.*q head 7/s);
    const cache = await page
      .locator('[data-testid="kv-cache"] tbody tr')
      .evaluateAll((els) => els.map((e) => [e.dataset.kind, Number(e.dataset.bytes), e.dataset.current]));
    // 2 (K and V) x 2 layers x H_kv x d_k 8 x 4 bytes.
    assert.deepEqual(cache, [
      ['MHA', 1024, 'false'],
      ['GQA', 256, 'true'],
      ['MQA', 128, 'false'],
    ]);
    // K's projection is (H_kv d_k, E) = (16, 64), cut into 2 blocks.
    await page.locator('button[data-projection="k"]').click();
    await page.waitForFunction(() =>
      document
        .querySelector('ap-playground')
        .shadowRoot.querySelector('ap-head-split')
        .shadowRoot.querySelector('[data-testid="split-shapes"]')
        .textContent.includes('16 × 64'),
    );
    assert.equal(await page.locator('[data-testid="split"] figure[data-head]').count(), 2);
    await page.screenshot({ path: `${SHOTS}/split-gqa.png`, fullPage: true });

    // K/V heads that do not divide the heads: refused at the setting, in the page's words.
    await page.locator('#setting-kvHeads').fill('3');
    await page.locator('text=must divide heads').first().waitFor();
    assert.deepEqual(errors, []);
  });

  test('Values: after an RMSNorm the view says the mean stays, and the means are not 0', async () => {
    const { page, errors } = await open(
      hashOf({ view: 'values', tensor: 'norm1', normType: 'rmsnorm', preset: 'random' }),
      '[data-testid="rmsnorm-note"]',
    );
    const meanCells = page.locator('table[data-stats] tbody tr td:first-of-type');
    const meansNow = () => meanCells.evaluateAll((tds) => tds.map((td) => Number(td.textContent)));
    const means = await meansNow();
    assert.equal(means.length, 10);
    assert.ok(Math.max(...means.map(Math.abs)) > 0.01, means.join(', '));
    // LayerNorm: every mean is 0, and no such note. Only the hash changes, so the RMSNorm table is
    // still there until the page re-renders: wait for the LayerNorm one (its means), then look.
    await page.goto(site.url + hashOf({ view: 'values', tensor: 'norm1', preset: 'random' }));
    let layerNormMeans = [];
    for (const deadline = Date.now() + 10_000; Date.now() < deadline; await page.waitForTimeout(50)) {
      layerNormMeans = await meansNow();
      if (layerNormMeans.length === 10 && layerNormMeans.every((m) => Math.abs(m) < 1e-3)) break;
    }
    assert.ok(
      layerNormMeans.length === 10 && layerNormMeans.every((m) => Math.abs(m) < 1e-3),
      layerNormMeans.join(', '),
    );
    assert.equal(await page.locator('[data-testid="rmsnorm-note"]').count(), 0);
    assert.deepEqual(errors, []);
  });
});
