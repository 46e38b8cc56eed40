// When the threaded engine hangs at start (Firefox ESR, now and then, on a loaded machine:
// a worker never returns from the engine's start-up, its event loop blocked), the page
// replaces the worker by one with the single-threaded engine after READY_DEADLINE_MS
// (web/src/workers/worker-watchdog.ts). Here, in Chromium, the threaded engine's script is
// replaced by one that never finishes evaluating (a worker blocked the same way): the
// Explore view and a training run must still come up, on the single-threaded 'simd' engine.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage } from '../support/browser.mjs';
import { useSite } from '../support/site.mjs';

const site = useSite();
const DEADLINE_MS = 20_000; // READY_DEADLINE_MS
const WAIT_MS = DEADLINE_MS + 30_000;

async function openWithHungThreads(hash) {
  const { page, errors } = await openPage(
    site.browser,
    { viewport: { width: 1280, height: 900 } },
    { onlyFrom: site.url },
  );
  const blocked = [];
  // The threaded build's glue (not its pthread worker script): evaluating it never ends.
  await page.route(/\/assets\/attention-simd-threads-[^/.]+\.js$/, (route) => {
    blocked.push(route.request().url());
    return route.fulfill({ contentType: 'text/javascript', body: 'for (;;) {}\n' });
  });
  await page.goto(site.url + hash);
  return { page, errors, blocked };
}

describe('a threaded engine that hangs at start', () => {
  test(
    'the playground falls back to the single-threaded engine and shows its view',
    { timeout: WAIT_MS + 30_000 },
    async () => {
      const { page, errors, blocked } = await openWithHungThreads('#text=the+cat+sat');
      const started = Date.now();
      await page.locator('ap-playground ap-heatmap').first().waitFor({ timeout: WAIT_MS });
      const waited = Date.now() - started;
      assert.ok(blocked.length > 0, 'the threaded engine was asked for (and blocked)');
      assert.ok(
        waited >= DEADLINE_MS - 2000,
        `the view came after the deadline (${waited} ms), from the replacement worker`,
      );
      assert.match(await page.locator('ap-playground .status').textContent(), /^simd engine · /);
      assert.deepEqual(
        await page
          .locator('ap-playground ap-heatmap')
          .evaluateAll((all) => all.map((h) => h.rowLabels.map((l) => l.label))),
        Array.from({ length: 4 }, () => ['the', 'cat', 'sat']),
      );
      assert.deepEqual(errors, []);
      await page.close();
    },
  );

  test('a training run falls back too and trains', { timeout: WAIT_MS + 60_000 }, async () => {
    const { page, errors, blocked } = await openWithHungThreads(
      '#train&length=4&symbols=5&dModel=32&ffnDim=64&steps=40&evalEvery=20&stopAt=0',
    );
    await page.locator('ap-train button[data-action="start"]:not([disabled])').waitFor({ timeout: WAIT_MS });
    await page.locator('ap-train button[data-action="start"]').click();
    await page.waitForFunction(
      () => {
        const p = document.querySelector('ap-train').shadowRoot.querySelector('.progress');
        return p.dataset.status === 'done' && Number(p.dataset.step) === 40;
      },
      null,
      { timeout: WAIT_MS + 30_000 },
    );
    assert.ok(blocked.length > 0, 'the threaded engine was asked for (and blocked)');
    assert.deepEqual(errors, []);
    await page.close();
  });
});
