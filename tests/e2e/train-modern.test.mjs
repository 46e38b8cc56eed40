// The modern block in the Train view, in real Chromium: its fieldset of settings (through
// the URL hash), and a comparison of five runs side by side (positions at twice the trained
// length), each in a worker of its own, with five progress lines, five line styles and a
// summary naming every run. Against the production build (dist-web/).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage } from '../support/browser.mjs';
import { SHOTS, useSite } from '../support/site.mjs';

const site = useSite();

async function open(hash) {
  const viewport = { width: 1280, height: 1000 };
  const { page, errors } = await openPage(site.browser, { viewport }, { onlyFrom: site.url });
  await page.goto(site.url + hash);
  await page.locator('ap-train button[data-action="start"]:not([disabled])').waitFor();
  return { page, errors };
}

const waitStatus = (page, status) =>
  page.waitForFunction(
    (s) => document.querySelector('ap-train').shadowRoot.querySelector('.progress').dataset.status === s,
    status,
    { timeout: 120_000 },
  );

describe('the modern block in the Train view', () => {
  test('its settings have a fieldset of their own and go through the link; RoPE shows its base', async () => {
    const { page, errors } = await open('#train&positions=rope&kvHeads=2&window=3&normType=rmsnorm&ffn=gated');
    const legends = await page.locator('ap-train fieldset legend').allTextContents();
    assert.ok(legends.includes('Modern block (Llama, Qwen, Gemma)'), legends.join(', '));
    assert.equal(await page.locator('ap-train #setting-kvHeads').inputValue(), '2');
    assert.equal(await page.locator('ap-train #setting-normType').inputValue(), 'rmsnorm');
    assert.equal(await page.locator('ap-train #setting-ropeTheta').count(), 1); // RoPE: its base shows
    assert.equal(await page.locator('ap-train #setting-windowPattern').count(), 1); // a window: the pattern shows
    await page.locator('ap-train #setting-positions').selectOption('alibi');
    await page.waitForFunction(() => location.hash.includes('positions=alibi'));
    assert.equal(await page.locator('ap-train #setting-ropeTheta').count(), 0);
    assert.match(page.url(), /kvHeads=2.*window=3.*normType=rmsnorm.*ffn=gated/);
    const overflow = await page.evaluate(
      () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
    );
    assert.ok(overflow <= 0, `the page scrolls sideways by ${overflow} px`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('positions at twice the trained length: five runs train side by side and the summary names each', async () => {
    const { page, errors } = await open('#train');
    await page.locator('ap-train #setting-compare').selectOption('lengthPositions');
    await page.waitForFunction(() => location.hash.includes('compare=lengthPositions'));
    assert.equal(await page.locator('ap-train #setting-task').inputValue(), 'recall');
    assert.equal(await page.locator('ap-train #setting-evalLength').inputValue(), '6');
    // A short run, so the test stays quick (the full one is tests/web/comparison-modern.test.ts's).
    await page.locator('ap-train #setting-steps').fill('40');
    await page.waitForFunction(() => location.hash.includes('steps=40'));
    await page.locator('ap-train button[data-action="start"]:not([disabled])').waitFor();
    await page.locator('ap-train button[data-action="start"]').click();
    await waitStatus(page, 'done');
    const lines = await page.locator('ap-train .progress [data-run]').allTextContents();
    assert.deepEqual(
      lines.map((l) => l.replace(/: step.*/, '')),
      ['A (RoPE)', 'B (learned)', 'C (sinusoidal)', 'D (ALiBi)', 'E (no positions)'],
    );
    for (const line of lines) assert.match(line, /step 40 of 40/);
    const dashes = await page
      .locator('ap-train ap-curves[data-plot="loss"]')
      .evaluate((el) =>
        [...el.shadowRoot.querySelectorAll('path[data-series$="held-out loss"]')].map((p) =>
          p.getAttribute('stroke-dasharray'),
        ),
      );
    assert.equal(dashes.length, 5);
    assert.equal(new Set(dashes).size, 5, `each run its own line style: ${dashes.join(' / ')}`);
    const summary = await page.locator('ap-train [data-testid="summary"]').textContent();
    for (const name of ['A (RoPE)', 'B (learned)', 'C (sinusoidal)', 'D (ALiBi)', 'E (no positions)'])
      assert.ok(summary.includes(name), summary);
    assert.match(
      (await page.locator('ap-train p.task', { hasText: 'parameters ·' }).textContent()).replace(/\s+/g, ' '),
      /sequences of 14 tokens · vocabulary 17 · trained at length 3, held out at 6/,
    );
    // The probe is a held-out example: 6 pairs, 14 tokens, where the training saw 3.
    assert.equal(await page.locator('ap-train section[data-run="A"] [data-testid="probe"] .tok').count(), 14);
    await page.screenshot({ path: `${SHOTS}/train-compare-positions-length.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
