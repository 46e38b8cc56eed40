// The tutorial's section "How a language model writes", in Chromium: each claim (the
// paragraph marked data-claim) checked against what the reader sees in its elements'
// Generate panels (generate mode, the shipped 'reverse' checkpoint): the next-token
// distribution's bars, the entropy, the written tokens, the bars redrawn as the
// temperature slider moves, top-k's cut, and the KV cache's bytes per layer. Generation
// is seeded, so these numbers are the reader's numbers too.
import { before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { openPage } from '../support/browser.mjs';
import { ROOT, SHOTS, useSite } from '../support/site.mjs';

const site = useSite('tutorial.html');
let page, errors;

/** The paragraph of a claim, as the reader reads it (white space collapsed). */
const claim = async (name) => (await page.locator(`[data-claim="${name}"]`).textContent()).replace(/\s+/g, ' ').trim();

/** The section's n-th element's Generate panel, once it is on screen and its branch is open (its text shown). */
async function panel(n) {
  const element = page.locator('#generate attention-playground[generate]').nth(n);
  await element.scrollIntoViewIfNeeded();
  const generate = element.locator('ap-generate-panel');
  await generate.locator('[data-testid="generated-text"]').waitFor({ timeout: 20_000 });
  return generate;
}

/** Presses Step or Generate and waits until the panel has written and is not generating any more. */
async function press(generate, action) {
  const before = await generate.locator('[data-testid="generate-status"]').getAttribute('data-tokens');
  await generate.locator(`button[data-action="${action}"]`).click();
  await generate
    .locator(`[data-testid="generate-status"][data-running="0"]:not([data-tokens="${before}"])`)
    .waitFor({ state: 'attached' });
}

/** The tokens written after the prompt, as shown. */
const written = (generate) =>
  generate
    .locator('[data-testid="generated-text"] .new-token')
    .allTextContents()
    .then((t) => t.map((s) => s.trim()));

/**
 * The chart as shown: its caption, the entropy it gives (the redrawn distribution's once a slider moved) and the
 * draw's, and each bar's label and value, in order.
 */
async function chart(generate) {
  const figure = generate.locator('[data-testid="next-token-chart"]');
  await figure.waitFor();
  const caption = (await figure.locator('figcaption').textContent()).replace(/\s+/g, ' ');
  const bars = await figure.locator('button.bar').evaluateAll((buttons) =>
    buttons.map((b) => ({
      token: b.querySelector('.label').textContent.trim(),
      value: b.querySelector('.value').textContent.trim(),
    })),
  );
  const entropy = caption.match(/entropy ([\d.]+) nats/)[1];
  return { caption, entropy, drawn: caption.match(/\(([\d.]+) at the draw\)/)?.[1] ?? entropy, bars };
}

/** Moves a slider as a reader does (its input event), and waits until its value is shown beside it. */
async function slide(generate, setting, value) {
  const input = generate.locator(`input[data-setting="${setting}"]`);
  await input.evaluate((element, v) => {
    element.value = v;
    element.dispatchEvent(new Event('input', { bubbles: true }));
  }, String(value));
  await generate.locator(`label:has(input[data-setting="${setting}"]) output`, { hasText: String(value) }).waitFor();
}

describe('the tutorial\u2019s section on how a language model writes', () => {
  before(async () => {
    ({ page, errors } = await openPage(
      site.browser,
      { viewport: { width: 1200, height: 900 } },
      { onlyFrom: site.url },
    ));
    await page.goto(`${site.url}tutorial.html`);
  });

  test('the next-token distribution, and greedy writing reverses the input', async () => {
    const text = await claim('gen-distribution');
    const generate = await panel(0);
    await press(generate, 'step');
    const first = await chart(generate);
    assert.deepEqual(first.bars[0], { token: '4', value: '97.0%' });
    assert.match(text, /drawn from a distribution that gives it 97\.0%/);
    assert.deepEqual(
      first.bars.slice(1, 4).map((b) => b.token),
      ['6', '3', '5'],
    );
    for (const bar of first.bars.slice(1)) assert.ok(parseFloat(bar.value) < 1, JSON.stringify(bar));
    assert.match(text, /6, 3 and 5 follow with under 1% each/);
    await press(generate, 'generate');
    const tokens = await written(generate);
    assert.deepEqual(tokens, ['4', '2', '6', '0', '3', '7', '1', '5']);
    assert.deepEqual(tokens, '5 1 7 3 0 6 2 4'.split(' ').reverse(), 'the input reversed');
    assert.match(text, /the model gives 4 2 6 0 3 7 1 5: the input reversed/);
  });

  test('temperature: T = 2 flattens the distribution and raises its entropy; the slider redraws it, 0.5 is the argmax', async () => {
    const text = await claim('gen-temperature');
    const generate = await panel(1);
    await press(generate, 'step');
    const hot = await chart(generate);
    // The model above (greedy: its chart is T = 1's distribution), at its first token rather than its last.
    const above = await panel(0);
    await above.locator('[data-testid="generated-text"] .new-token').first().click();
    const cold = await chart(above);
    assert.equal(cold.bars[0].value, '97.0%');
    assert.deepEqual(hot.bars[0], { token: '4', value: '68.9%' });
    assert.ok(Number(hot.entropy) > Number(cold.entropy), `${hot.entropy} > ${cold.entropy}`);
    assert.match(
      text,
      new RegExp(`gives 4 only 68\\.9%, and its entropy is ${hot.entropy} nats, against ${cold.entropy} at T = 1`),
    );
    await press(generate, 'generate');
    const tokens = await written(generate);
    assert.deepEqual(tokens, ['4', '2', '9', '0', '3', '7', '5', '5']);
    const wrong = tokens.filter((t, i) => t !== '4 2 6 0 3 7 1 5'.split(' ')[i]).length;
    assert.equal(wrong, 2);
    assert.match(text, /writes 4 2 9 0 3 7 5 5: two symbols wrong/);
    // The first token's distribution again, redrawn as the slider moves (the draw was at T = 2).
    await generate.locator('[data-testid="generated-text"] .new-token').first().click();
    await slide(generate, 'temperature', 1);
    const back = await chart(generate);
    assert.equal(back.bars[0].value, '97.0%');
    // the caption's entropy follows the redraw: T = 1's again, beside the draw's at T = 2
    assert.deepEqual([back.entropy, back.drawn], [cold.entropy, hot.entropy]);
    await slide(generate, 'temperature', 0.5);
    const sharp = await chart(generate);
    assert.deepEqual(sharp.bars[0], { token: '4', value: '100.0%' });
    assert.match(sharp.caption, /redrawn for the settings now/);
    assert.match(text, /at 1, 4 has 97\.0% again; at 0\.5, 100\.0%, the argmax/);
  });

  test('top-k = 2 keeps two tokens, renormalised, and lowers the entropy', async () => {
    const text = await claim('gen-filters');
    const generate = await panel(2);
    await press(generate, 'step');
    const cut = await chart(generate);
    assert.deepEqual(cut.bars.slice(0, 2), [
      { token: '4', value: '91.1%' },
      { token: '6', value: '8.9%' },
    ]);
    assert.ok(
      cut.bars.slice(2).every((b) => b.value === 'filtered out'),
      JSON.stringify(cut.bars),
    );
    assert.equal(await generate.locator('[data-testid="rest"]').textContent(), '0.0%');
    assert.match(cut.caption, / 2 tokens possible/);
    const hot = await chart(await panel(1)); // its sliders moved since (the previous test): its draw's entropy, at T = 2
    assert.ok(Number(cut.entropy) < Number(hot.drawn));
    assert.match(text, /4 with 91\.1% and 6 with 8\.9%, which add up to 100%/);
    assert.match(text, new RegExp(`the entropy falls from ${hot.drawn} to ${cut.entropy} nats`));
  });

  test('the KV cache: 2 x H_kv x positions x d_h x 4 bytes per layer, one position more per token', async () => {
    const text = await claim('gen-cache');
    const generate = await panel(0); // generated all 8 tokens in the first test
    const cache = generate.locator('[data-testid="kv-cache"]');
    const rows = await cache
      .locator('.cache-row')
      .evaluateAll((r) => r.map((e) => ({ bytes: Number(e.dataset.bytes), positions: Number(e.dataset.positions) })));
    const [kvHeads, headDim] = [4, 8];
    assert.deepEqual(
      rows,
      [0, 1].map(() => ({ bytes: 2 * kvHeads * 17 * headDim * 4, positions: 17 })),
    );
    assert.equal(rows[0].bytes, 4352);
    assert.match(await cache.locator('figcaption').textContent(), /KV cache: 8\.7 kB \(K and V of 4 K\/V heads × 8/);
    assert.match(await cache.locator('.cache-row .value').first().textContent(), /17 pos · 4\.4 kB/);
    assert.match(text, /each layer holds 17 positions, 4\.4 kB \(4,352 bytes\), 8\.7 kB in all/);
    // One step from the prompt: 10 positions (the prompt's 9 and the new token), 2.6 kB.
    const fresh = await panel(2); // top-k element: stepped once in the previous test
    const after = await fresh
      .locator('[data-testid="kv-cache"] .cache-row')
      .evaluateAll((r) => r.map((e) => [Number(e.dataset.positions), Number(e.dataset.bytes)]));
    assert.deepEqual(after, [
      [10, 2560],
      [10, 2560],
    ]);
    assert.match(
      await fresh.locator('[data-testid="kv-cache"] .cache-row .value').first().textContent(),
      /10 pos · 2\.6 kB/,
    );
    assert.match(
      text,
      /After the first step a layer holds 10 positions \(the 9 of the prompt and the new token\), 2\.6 kB/,
    );
  });

  test('grouped K/V heads and windows: a window layer holds its window, the cache without GQA is H / H_kv times larger', async () => {
    const text = await claim('gen-cache-modern');
    // The tiny Gemma 3 of the fixtures, offline, as the reader loads Gemma 3 270M: 4 query heads to 1 K/V
    // head of d_h 16, 3 layers, a window of 3 in every layer but each 2nd.
    const fixture = `${ROOT}tests/reference/fixtures/hub/gemma3-text-tiny/`;
    const element = page.locator('#generate attention-playground[controls="model"]');
    await element.scrollIntoViewIfNeeded();
    await element.locator('button[data-action="open-pretrained"]').click();
    await element.locator('#pretrained-files').setInputFiles(
      readdirSync(fixture)
        .filter((f) => f !== 'expected.json')
        .map((f) => fixture + f),
    );
    await element.locator('[data-testid="pretrained-note"]').waitFor({ timeout: 30_000 });
    const generate = element.locator('ap-generate-panel');
    await generate.locator('[data-testid="generated-text"]').waitFor({ timeout: 20_000 });
    const cache = generate.locator('[data-testid="kv-cache"]');
    const rows = async () =>
      cache
        .locator('.cache-row')
        .evaluateAll((r) => r.map((e) => ({ bytes: Number(e.dataset.bytes), positions: Number(e.dataset.positions) })));
    const [heads, kvHeads, headDim, window] = [4, 1, 16, 3];
    const perPosition = 2 * kvHeads * headDim * 4;
    await press(generate, 'step');
    const seq = Number(await generate.locator('[data-testid="generate-status"]').getAttribute('data-tokens'));
    assert.ok(seq > window + 1, `the prompt and a token (${seq}) are longer than the window`);
    const first = await rows();
    assert.deepEqual(
      first,
      [window, seq, window].map((p) => ({ bytes: p * perPosition, positions: p })),
    );
    await press(generate, 'step');
    const second = await rows();
    assert.deepEqual(
      second.map((r) => r.positions),
      [window, seq + 1, window],
      'the window layers stop, the global one grows by one',
    );
    const caption = (await cache.locator('figcaption').textContent()).replace(/\s+/g, ' ');
    const kB = (bytes) => `${(bytes / 1e3).toFixed(1)} kB`;
    const total = second.reduce((a, r) => a + r.bytes, 0);
    const ungrouped = 3 * (seq + 1) * 2 * heads * headDim * 4;
    assert.match(caption, new RegExp(`KV cache: ${kB(total)} \\(K and V of 1 K/V head × 16`));
    assert.match(caption, new RegExp(`${kB(ungrouped)} without grouped-query attention \\(4 heads\\)`));
    // Where no window cuts it (the global layer), exactly H / H_kv = 4 times.
    assert.equal((2 * heads * (seq + 1) * headDim * 4) / second[1].bytes, heads / kvHeads);
    assert.match(text, /H \/ Hkv = 4 times as large where no window cuts it/);
    assert.match(text, /each window layer's bar holds at most its window of positions/);
    await page.locator('#generate').screenshot({ path: `${SHOTS}/tutorial-generate.png` });
    assert.deepEqual(errors, []);
  });
});
