// The Generate panel (<ap-generate-panel>, web/src/generate/) on the Explore page, in real
// Chromium against the production build (dist-web/): on the shipped 'reverse' checkpoint a
// Step writes the task's answer token by token (its distribution, its attention row, the
// KV cache growing); a click on a candidate branches there and the tree goes back; a copied
// link reopens the same prompt, settings and branch. On the tiny GPT-2 fixture (loaded from
// files) Generate runs in the worker and stops in the middle at Stop, with no main-thread
// task of 50 ms or more while it generates; the untrained model says why it cannot generate.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { openPage } from '../support/browser.mjs';
import { ROOT, SHOTS, useSite } from '../support/site.mjs';
import { describeLongTasks, longTaskCount, longTasksSince, markPhase, watchLongTasks } from '../support/long-tasks.mjs';

const site = useSite('checkpoints/index.json');
const GPT2 = `${ROOT}tests/reference/fixtures/pretrained/gpt2-tiny/`;
const BERT = `${ROOT}tests/reference/fixtures/pretrained/bert-tiny/`;
const PROMPT = '3 7 1 1 1 0 5 6 |';

async function open(hash) {
  const { page, errors } = await openPage(
    site.browser,
    { viewport: { width: 1280, height: 1000 } },
    { onlyFrom: site.url },
  );
  await page.goto(site.url + hash);
  return { page, errors };
}

/** The panel's status: tokens shown (prompt + branch), running, done. */
const status = (page) =>
  page.locator('[data-testid="generate-status"]').evaluate((s) => ({
    tokens: Number(s.dataset.tokens),
    running: s.dataset.running === '1',
    done: s.dataset.done === '1',
  }));

async function waitForTokens(page, count) {
  await page
    .waitForFunction(
      (n) => {
        const s = document
          .querySelector('ap-generate-panel')
          ?.shadowRoot?.querySelector('[data-testid="generate-status"]');
        return s && Number(s.dataset.tokens) === n && s.dataset.running === '0';
      },
      count,
      { timeout: 15_000 },
    )
    .catch(async () => assert.fail(`tokens: ${JSON.stringify(await status(page))}`));
}

/** The tokens of the branch shown, as the panel writes them. */
const shownTokens = (page) =>
  page
    .locator('[data-testid="generated-text"] .token')
    .evaluateAll((tokens) => tokens.map((t) => t.textContent.trim()));

/** Every head's heatmap drawn with `rows` rows (one head is brought up to date per frame). */
const headsDrawn = (page, heads, rows) =>
  page.waitForFunction(
    ([h, r]) => {
      const figures = [...document.querySelector('ap-generate-panel').shadowRoot.querySelectorAll('figure.head')];
      return (
        figures.length === h && figures.every((f) => f.dataset.rows === String(r) && f.querySelector('ap-heatmap'))
      );
    },
    [heads, rows],
    { timeout: 10_000 },
  );

/** What the panel shows of its branch: the chart's bars and position, the cache's rows, the tree's branches. */
const panelView = (page) =>
  page.locator('ap-generate-panel').evaluate((panel) => {
    const root = panel.shadowRoot;
    const chart = root.querySelector('[data-testid="next-token-chart"]');
    return {
      position: chart?.dataset.position ?? null,
      bars: [...(chart?.querySelectorAll('.bar') ?? [])].map((b) => [
        b.querySelector('.label').textContent,
        Number(b.querySelector('.value').dataset.probability).toFixed(6),
        b.classList.contains('chosen'),
      ]),
      cache: [...root.querySelectorAll('[data-testid="kv-cache"] .cache-row')].map((r) => [
        r.dataset.positions,
        r.dataset.bytes,
      ]),
      tree: [...root.querySelectorAll('[data-testid="branch-tree"] button.branch')].map((b) => [
        b.dataset.path,
        b.textContent.trim(),
        b.classList.contains('current'),
      ]),
    };
  });

const hashPath = (page) => page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('gen.path'));

