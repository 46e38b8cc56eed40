// Generation in embeds, in Chromium: the one-tag element in generate mode (`generate`
// with the Generate panel's attributes) on a folder as a tutorial author copies it — its
// panel and full engine loaded on demand from beside it, a shipped trained decoder writing
// greedily, a pretrained GPT-2 loaded with the model picker writing too, BERT and the
// untrained model saying why they cannot, bad attributes said in the element, a missing
// script explained — and the iframe page (embed.html?generate&...) with its link that
// reopens the same prompt, settings and branch in the playground page.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { serveDirectory } from '../support/static-server.mjs';
import { launchChromium, openPage } from '../support/browser.mjs';
import { ROOT, SHOTS } from '../support/site.mjs';

const ON_DEMAND = ['attention-playground-pretrained.js', 'attention-playground-generate.js'];
let site, folder, browser, dir;

before(async () => {
  assert.ok(existsSync(`${ROOT}dist-web/attention-playground-generate.js`), 'run `npm run build` first');
  mkdirSync(SHOTS, { recursive: true });
  dir = mkdtempSync(join(tmpdir(), 'attention-generate-'));
  // The folder as a tutorial author copies it: the element, its on-demand parts, the shipped checkpoints.
  for (const file of ['attention-playground.js', ...ON_DEMAND])
    copyFileSync(`${ROOT}dist-web/${file}`, join(dir, file));
  cpSync(`${ROOT}dist-web/checkpoints`, join(dir, 'checkpoints'), { recursive: true });
  // The same without the Generate panel's script.
  mkdirSync(join(dir, 'alone'));
  copyFileSync(join(dir, 'attention-playground.js'), join(dir, 'alone/attention-playground.js'));
  cpSync(join(dir, 'checkpoints'), join(dir, 'alone/checkpoints'), { recursive: true });
  site = await serveDirectory(`${ROOT}dist-web`, { isolated: true });
  folder = await serveDirectory(dir);
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await site?.close();
  await folder?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A page of the author's folder holding `body` under the element's script. */
function authorPage(name, body, where = '') {
  writeFileSync(
    join(dir, where, name),
    `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
    <script defer src="./attention-playground.js"></script>${body}`,
  );
  return `${folder.url}${where ? `${where}/` : ''}${name}`;
}

/** The scripts the page has added beside the element's (its on-demand parts), in order. */
const onDemand = (page) =>
  page.evaluate(() =>
    [...document.scripts].map((s) => s.src.split('/').pop()).filter((n) => /^attention-playground-/.test(n)),
  );

/** Presses Step or Generate and waits until the panel has written and is not generating any more. */
async function press(panel, action) {
  const before = await panel.locator('[data-testid="generate-status"]').getAttribute('data-tokens');
  await panel.locator(`button[data-action="${action}"]`).click();
  await panel
    .locator(`[data-testid="generate-status"][data-running="0"]:not([data-tokens="${before}"])`)
    .waitFor({ state: 'attached', timeout: 20_000 });
}

const written = (panel) =>
  panel
    .locator('[data-testid="generated-text"] .new-token')
    .allTextContents()
    .then((t) => t.map((s) => s.trim()));

describe('the one-tag element in generate mode', () => {
  test('loads the panel on demand and writes with a shipped trained decoder; the others stay as they were', async () => {
    const url = authorPage(
      'generate.html',
      `<attention-playground id="plain" text="the cat sat" controls="none"></attention-playground>
      <attention-playground id="g" generate model="reverse" prompt="5 1 7 3 0 6 2 4 |" temperature="0"
        max-new-tokens="8"></attention-playground>`,
    );
    const { page, errors } = await openPage(browser, { viewport: { width: 1100, height: 900 } });
    await page.goto(url);
    await page.locator('#plain ap-heatmap').first().waitFor();
    const panel = page.locator('#g ap-generate-panel');
    await page.locator('#g').scrollIntoViewIfNeeded();
    await panel.locator('[data-testid="generated-text"]').waitFor({ timeout: 20_000 });
    // The playground (hidden without `controls`) loads the model; the panel generates on the full engine.
    assert.equal(await page.locator('#g ap-playground').isVisible(), false);
    assert.deepEqual((await onDemand(page)).sort(), [...ON_DEMAND].sort());
    await press(panel, 'step');
    assert.deepEqual(await written(panel), ['4']);
    const bar = panel.locator('[data-testid="next-token-chart"] button.bar').first();
    assert.equal((await bar.locator('.label').textContent()).trim(), '4');
    assert.equal((await bar.locator('.value').textContent()).trim(), '97.0%');
    // Drawn with the design tokens the element carries (the panel has none of its own): the bar is filled.
    const fill = await bar.locator('.fill').evaluate((e) => getComputedStyle(e).backgroundColor);
    assert.notEqual(fill, 'rgba(0, 0, 0, 0)');
    await press(panel, 'generate');
    assert.deepEqual(await written(panel), '4 2 6 0 3 7 1 5'.split(' '));
    // Attributes change the generation: another prompt opens a new branch.
    await page.locator('#g').evaluate((e) => e.setAttribute('prompt', '1 2 3 4 5 6 7 8 |'));
    await panel.locator('[data-testid="generate-status"][data-tokens="9"]').waitFor({ state: 'attached' });
    await press(panel, 'generate');
    assert.deepEqual(await written(panel), '8 7 6 5 4 3 2 1'.split(' '));
    // The link opens the same prompt, settings and branch in the playground page beside the script.
    const href = await page.locator('#g [data-testid="open-in-playground"]').getAttribute('href');
    const link = new URL(href);
    assert.equal(link.pathname.split('/').pop(), 'index.html');
    const hash = new URLSearchParams(link.hash.slice(1));
    assert.equal(hash.get('model'), 'reverse');
    assert.equal(hash.get('gen.prompt'), '1 2 3 4 5 6 7 8 |');
    assert.equal(hash.get('gen.temperature'), '0');
    assert.equal(hash.get('gen.maxNewTokens'), '8');
    assert.equal(hash.get('gen.path').split('.').length, 8);
    assert.equal(hash.get('gen.tree'), null); // the branches of the prompt before are not this prompt's
    // The path and tree attributes reopen a branch (replayed: its distribution shows) and the tree's other branches
    await page.locator('#g').evaluate((e) => {
      e.setAttribute('path', '8.7');
      e.setAttribute('tree', '0-1.2');
    });
    await panel.locator('[data-testid="next-token-chart"][data-position="10"]').waitFor({ timeout: 20_000 });
    assert.deepEqual(await written(panel), ['8', '7']);
    assert.deepEqual(
      await panel.locator('[data-testid="branch-tree"] button.branch').evaluateAll((b) => b.map((e) => e.dataset.path)),
      ['', '1.2', '8.7'],
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('says what is wrong: bad values, unknown attributes, a model that cannot write, a missing script', async () => {
    const url = authorPage(
      'problems.html',
      `<attention-playground id="bad" generate model="reverse" prompt="5 1 |" temperature="-1" top-k="x" top-q="3"></attention-playground>
      <attention-playground id="untrained" generate prompt="the cat"></attention-playground>`,
    );
    const { page, errors } = await openPage(browser, { viewport: { width: 1100, height: 900 } });
    await page.goto(url);
    // The panel's attribute names and ranges come with its part: said once it is here.
    const panel = page.locator('#bad ap-generate-panel');
    await panel.locator('[data-testid="generated-text"]').waitFor({ timeout: 20_000 });
    const alerts = (await page.locator('#bad [role="alert"]').allTextContents()).join('\n');
    assert.match(alerts, /Temperature is '-1'; it must be 0 to 2\./);
    assert.match(alerts, /Top-k is 'x'; it must be a whole number 0 to 100\./);
    assert.match(alerts, /top-q: not a setting of the playground/);
    assert.equal(alerts.split('\n').length, 3, alerts);
    // The rest of the attributes still count: the panel opens on them (the bad ones at their defaults).
    assert.equal(await panel.locator('label:has(input[data-setting="temperature"]) output').textContent(), '1');
    await page.locator('#untrained').scrollIntoViewIfNeeded();
    const untrained = await page.locator('#untrained [data-testid="generate-unavailable"]').textContent();
    assert.match(untrained, /The untrained playground model has no output head to predict a next token with/);
    // this element shows no Model picker (no controls): the message names its model attribute instead
    assert.match(untrained, /the element’s model attribute \(model="reverse"/);
    assert.doesNotMatch(untrained, /picker/i);
    assert.equal(await page.locator('#untrained [data-testid="open-in-playground"]').count(), 0);
    assert.deepEqual(errors, []);
    await page.close();

    // A pretrained model that is not loaded (a tab loads one only with its Model picker): the panel says so, as the
    // playground page's does, and how this element loads one; without a picker shown, not "in the Model picker".
    const gone = await openPage(browser, { viewport: { width: 1100, height: 900 } });
    await gone.page.goto(
      authorPage(
        'not-loaded.html',
        `<attention-playground id="gone" generate model="pretrained:GPT2LMHeadModel"></attention-playground>
        <attention-playground id="picker" generate controls="model" model="pretrained:GPT2LMHeadModel"></attention-playground>`,
      ),
    );
    const why = gone.page.locator('#gone [data-testid="generate-unavailable"]');
    await why.waitFor({ timeout: 20_000 });
    assert.match(await why.textContent(), /\u2018GPT2LMHeadModel\u2019 is not loaded in this tab/);
    assert.match(await why.textContent(), /controls="model"/);
    const withPicker = gone.page.locator('#picker [data-testid="generate-unavailable"]');
    await withPicker.waitFor({ timeout: 20_000 });
    assert.match(
      await withPicker.textContent(),
      /\u2018GPT2LMHeadModel\u2019 is not loaded in this tab: load it again with \u201cLoad a pretrained model\u2026\u201d in the Model picker/,
    );
    // the playground the picker shows says it too, in the page's words
    assert.match(
      await gone.page.locator('#picker [data-testid="model-error"]').textContent(),
      /\u2018GPT2LMHeadModel\u2019 is not loaded in this tab/,
    );
    await gone.page.screenshot({ path: `${SHOTS}/embed-generate-not-loaded.png`, fullPage: true });
    assert.deepEqual(gone.errors, []);
    await gone.page.close();

    const alone = await openPage(browser, { viewport: { width: 1100, height: 900 } });
    await alone.page.goto(
      authorPage(
        'alone.html',
        `<attention-playground id="g" generate model="reverse"></attention-playground>`,
        'alone',
      ),
    );
    const problem = alone.page.locator('#g [data-problem="generate"]');
    await problem.waitFor();
    assert.match(
      await problem.textContent(),
      /The Generate panel could not be loaded: the Generate panel \(http:.*\/alone\/attention-playground-generate\.js\) did not load: attention-playground-generate\.js must sit next to the element's script/,
    );
    assert.deepEqual(
      alone.errors.filter((e) => !/404/.test(e)),
      [],
    );
    await alone.page.close();
  });

  test('from file://, a pretrained GPT-2 loaded with the model picker writes; BERT says why it cannot', async () => {
    const served = authorPage(
      'pretrained.html',
      `<attention-playground id="p" generate controls="model" prompt="hello world" temperature="0" max-new-tokens="3"></attention-playground>`,
    );
    // Its on-demand parts are classic scripts: a file:// page loads them too.
    const url = pathToFileURL(join(dir, new URL(served).pathname.split('/').pop())).href;
    const { page, errors } = await openPage(browser, { viewport: { width: 1100, height: 900 } });
    await page.goto(url);
    const panel = page.locator('#p ap-generate-panel');
    await panel.locator('[data-testid="generate-unavailable"]').waitFor({ timeout: 20_000 });
    const load = async (fixture) => {
      const files = readdirSync(`${ROOT}tests/reference/fixtures/pretrained/${fixture}`)
        .filter((f) => f !== 'expected.json')
        .map((f) => `${ROOT}tests/reference/fixtures/pretrained/${fixture}/${f}`);
      await page.locator('#p button[data-action="open-pretrained"]').click();
      await page.locator('#p #pretrained-files').setInputFiles(files);
      await page.locator('#p [data-testid="pretrained-note"]').waitFor({ timeout: 30_000 });
    };
    await load('gpt2-tiny');
    await panel.locator('[data-testid="generated-text"]').waitFor({ timeout: 20_000 });
    await press(panel, 'generate');
    assert.equal((await written(panel)).length, 3);
    assert.equal(
      await page.locator('#p [data-testid="open-in-playground"]').count(),
      0,
      'a file-loaded model has no link',
    );
    await load('bert-tiny');
    await panel.locator('[data-testid="generate-unavailable"]').waitFor({ timeout: 20_000 });
    assert.match(
      await panel.locator('[data-testid="generate-unavailable"]').textContent(),
      /is an encoder: it reads the whole text at once.*no next token to write/,
    );
    assert.deepEqual((await onDemand(page)).sort(), [...ON_DEMAND].sort());
    // The model picker asks for the shipped checkpoints' list, which a file:// page cannot fetch.
    assert.deepEqual(
      errors.filter(
        (e) =>
          e !== 'Failed to load resource: net::ERR_FAILED' &&
          !/^Access to fetch at 'file:.*\/checkpoints\/index\.json' from origin 'null' has been blocked by CORS/.test(
            e,
          ),
      ),
      [],
    );
    await page.close();
  });
});

describe('the iframe page in generate mode', () => {
  test('shows the panel from its query, and its link reopens the same prompt, settings and branch in the playground', async () => {
    const { page, errors } = await openPage(
      browser,
      { viewport: { width: 1100, height: 900 } },
      { onlyFrom: site.url },
    );
    const query =
      'generate&model=reverse&prompt=5+1+7+3+0+6+2+4+%7C&temperature=0.5&top-k=3&seed=7&max-new-tokens=4&top-q=1';
    await page.goto(`${site.url}embed.html?${query}`);
    assert.match(await page.locator('[role="alert"]').textContent(), /Ignored in the link: unknown setting 'top-q'/);
    const panel = page.locator('ap-generate-panel');
    await panel.locator('[data-testid="generated-text"]').waitFor({ timeout: 20_000 });
    assert.equal(await page.locator('ap-playground').isVisible(), false);
    await press(panel, 'generate');
    const tokens = await written(panel);
    assert.deepEqual(tokens, ['4', '2', '6', '0']);
    // Branch: the second token's other candidate, "what if this token?"
    await panel.locator('[data-testid="generated-text"] .new-token').nth(1).click();
    const other = panel.locator('[data-testid="next-token-chart"] button.bar').nth(1);
    const otherToken = (await other.locator('.label').textContent()).trim();
    await other.click();
    await panel
      .locator('[data-testid="generate-status"][data-tokens="11"][data-running="0"]')
      .waitFor({ state: 'attached' });
    const branch = await written(panel);
    assert.deepEqual(branch, ['4', otherToken]);
    const href = await page.locator('[data-testid="open-in-playground"]').getAttribute('href');
    const link = new URL(href);
    assert.equal(link.origin + link.pathname, `${site.url}index.html`);

    const opened = await openPage(browser, { viewport: { width: 1300, height: 1000 } }, { onlyFrom: site.url });
    await opened.page.goto(href);
    const reopened = opened.page.locator('ap-generate-panel');
    await reopened.locator('[data-testid="generated-text"] .new-token').first().waitFor({ timeout: 20_000 });
    assert.deepEqual(await written(reopened), branch);
    assert.equal(await reopened.locator('#gen-prompt').inputValue(), '5 1 7 3 0 6 2 4 |');
    const shown = async (setting) =>
      (await reopened.locator(`label:has(input[data-setting="${setting}"]) output`).textContent()).trim();
    assert.deepEqual([await shown('temperature'), await shown('topK')], ['0.5', '3']);
    assert.equal(await reopened.locator('input[data-setting="seed"]').inputValue(), '7');
    assert.equal(await reopened.locator('input[data-setting="maxNewTokens"]').inputValue(), '4');
    await opened.page.screenshot({ path: `${SHOTS}/generate-link-reopened.png` });
    assert.deepEqual(opened.errors, []);
    await opened.page.close();
    assert.deepEqual(errors, []);
    await page.close();
  });
});
