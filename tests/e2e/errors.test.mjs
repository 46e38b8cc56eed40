// Issue 11, item 8: every invalid state is marked and explained. Typed values that do not
// parse stay in their box and in the URL, and the view says it is the last result that
// worked; intermediate keystrokes (1, 10 on the way to 1000) flash no message; a layer,
// head or sentence number the result lacks is said, not clamped silently; an invalid link
// or embed says why instead of waiting, and unknown embed parameters are reported.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { useSite } from '../support/site.mjs';

const site = useSite();

const firstHeatmapRows = (page) =>
  page.evaluate(() =>
    [
      ...(document
        .querySelector('ap-playground')
        .shadowRoot.querySelector('ap-heatmap')
        ?.shadowRoot.querySelectorAll('table th[scope="row"]') ?? []),
    ]
      .map((th) => th.textContent)
      .join(' '),
  );

describe('errors in the playground', () => {
  test('typing 1000 into d_model flashes no message about 1 or 10, and the view follows to 1000', async () => {
    const { page, errors } = await site.open('#text=a+b+c');
    await page.locator('ap-heatmap').first().waitFor();
    // Record every problem message that appears anywhere in the playground while typing.
    await page.evaluate(() => {
      window.seenProblems = new Set();
      const roots = () => {
        const r = document.querySelector('ap-playground').shadowRoot;
        return [r, r.querySelector('ap-controls')?.shadowRoot];
      };
      window.problemTimer = setInterval(() => {
        for (const root of roots())
          root?.querySelectorAll('.error').forEach((e) => window.seenProblems.add(e.textContent.trim()));
      }, 10);
    });
    const box = page.locator('#setting-dModel');
    await box.focus();
    await page.keyboard.press('Control+A');
    await box.pressSequentially('1000', { delay: 120 });
    await page.waitForFunction(() => location.hash.includes('dModel=1000'));
    await page.locator('ap-controls [data-testid="dk"]').filter({ hasText: '1000 / 4 = 250' }).waitFor();
    await page.waitForFunction(
      () => document.querySelector('ap-playground').shadowRoot.querySelector('.view')?.dataset.stale === '0',
    );
    await page.waitForTimeout(800); // past the pause after typing: nothing is held back any more
    const seen = await page.evaluate(() => {
      clearInterval(window.problemTimer);
      return [...window.seenProblems];
    });
    assert.deepEqual(seen, [], `messages shown while typing 1000: ${seen.join(' | ')}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a value out of range stays in its box and in the URL, and the view is marked until it is fixed', async () => {
    const { page, errors } = await site.open('#text=a+b+c');
    await page.locator('ap-heatmap').first().waitFor();
    await page.locator('#setting-heads').fill('65');
    const message = page.locator('[data-setting="heads"] .error');
    assert.match(await message.textContent(), /Heads must be between 1 and 64/);
    await page.waitForFunction(() => location.hash.includes('heads=65')); // the URL says what the box says
    const view = page.locator('.view');
    assert.equal(await view.getAttribute('data-stale'), '1');
    assert.match(
      await page.locator('[data-testid="stale-note"]').textContent(),
      /last result that worked \(d_model 64, 4 heads/,
    );
    assert.equal(
      await page.locator('ap-controls [data-testid="dk"]').count(),
      0,
      'no d_k line for a heads value not in use',
    );
    // Typing elsewhere neither runs with the old value nor forgets the problem.
    await page.locator('#setting-text').fill('x y');
    await page.waitForTimeout(900);
    assert.match(await message.textContent(), /Heads must be between 1 and 64/);
    assert.equal(await view.getAttribute('data-stale'), '1');
    assert.equal(await firstHeatmapRows(page), 'a b c');
    // The link reopens the same problem, explained, instead of waiting or silently using 4 heads.
    const link = page.url().slice(site.url.length);
    const second = await site.open(link);
    await second.page.locator('[data-testid="blocked"]').waitFor();
    assert.match(await second.page.locator('[data-testid="blocked"]').textContent(), /Heads must be between 1 and 64/);
    assert.equal(await second.page.locator('#setting-heads').inputValue(), '65');
    assert.match(await second.page.locator('[data-setting="heads"] .error').textContent(), /between 1 and 64/);
    await second.page.locator('#setting-heads').fill('2');
    await second.page.waitForFunction(
      () => document.querySelector('ap-playground').shadowRoot.querySelectorAll('ap-heatmap').length === 2,
    );
    assert.equal(await firstHeatmapRows(second.page), 'x y');
    await second.page.waitForFunction(() => location.hash.includes('heads=2'));
    assert.equal(await second.page.locator('.view').getAttribute('data-stale'), '0');
    assert.deepEqual([...errors, ...second.errors], []);
    await page.close();
    await second.page.close();
  });

  test('a layer, head or sentence the result does not have is said, not clamped silently', async () => {
    const { page, errors } = await site.open('#text=a+b&layer=7&sequence=5');
    await page.locator('ap-heatmap').first().waitFor();
    const notes = () => page.locator('[data-testid="out-of-range"]').allTextContents();
    assert.deepEqual(await notes(), [
      'Layer 7 does not exist: this model has 2 layers (0–1); showing layer 1.',
      'Sentence 6 does not exist: there is 1 sentence; showing sentence 1.',
    ]);
    await page.locator('button[data-view="head"]').click();
    await page.locator('#setting-head').fill('9');
    await page.locator('#setting-layer').fill('1');
    await page.waitForFunction(() => location.hash.includes('head=9') && location.hash.includes('layer=1'));
    assert.deepEqual(await notes(), [
      'Head 9 does not exist: this model has 4 heads (0–3); showing head 3.',
      'Sentence 6 does not exist: there is 1 sentence; showing sentence 1.',
    ]);
    assert.equal(await page.locator('ap-heatmap').first().getAttribute('data-head'), '3');
    // A second sentence: the sentence number is still out of range, and says so with the new count.
    await page.locator('#setting-text').fill('a b\nc d\ne');
    await page.waitForFunction(() =>
      /there are 3 sentences/.test(document.querySelector('ap-playground').shadowRoot.textContent),
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('an invalid link or embed says why instead of waiting, and unknown embed parameters are reported', async () => {
    const cases = [
      ['#heads=3', /heads \(3\) must divide d_model \(64\)/],
      ['#mode=cross&text=a%0Ab&source=x', /there are 2 sentences and 1 source lines/],
      ['embed.html?heads=3', /heads \(3\) must divide d_model \(64\)/],
      ['embed.html?mode=cross&text=a%0Ab&source=x&controls=none', /there are 2 sentences and 1 source lines/],
      ['embed.html?dModel=5000&controls=none', /d_model must be between 1 and 1024/],
    ];
    for (const [path, why] of cases) {
      const { page, errors } = await site.open(path);
      const shown = page.locator('[role="alert"]').filter({ hasText: why });
      await shown.first().waitFor({ timeout: 10_000 });
      await page.waitForTimeout(1500);
      assert.equal(await page.locator('text=Waiting for the first result').count(), 0, `${path} waits`);
      assert.deepEqual(errors, [], path);
      await page.close();
    }
    const { page, errors } = await site.open('embed.html?text=a+b&colour=red&view=sideways');
    await page.locator('ap-heatmap').first().waitFor();
    const note = await page.locator('[role="alert"]').allTextContents();
    assert.ok(
      note.some((t) => /unknown setting 'colour'/.test(t) && /View: unknown choice 'sideways'/.test(t)),
      note.join(' | '),
    );
    assert.deepEqual(errors, []);
    await page.close();
  });
});