describe('the Generate panel', () => {
  test('on the reverse model: step, branch on a candidate, back in the tree, and a link that reopens the branch', async () => {
    // Closed until opened (nothing runs); opened, it starts from the model's example up to its '|', which a link leaves out
    const plain = await open('#model=reverse');
    await plain.page.locator('button[data-action="open-generate"]').click();
    await waitForTokens(plain.page, 9);
    assert.deepEqual(await shownTokens(plain.page), PROMPT.split(' '));
    // under the prompt, what the toy model can answer: its task's form and the settings it was trained with
    assert.match(
      await plain.page.locator('[data-testid="generate-hint"]').textContent(),
      /^Trained on Reverse \(length 8, symbols 10\), on prompts of the form “x_1 \.\. x_n \| x_n \.\. x_1”: it learned only that form/,
    );
    await plain.page.locator('#gen-temperature').evaluate((input) => {
      input.value = '0.5';
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    await plain.page.waitForFunction(() => location.hash.includes('gen.temperature=0.5'));
    assert.doesNotMatch(await plain.page.evaluate(() => location.hash), /gen\.prompt/);
    // max new tokens ends a Generate; more allowed, the same branch goes on
    const maxNew = async (n) =>
      plain.page.locator('#gen-maxNewTokens').evaluate((input, value) => {
        input.value = String(value);
        input.dispatchEvent(new Event('change', { bubbles: true }));
      }, n);
    await maxNew(2);
    await plain.page.locator('button[data-action="generate"]').click();
    await waitForTokens(plain.page, 11);
    assert.equal((await status(plain.page)).done, true);
    assert.match(
      await plain.page.locator('[data-testid="generate-status"]').textContent(),
      /done: max new tokens \(2\) reached/,
    );
    assert.equal(await plain.page.locator('button[data-action="generate"]').isDisabled(), true);
    const firstTwo = await shownTokens(plain.page);
    await maxNew(4);
    await plain.page.locator('button[data-action="generate"]').click();
    await waitForTokens(plain.page, 13);
    assert.deepEqual((await shownTokens(plain.page)).slice(0, 11), firstTwo);
    assert.deepEqual(plain.errors, []);
    await plain.page.close();

    const link = `#model=reverse&gen.prompt=${encodeURIComponent(PROMPT)}&gen.temperature=0`;
    const { page, errors } = await open(link);
    await waitForTokens(page, 9);
    assert.deepEqual(await shownTokens(page), PROMPT.split(' '));

    // Step: the reversed sequence's first symbol, drawn greedily, with the distribution it came from
    await page.locator('button[data-action="step"]').click();
    await waitForTokens(page, 10);
    assert.deepEqual((await shownTokens(page)).slice(9), ['6']);
    const bars = await page.locator('[data-testid="next-token-chart"] .bar').evaluateAll((b) =>
      b.map((e) => ({
        text: e.querySelector('.label').textContent,
        p: Number(e.querySelector('.value').dataset.probability),
        chosen: e.classList.contains('chosen'),
      })),
    );
    assert.equal(bars.length, 10);
    assert.deepEqual(bars[0], { ...bars[0], text: '6', chosen: true });
    assert.ok(bars[0].p > 0.9 && bars[0].p < 1, `p(6) = ${bars[0].p}`);
    const rest = await page.locator('[data-testid="rest"]').textContent();
    assert.match(rest, /%$/);
    // its attention row joined every head's heatmap (4 heads of layer 0: 10 rows each), and the cache holds 10 positions per layer
    assert.equal(await page.locator('[data-testid="attention-growth"]').getAttribute('data-rows'), '10');
    await headsDrawn(page, 4, 10);
    assert.deepEqual(
      await page
        .locator('[data-testid="kv-cache"] .cache-row')
        .evaluateAll((rows) => rows.map((r) => [r.dataset.positions, r.dataset.bytes])),
      [
        ['10', String(10 * 2 * 4 * 8 * 4)],
        ['10', String(10 * 2 * 4 * 8 * 4)],
      ],
    );
    assert.match(await page.locator('[data-testid="speed"]').textContent(), /tokens\/s/);
    assert.equal(await hashPath(page), '6');
    // the heatmaps' colour legend (the playground's, softmax weights 0 to 1) beside a layer menu styled as the page's
    const legend = page.locator('[data-testid="attention-growth"] ap-legend');
    assert.match(
      await legend.evaluate((l) => l.shadowRoot.textContent.replace(/\s+/g, ' ')),
      /softmax weights\): 0\.000 1\.000 blocked/,
    );
    assert.deepEqual(
      await page.locator('[data-testid="growth-layer"]').evaluate((s) => {
        const style = getComputedStyle(s);
        return [style.appearance, style.borderTopLeftRadius, style.minHeight !== 'auto'];
      }),
      ['none', '6px', true],
    );

    // The temperature slider redraws the bars at once (no engine run): at 2 the top candidate loses mass
    await page.locator('#gen-temperature').evaluate((input) => {
      input.value = '2';
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });
    const hotter = Number(
      await page.locator('[data-testid="next-token-chart"] .bar .value').first().getAttribute('data-probability'),
    );
    assert.ok(hotter < bars[0].p - 0.05, `p(6) at temperature 2: ${hotter}`);
    assert.match(
      await page.locator('[data-testid="next-token-chart"] figcaption').textContent(),
      /redrawn for the settings now/,
    );
    await page.locator('#gen-temperature').evaluate((input) => {
      input.value = '0';
      input.dispatchEvent(new Event('input', { bubbles: true }));
    });

    // "What if this token?": branch on '2' at the same position, then step on from there. With top-k 1 the sliders
    // filter '2' out; branched on, it is the branch's token there: picked, not 'filtered out'
    const topK = (k) =>
      page.locator('#gen-topK').evaluate((input, value) => {
        input.value = String(value);
        input.dispatchEvent(new Event('input', { bubbles: true }));
      }, k);
    await topK(1);
    const barTwo = page.locator('[data-testid="next-token-chart"] .bar', { hasText: /^\s*2\s/ }).first();
    assert.equal(await barTwo.locator('.value').textContent(), 'filtered out');
    await barTwo.click();
    await waitForTokens(page, 10);
    assert.equal(
      await page.locator('[data-testid="next-token-chart"] .bar.chosen .value').textContent(),
      'picked (outside the filters)',
    );
    await topK(0);
    assert.deepEqual((await shownTokens(page)).slice(9), ['2']);
    assert.equal(await hashPath(page), '2');
    // the same position's distribution, now with '2' the branch's token there
    assert.equal(await page.locator('[data-testid="next-token-chart"]').getAttribute('data-position'), '9');
    assert.equal(await page.locator('[data-testid="next-token-chart"] .bar.chosen .label').textContent(), '2');
    await page.locator('button[data-action="step"]').click();
    await waitForTokens(page, 11);
    const branchTwo = (await shownTokens(page)).slice(9);
    assert.equal(branchTwo[0], '2');
    assert.equal(
      await hashPath(page),
      await page.evaluate(() => new URLSearchParams(location.hash.slice(1)).get('gen.path')),
    );

    // The tree holds both branches; back to the first one
    const paths = await page
      .locator('[data-testid="branch-tree"] button.branch')
      .evaluateAll((b) => b.map((e) => e.dataset.path));
    assert.ok(paths.includes('6') && paths.some((p) => p.startsWith('2.')), `tree: ${paths}`);
    await page.locator('[data-testid="branch-tree"] button.branch[data-path="6"]').click();
    await waitForTokens(page, 10);
    assert.deepEqual((await shownTokens(page)).slice(9), ['6']);
    assert.equal(await hashPath(page), '6');
    await page.locator('[data-testid="branch-tree"] button.branch[data-path^="2."]').click();
    await waitForTokens(page, 11);
    assert.deepEqual((await shownTokens(page)).slice(9), branchTwo);
    // its last token's distribution is still there (seen on this branch before), and the tree names every token
    assert.equal(await page.locator('[data-testid="next-token-chart"]').getAttribute('data-position'), '10');
    assert.equal(await page.locator('[data-testid="next-token-chart"] .bar.chosen .label').textContent(), branchTwo[1]);
    assert.doesNotMatch(await page.locator('[data-testid="branch-tree"]').textContent(), /#/);
    await page.screenshot({ path: `${SHOTS}/generate-branch.png`, fullPage: true });

    // A copied link reopens the same prompt, settings and branch, with what the panel showed: the last step's
    // candidates, the cache, the tree (its other branch too); and steps on as this page does
    const shared = await page.evaluate(() => location.hash);
    assert.match(shared, /gen\.path=2\.\d+/);
    assert.match(shared, /gen\.tree=0-6(&|$)/);
    const shownHere = await panelView(page);
    await page.locator('button[data-action="step"]').click();
    await waitForTokens(page, 12);
    const next = (await shownTokens(page)).slice(9);
    const other = await open(shared);
    await waitForTokens(other.page, 11);
    assert.deepEqual((await shownTokens(other.page)).slice(9), branchTwo);
    await other.page.locator('[data-testid="next-token-chart"]').waitFor();
    const shownThere = await panelView(other.page);
    assert.equal(shownThere.bars.length, 10);
    assert.deepEqual(shownThere, shownHere);
    // this model's steps are shorter than the step clock can time: no engine rate made of clock ticks (>= 1000/s)
    assert.match(
      await other.page.locator('[data-testid="speed"]').textContent(),
      /^replayed: [\d.]+ tokens\/s \(engine alone (<1 ms per token|\d{1,3}\.\d tokens\/s)\)$/,
    );
    // the first new token's distribution too (the chart of a token clicked)
    await other.page.locator('[data-testid="generated-text"] button.token[data-position="9"]').click();
    assert.equal(await other.page.locator('[data-testid="next-token-chart"]').getAttribute('data-position'), '9');
    assert.equal(await other.page.locator('[data-testid="next-token-chart"] .bar.chosen .label').textContent(), '2');
    await other.page.locator('[data-testid="generated-text"] button.token[data-position="9"]').click();
    assert.equal(await other.page.locator('#gen-temperature').inputValue(), '0');
    assert.equal(await other.page.locator('#gen-prompt').inputValue(), PROMPT);
    assert.equal(await other.page.locator('#setting-model').inputValue(), 'reverse');
    await headsDrawn(other.page, 4, 11);
    await other.page.locator('button[data-action="step"]').click();
    await waitForTokens(other.page, 12);
    assert.deepEqual((await shownTokens(other.page)).slice(9), next);
    assert.deepEqual(other.errors, []);
    assert.deepEqual(errors, []);
    await other.page.close();
    await page.close();
  });

  test('another model drops the branch, its distributions, cache and speed, and the link its path', async () => {
    const { page, errors } = await open('#model=sort&gen.temperature=0&gen.prompt=7+2+9+4+3+8+5+6+%7C&gen.path=2.3');
    await waitForTokens(page, 11); // a link's branch is kept on the model it opens on
    await page.locator('button[data-action="step"]').click();
    await waitForTokens(page, 12);
    await page.locator('[data-testid="kv-cache"]').waitFor();
    // Generate, and pick another model while it writes
    await page.locator('button[data-action="generate"]').click();
    await page.locator('#setting-model').selectOption('reverse');
    await page.waitForFunction(() => !new URLSearchParams(location.hash.slice(1)).has('gen.path'));
    await waitForTokens(page, 9);
    await page.waitForTimeout(300); // a step of the old model would land now
    assert.equal((await status(page)).tokens, 9);
    assert.deepEqual(await shownTokens(page), '7 2 9 4 3 8 5 6 |'.split(' '));
    assert.equal(await hashPath(page), null);
    assert.equal(await page.locator('[data-testid="kv-cache"]').count(), 0);
    assert.equal(await page.locator('[data-testid="branch-tree"]').count(), 0);
    assert.equal(await page.locator('[data-testid="next-token-chart"]').count(), 0);
    assert.equal(await page.locator('[data-testid="speed"]').textContent(), '');
    // and it writes the reversed input
    await page.locator('button[data-action="step"]').click();
    await waitForTokens(page, 10);
    assert.equal((await shownTokens(page))[9], '6');
    // A prompt that cannot be read: its error alone, nothing of the branch before it (nor an "Opening…" that never ends)
    for (const [prompt, error] of [
      ['3 7 x |', /'x' is not a token of this task/],
      ['', /Type some tokens first/],
    ]) {
      await page.locator('#gen-prompt').fill(prompt);
      await page.locator('[data-testid="generate-error"]', { hasText: error }).waitFor();
      const text = await page.locator('ap-generate-panel').evaluate((p) => p.shadowRoot.textContent);
      assert.doesNotMatch(text, /Opening|Step once|tokens\/s|done:/);
      assert.equal(await page.locator('[data-testid="kv-cache"]').count(), 0);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a link to a pretrained model not loaded in this tab says to load it again', async () => {
    const { page, errors } = await open('#model=pretrained%3AGPT2LMHeadModel&gen.temperature=0');
    const why = page.locator('[data-testid="generate-unavailable"]');
    await why.waitFor({ timeout: 15_000 });
    assert.match(await why.textContent(), /\u2018GPT2LMHeadModel\u2019 is not loaded in this tab: load it again/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('on GPT-2 from files: Generate in the worker, Stop in the middle, no long task on the page', async () => {
    const { page, errors } = await open('#gen.maxNewTokens=26&gen.seed=5');
    // the untrained model cannot generate, and says why
    await page.locator('[data-testid="generate-unavailable"]').waitFor({ timeout: 15_000 });
    assert.match(await page.locator('[data-testid="generate-unavailable"]').textContent(), /no output head/);
    // nor can BERT, an encoder
    const load = async (dir) => {
      await page.locator('button[data-action="open-pretrained"]').click();
      await page.locator('#pretrained-files').setInputFiles(
        readdirSync(dir)
          .filter((f) => f !== 'expected.json')
          .map((f) => `${dir}${f}`),
      );
      await page.locator('[data-testid="pretrained-dialog"]').waitFor({ state: 'hidden', timeout: 15_000 });
    };
    await load(BERT);
    await page.waitForFunction(() =>
      /is an encoder/.test(
        document.querySelector('ap-generate-panel').shadowRoot.querySelector('[data-testid="generate-unavailable"]')
          ?.textContent ?? '',
      ),
    );
    await load(GPT2);
    // the panel starts from the playground's text on the model loaded; a prompt typed replaces it
    await page.waitForFunction(
      () => document.querySelector('ap-generate-panel').state.prompt === 'The cat sat on the mat.',
    );
    await page.locator('#gen-prompt').fill('The cat sat on the');
    // GPT-2's pieces of the prompt: The ·c at ·s at ·on ·the
    await waitForTokens(page, 7);
    assert.deepEqual(await shownTokens(page), ['The', '\u00b7c', 'at', '\u00b7s', 'at', '\u00b7on', '\u00b7the']);
    // a pretrained model reads any text: no trained task's form under its prompt
    assert.equal(await page.locator('[data-testid="generate-hint"]').count(), 0);
    await watchLongTasks(page, { atLoad: false });
    const tasksBefore = await longTaskCount(page);
    await markPhase(page, 'generate, then stop');
    // Generate, and Stop once two tokens are in: the worker ends after the step in flight (at most one more token
    // than the panel had when Stop was pressed)
    const stopped = await page.evaluate(async () => {
      const panel = document.querySelector('ap-generate-panel');
      const tokens = () => 7 + panel.state.path.length;
      panel.shadowRoot.querySelector('button[data-action="generate"]').click();
      while (tokens() < 9) await new Promise((r) => setTimeout(r, 0));
      panel.shadowRoot.querySelector('button[data-action="stop"]').click();
      return tokens();
    });
    await page.waitForFunction(
      () =>
        document.querySelector('ap-generate-panel').shadowRoot.querySelector('[data-testid="generate-status"]').dataset
          .running === '0',
    );
    const after = await status(page);
    assert.ok(
      after.tokens >= stopped && after.tokens <= stopped + 1,
      `Stop at ${stopped} tokens, stopped at ${after.tokens}`,
    );
    assert.equal(after.done, false);
    assert.equal((await hashPath(page)).split('.').length, after.tokens - 7);
    // Generate again runs to the end (26 new tokens would pass the context of 32: it ends there, at 25)
    await markPhase(page, 'generate to the end');
    await page.locator('button[data-action="generate"]').click();
    await waitForTokens(page, 32);
    assert.equal((await status(page)).done, true);
    assert.match(
      await page.locator('[data-testid="generate-status"]').textContent(),
      /done: the context is full \(the model reads at most 32 tokens\)/,
    );
    const longTasks = await longTasksSince(page, tasksBefore);
    assert.deepEqual(
      longTasks,
      [],
      `main-thread tasks of 50 ms or more while generating: ${describeLongTasks(longTasks)}`,
    );
    await page.screenshot({ path: `${SHOTS}/generate-gpt2.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
