// Issue 11, item 12: the playground page's first view teaches something. It opens on the
// positional preset (heads built to attend to the previous token, the next one, themselves
// and the first one) rather than random weights, with a hint saying so and what to try; the
// hint follows the Weights setting; links name only what differs from this first view; the
// embeds keep the engine's defaults (random weights).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SHOTS, useSite } from '../support/site.mjs';

const site = useSite();

/** Each head's weights for sentence 0, layer 0: for every query row, the key with the largest weight and that weight. */
const peaks = (page) =>
  page.locator('ap-heatmap').evaluateAll((maps) =>
    maps.map((map) => {
      const { values, rows, cols } = map;
      return Array.from({ length: rows }, (_, i) => {
        const row = Array.from(values.slice(i * cols, (i + 1) * cols));
        const max = Math.max(...row);
        return [row.indexOf(max), Math.round(max * 100) / 100];
      });
    }),
  );

describe('the first view', () => {
  test('opens on heads that attend by position, with a hint on what to try', async () => {
    const { page, errors } = await site.open();
    await page.locator('ap-heatmap').first().waitFor();
    assert.equal(await page.locator('#setting-preset').inputValue(), 'positional');
    assert.equal(new URL(page.url()).hash, '', "the first view is the page's default: an empty hash");
    const hint = page.locator('[data-testid="weights-hint"]');
    assert.match(
      await hint.textContent(),
      /head 0 → the previous token, head 1 → the next token, head 2 → itself, head 3 → the first token/,
    );
    assert.match(await hint.textContent(), /Try: .*Random.*Reverse 8 symbols/);
    // What the hint says is what the heads do: every query's largest weight is on the key the hint names, and near 1.
    const [previous, next, self, first] = await peaks(page);
    const n = previous.length;
    assert.equal(n, 6); // "the cat sat on the mat"
    for (let i = 0; i < n; i++) {
      assert.equal(previous[i][0], Math.max(0, i - 1), `previous, row ${i}`);
      assert.equal(next[i][0], Math.min(n - 1, i + 1), `next, row ${i}`);
      assert.equal(self[i][0], i, `self, row ${i}`);
      assert.equal(first[i][0], 0, `first, row ${i}`);
      for (const head of [previous, next, self, first])
        assert.ok(head[i][1] > 0.9, `row ${i}: largest weight ${head[i][1]}`);
    }
    await page.screenshot({ path: `${SHOTS}/first-view.png`, fullPage: true });
    // While a typed value cannot run (3 heads do not divide 64), the hint still describes the heads on screen.
    await page.locator('#setting-heads').fill('3');
    await page.locator('#setting-heads-error').waitFor();
    assert.match(await hint.textContent(), /head 3 → the first token\./);
    await page.locator('#setting-heads').fill('4');
    await page.waitForFunction(
      () => document.querySelector('ap-playground').shadowRoot.querySelector('.view')?.dataset.stale === '0',
    );
    // Decoder self-attention: the causal mask blocks the next token, and the hint says where head 1 goes instead.
    const settled = () =>
      page.waitForFunction(
        () => document.querySelector('ap-playground').shadowRoot.querySelector('.view')?.dataset.stale === '0',
      );
    await page.locator('#setting-mode').selectOption('decoder');
    await hint
      .filter({ hasText: /causal mask blocks the next token, so head 1 settles on the nearest key it may see: itself/ })
      .waitFor();
    await settled();
    const causal = await peaks(page);
    for (let i = 0; i < n; i++) {
      assert.equal(causal[1][i][0], i, `decoder, next-token head, row ${i}: itself`);
      assert.equal(causal[0][i][0], Math.max(0, i - 1), `decoder, previous-token head, row ${i}`);
      assert.equal(causal[3][i][0], 0, `decoder, first-token head, row ${i}`);
    }
    // Cross-attention: the keys are the other sentence after the encoder's layers; the hint does not claim the roles.
    await page.locator('#setting-mode').selectOption('cross');
    await hint.filter({ hasText: /roles need not hold here/ }).waitFor();
    assert.doesNotMatch(await hint.textContent(), /head 0 →/);
    await page.locator('#setting-block').selectOption('encoder.self_attn');
    await hint.filter({ hasText: /head 0 → the previous token, head 1 → the next token/ }).waitFor();
    await page.locator('#setting-block').selectOption('auto');
    await page.locator('#setting-mode').selectOption('encoder');
    await settled();
    // Eight heads: the roles repeat, and the hint says which heads repeat them.
    await page.locator('#setting-heads').fill('8');
    await hint.filter({ hasText: /head 3 → the first token \(heads 4–7 repeat the four\)\./ }).waitFor();
    await page.locator('#setting-heads').fill('4');
    await settled();
    // Random weights: the hint says what an untrained model looks like; the link names the change.
    await page.locator('#setting-preset').selectOption('random');
    await page.waitForFunction(() => location.hash === '#preset=random');
    await hint.filter({ hasText: /Random weights: an untrained model/ }).waitFor();
    await page.waitForFunction(
      () => document.querySelector('ap-playground').shadowRoot.querySelector('.view')?.dataset.stale === '0',
    );
    await page.waitForFunction(
      () => Math.max(...document.querySelector('ap-playground').shadowRoot.querySelector('ap-heatmap').values) < 0.9,
    );
    // A trained model describes itself: no hint about the untrained weights.
    await page.locator('#setting-model').selectOption('reverse');
    await page.locator('[data-testid="fixed-settings"]').waitFor();
    assert.equal(await hint.count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("an embed keeps the engine's defaults: random weights, no page hint", async () => {
    const { page, errors } = await site.open('embed.html?text=the+cat+sat+on+the+mat&controls=all', {
      viewport: { width: 1000, height: 900 },
    });
    await page.locator('ap-heatmap').first().waitFor();
    assert.equal(await page.locator('#setting-preset').inputValue(), 'random');
    assert.equal(await page.locator('[data-testid="weights-hint"]').count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
