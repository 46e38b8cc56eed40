// Embedding: the one-tag bundle on a static file:// page with no network, attributes,
// shared engine, lazy start, the trace event; what it says when a checkpoint cannot be
// read from file:// or the browser has no wasm SIMD; its pretrained loaders, loaded on
// demand from beside it; the iframe page's height messages; the tutorial page.
// Screenshots go to test-output/screenshots/.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serveDirectory } from '../support/static-server.mjs';
import { launchChromium, openPage } from '../support/browser.mjs';
import { longTaskCount, longTasksSince, markPhase, watchLongTasks } from '../support/long-tasks.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SHOTS = `${ROOT}test-output/screenshots`;
let server, browser, staticDir;

before(async () => {
  assert.ok(existsSync(`${ROOT}dist-web/attention-playground.js`), 'run `npm run build` first');
  mkdirSync(SHOTS, { recursive: true });
  server = await serveDirectory(`${ROOT}dist-web`);
  browser = await launchChromium();
  staticDir = mkdtempSync(join(tmpdir(), 'attention-embed-'));
  // The folder as a tutorial author copies it: the element, its on-demand part, the shipped checkpoints.
  for (const file of ['attention-playground.js', 'attention-playground-pretrained.js'])
    copyFileSync(`${ROOT}dist-web/${file}`, join(staticDir, file));
  cpSync(`${ROOT}dist-web/checkpoints`, join(staticDir, 'checkpoints'), { recursive: true });
});
after(async () => {
  await browser?.close();
  await server?.close();
  if (staticDir) rmSync(staticDir, { recursive: true, force: true });
});

// Counts requests that leave the page's own origin (none are allowed).
async function offlinePage(viewport = { width: 1000, height: 900 }) {
  const opened = await openPage(browser, { viewport });
  await opened.page.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith('file://') || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
    opened.errors.push(`network request: ${url}`);
    return route.abort();
  });
  return opened;
}

const inner = (selector) => `attention-playground${selector}`;

describe('the one-tag bundle', () => {
  test('renders on a static file:// page with no network, and attributes change the view', async () => {
    // From file:// browsers run only classic scripts; the same file is both.
    writeFileSync(
      join(staticDir, 'one.html'),
      `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
      <h1>A tutorial</h1>
      <script defer src="./attention-playground.js"></script>
      <attention-playground id="a" text="the cat sat on the mat" heads="2" controls="none"></attention-playground>`,
    );
    const { page, errors } = await offlinePage();
    const traces = [];
    await page.exposeFunction('reportTrace', (tokens) => traces.push(tokens));
    await page.addInitScript(() =>
      document.addEventListener('trace', (e) => window.reportTrace(e.detail.trace.tokens)),
    );
    await page.goto(pathToFileURL(join(staticDir, 'one.html')).href);
    await page.locator(inner(' ap-heatmap')).first().waitFor();
    assert.equal(await page.locator(inner(' ap-heatmap')).count(), 2);
    assert.equal(await page.locator(inner(' textarea')).count(), 0, 'controls="none" shows no controls');
    await page.waitForFunction(() => true);
    assert.deepEqual(traces[0], [['the', 'cat', 'sat', 'on', 'the', 'mat']]);
    await page.screenshot({ path: `${SHOTS}/embed-one-tag.png`, fullPage: true });

    await page.evaluate(() => {
      const el = document.getElementById('a');
      el.setAttribute('view', 'masks');
      el.setAttribute('mode', 'decoder');
    });
    await page.locator(inner(' ap-heatmap[data-mask="causal"]')).waitFor();
    await page.evaluate(() => document.getElementById('a').setAttribute('view', 'shapes'));
    await page.locator(inner(' ap-shape-flow')).waitFor();
    await page.evaluate(() => {
      const el = document.getElementById('a');
      el.setAttribute('view', 'heads');
      el.setAttribute('heads', '4');
      el.setAttribute('text', 'a b');
    });
    await page.waitForFunction(
      () =>
        document
          .getElementById('a')
          .shadowRoot.querySelector('ap-playground')
          ?.shadowRoot.querySelectorAll('ap-heatmap').length === 4,
    );
    await page.evaluate(() => document.getElementById('a').setAttribute('heads', 'lots'));
    assert.match(await page.locator(inner(' .error')).first().textContent(), /heads: Heads must be a whole number/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('elements on one page share one engine and start only when scrolled into view', async () => {
    writeFileSync(
      join(staticDir, 'two.html'),
      `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
      <script defer src="./attention-playground.js"></script>
      <attention-playground id="a" text="first element"></attention-playground>
      <attention-playground id="b" text="second element" view="shapes"></attention-playground>
      <div style="height: 3000px"></div>
      <attention-playground id="far" text="far below"></attention-playground>`,
    );
    const { page, errors } = await offlinePage({ width: 900, height: 1200 });
    await page.goto(pathToFileURL(join(staticDir, 'two.html')).href);
    await page.locator('#a ap-heatmap').first().waitFor();
    await page.locator('#b ap-shape-flow').waitFor();
    const shared = await page.evaluate(() => {
      const engine = (id) => document.getElementById(id).shadowRoot.querySelector('ap-playground').engine;
      return engine('a') !== null && engine('a') === engine('b');
    });
    assert.equal(shared, true);
    assert.equal(await page.locator('#far .waiting').count(), 1, 'the far element waits off screen');
    assert.equal(await page.locator('#far ap-playground').count(), 0);
    await page.locator('#far').scrollIntoViewIfNeeded();
    await page.locator('#far ap-heatmap').first().waitFor();
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('works as <script type="module"> from a web server', async () => {
    const { page, errors } = await openPage(browser, { viewport: { width: 900, height: 800 } });
    await page.route('**/module.html', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html>
      <meta charset="utf-8"><link rel="icon" href="data:,">
      <script type="module" src="./attention-playground.js"></script>
      <attention-playground text="served as a module" view="head" controls="none"></attention-playground>
      <attention-playground id="odd" text="a b" heads-count="2"></attention-playground>`,
      }),
    );
    await page.goto(server.url + 'module.html');
    await page.locator(inner(' ap-line-view')).waitFor();
    // An attribute that is no setting is reported in the element, not silently ignored.
    assert.match(
      await page.locator('#odd [role="alert"]').textContent(),
      /heads-count: not a setting of the playground/,
    );
    assert.deepEqual(errors, []);
    await page.close();
  });
});

/** Chromium's console lines for a fetch of the checkpoints folder refused on a file:// page. */
const blockedFetch = (line) =>
  line === 'Failed to load resource: net::ERR_FAILED' ||
  /^Access to fetch at 'file:.*\/checkpoints\/[a-z]+\.json' from origin 'null' has been blocked by CORS policy/.test(
    line,
  );

describe('what the one-file element says, and what it loads on demand', () => {
  test('from file://, a shipped checkpoint it cannot fetch is explained in the element, the Train view untrained', async () => {
    writeFileSync(
      join(staticDir, 'checkpoint.html'),
      `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
      <script defer src="./attention-playground.js"></script>
      <attention-playground id="shipped" checkpoint="induction"></attention-playground>
      <attention-playground id="explore" model="reverse"></attention-playground>`,
    );
    const { page, errors } = await offlinePage({ width: 1100, height: 900 });
    await page.goto(pathToFileURL(join(staticDir, 'checkpoint.html')).href);
    const message = page.locator('#shipped [data-problem="checkpoint"]');
    await message.waitFor({ timeout: 15_000 });
    assert.equal(await message.isVisible(), true);
    assert.equal(await message.getAttribute('role'), 'alert');
    const url = pathToFileURL(join(staticDir, 'checkpoints/induction.json')).href;
    const text = await message.textContent();
    assert.ok(
      text.startsWith(
        `Could not load the shipped checkpoint 'induction' from ${url}: browsers block fetch from file:// pages. ` +
          'Serve the folder instead (for example `python3 -m http.server` or `npx vite preview` in it)',
      ),
      text,
    );
    assert.match(text, /or train the model here with the `train` attribute\.$/);
    // Walk item 5: the checkpoint's own task and settings (its plan), untrained (step 0), not the Train view's Sort.
    const record = JSON.parse(readFileSync(`${ROOT}web/public/checkpoints/induction.json`, 'utf8'));
    await page.locator('#shipped ap-train .progress').waitFor();
    assert.equal(await page.locator('#shipped ap-train .progress').getAttribute('data-step'), '0');
    assert.notEqual(record.step, 0);
    const state = await page.locator('#shipped ap-train').evaluate((el) => el.state);
    assert.deepEqual(
      [state.task, state.dModel, state.ffnDim, state.heads],
      ['induction', 64, 128, 2],
      'the settings of record.settings: ' + record.settings,
    );
    assert.match(
      await page.locator('#shipped ap-train').evaluate((el) => el.shadowRoot.textContent.replace(/\s+/g, ' ')),
      /Checkpoint 'induction' could not be loaded \(Failed to fetch\): its task and settings \(Induction: repeat a random sequence\) are shown untrained; press Start to train it here\./,
    );
    assert.equal((await page.locator('#shipped ap-train button[data-action="start"]').textContent()).trim(), 'Start');
    // The same for a shipped model named in Explore mode.
    await page.locator('#explore').scrollIntoViewIfNeeded();
    const explore = page.locator('#explore [data-problem="checkpoint"]');
    await explore.waitFor({ timeout: 15_000 });
    assert.match(
      await explore.textContent(),
      /^Could not load the shipped checkpoint 'reverse' from file:.*\/checkpoints\/reverse\.json: browsers block fetch from file:\/\/ pages\./,
    );
    await page.screenshot({ path: `${SHOTS}/element-checkpoint-file-url.png`, fullPage: true });
    // The browser's own console lines about the blocked fetches are expected; nothing else.
    assert.deepEqual(
      errors.filter((e) => !blockedFetch(e)),
      [],
    );
    await page.close();
  });

  test('an embed without a Weights control names no weights to pick in its note', async () => {
    writeFileSync(
      join(staticDir, 'rows.html'),
      `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
      <script defer src="./attention-playground.js"></script>
      <attention-playground id="rows" view="rows" controls="text,views"></attention-playground>
      <attention-playground id="all" view="rows" controls="all"></attention-playground>`,
    );
    const { page, errors } = await offlinePage({ width: 1100, height: 900 });
    await page.goto(pathToFileURL(join(staticDir, 'rows.html')).href);
    const note = (id) => page.locator(`#${id} [data-testid="why-note"]`);
    await note('rows').waitFor({ timeout: 15_000 });
    await note('all').waitFor({ timeout: 15_000 });
    // Walk item 13: the tutorial's note said "Weights: Random (Xavier) here…" with no Weights control on the page.
    assert.match(await note('rows').textContent(), /Q, K and V are made from each word/);
    assert.doesNotMatch(await note('rows').textContent(), /Weights:/);
    assert.match(await note('all').textContent(), /Weights: Random \(Xavier\) here/);
    assert.deepEqual(
      errors.filter((e) => !blockedFetch(e)),
      [],
    );
    await page.close();
  });

  test('a browser without wasm SIMD gets a sentence in each element, not a trap', async () => {
    const { page, errors } = await offlinePage();
    // As WebKit with JSC_useWasmSIMD=0 (tests/browsers/ runs that browser): the feature probe fails.
    await page.addInitScript(() => {
      WebAssembly.validate = () => false;
    });
    writeFileSync(
      join(staticDir, 'no-simd.html'),
      `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
      <script defer src="./attention-playground.js"></script>
      <attention-playground id="a" text="the cat sat"></attention-playground>
      <attention-playground id="b" train task="reverse"></attention-playground>`,
    );
    await page.goto(pathToFileURL(join(staticDir, 'no-simd.html')).href);
    for (const id of ['a', 'b']) await page.locator(`#${id} [data-problem="engine"]`).waitFor();
    const message = page.locator('#a [data-problem="engine"]');
    await message.waitFor();
    assert.match(await message.textContent(), /^This attention playground needs WebAssembly SIMD, which this browser/);
    assert.equal(await page.locator('#a ap-playground').count(), 0);
    assert.equal(await page.locator('#b ap-train').count(), 0);
    await page.screenshot({ path: `${SHOTS}/element-no-simd.png` });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('loads its pretrained loaders on demand from beside it, from file:// too, and says when they are missing', async () => {
    const page1 = `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
      <script defer src="./attention-playground.js"></script>
      <attention-playground id="p" text="the cat sat" controls="model,text,views"></attention-playground>`;
    writeFileSync(join(staticDir, 'pretrained.html'), page1);
    mkdirSync(join(staticDir, 'alone'), { recursive: true });
    copyFileSync(join(staticDir, 'attention-playground.js'), join(staticDir, 'alone/attention-playground.js'));
    writeFileSync(join(staticDir, 'alone/pretrained.html'), page1);
    const fixtures = `${ROOT}tests/reference/fixtures/pretrained/gpt2-tiny/`;
    const files = readdirSync(fixtures)
      .filter((f) => f !== 'expected.json')
      .map((f) => fixtures + f);
    const onDemand = (page) =>
      page.evaluate(() => [...document.scripts].map((s) => s.src.split('/').pop()).filter((n) => /pretrained/.test(n)));

    const { page, errors } = await offlinePage({ width: 1100, height: 900 });
    await page.goto(pathToFileURL(join(staticDir, 'pretrained.html')).href);
    await page.locator('#p ap-heatmap').first().waitFor();
    assert.deepEqual(await onDemand(page), [], 'nothing loaded before it is asked for');
    await page.locator('#p button[data-action="open-pretrained"]').click();
    await page.locator('#p #pretrained-files').setInputFiles(files);
    await page.locator('#p [data-testid="pretrained-note"]').waitFor({ timeout: 30_000 });
    assert.match(await page.locator('#p [data-testid="pretrained-note"]').textContent(), /Loaded .*2 layers × 4 heads/);
    assert.deepEqual(await onDemand(page), ['attention-playground-pretrained.js']);
    // GPT-2's heads: 4 per layer over its tokenizer's pieces.
    await page.waitForFunction(
      () =>
        document
          .querySelector('#p')
          .shadowRoot.querySelector('ap-playground')
          ?.shadowRoot.querySelectorAll('ap-heatmap').length === 4,
    );
    await page.locator('#p [data-testid="pretrained-summary"]').waitFor();
    // The model picker looks for the shipped checkpoints' list, which a file:// page cannot fetch.
    assert.deepEqual(
      errors.filter((e) => !blockedFetch(e)),
      [],
    );
    await page.close();

    // Without the file beside it: the panel says what is missing and where it was looked for.
    const alone = await offlinePage({ width: 1100, height: 900 });
    await alone.page.goto(pathToFileURL(join(staticDir, 'alone/pretrained.html')).href);
    await alone.page.locator('#p ap-heatmap').first().waitFor();
    await alone.page.locator('#p button[data-action="open-pretrained"]').click();
    await alone.page.locator('#p #pretrained-files').setInputFiles(files);
    const error = alone.page.locator('#p [data-testid="pretrained-error"]');
    await error.waitFor({ timeout: 15_000 });
    assert.match(
      await error.textContent(),
      /the pretrained loaders \(file:\/\/.*\/alone\/attention-playground-pretrained\.js\) did not load: attention-playground-pretrained\.js must sit next to the element's script/,
    );
    assert.deepEqual(
      alone.errors.filter((e) => !blockedFetch(e) && e !== 'Failed to load resource: net::ERR_FILE_NOT_FOUND'),
      [],
    );
    await alone.page.close();
  });
});

describe('the element in train mode', () => {
  test("shows a shipped checkpoint, trains live with given settings on the page's thread, and reports unknown attributes", async () => {
    const { page, errors } = await openPage(browser, { viewport: { width: 1100, height: 900 } });
    await watchLongTasks(page);
    await page.route('**/train-element.html', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html>
      <meta charset="utf-8"><link rel="icon" href="data:,">
      <script src="./attention-playground.js"></script>
      <attention-playground id="shipped" checkpoint="induction"></attention-playground>
      <attention-playground id="live" train task="reverse" d-model="32" ffn-dim="64" steps="60" stop-at="0" autostart
        controls="buttons,residual"></attention-playground>`,
      }),
    );
    await page.goto(server.url + 'train-element.html');
    const record = JSON.parse(readFileSync(`${ROOT}web/public/checkpoints/induction.json`, 'utf8'));
    const progressOf = (id) => page.locator(`#${id} ap-train .progress`);
    await page.waitForFunction(
      (step) =>
        document.querySelector('#shipped').shadowRoot.querySelector('ap-train')?.shadowRoot.querySelector('.progress')
          ?.dataset.step === String(step),
      record.step,
    );
    assert.equal(await progressOf('shipped').getAttribute('data-status'), 'done');
    assert.equal(await page.locator('#shipped ap-train aside').count(), 0, 'default controls: buttons only');
    assert.equal(
      await page.locator('#shipped ap-train button[data-action="start"]').textContent(),
      'Train it yourself',
    );
    // Live: trains by itself to its 60 steps; only the residual switch shows.
    const liveStatus = () =>
      document.querySelector('#live').shadowRoot.querySelector('ap-train')?.shadowRoot.querySelector('.progress')
        ?.dataset.status;
    await page.waitForFunction(liveStatus, null, { polling: 5 });
    const tasksBefore = await longTaskCount(page);
    await markPhase(page, 'the live element trains');
    await page.waitForFunction((f) => new Function(`return (${f})()`)() === 'done', liveStatus.toString(), {
      timeout: 120_000,
    });
    assert.equal(await progressOf('live').getAttribute('data-step'), '60');
    assert.deepEqual(
      await page.locator('#live ap-train aside [data-setting]').evaluateAll((els) => els.map((e) => e.dataset.setting)),
      ['residual'],
    );
    const longest = (await longTasksSince(page, tasksBefore)).map((task) => task.ms);
    // On the page's thread (no worker in a one-file bundle) training shares tasks with the page: 12 ms slices, a
    // held-out evaluation now and then, the redraws. Quiet runs, and runs beside a native build, see tasks of
    // 50-90 ms; one full run of 2026-11-22 saw up to 2.3 s while the worker-trained Train view in the same run
    // also broke its 50 ms bound, i.e. a machine starved by other work, which a test cannot tell from a slow page.
    // So this asserts only what a learner would call broken, a page frozen for 5 s; speed is for the benchmarks.
    // The site and the iframe train in workers, where tests/e2e/train.test.mjs holds tasks under 50 ms.
    assert.ok(
      longest.every((d) => d < 5000),
      `main-thread tasks while training on the page: ${longest.join(', ')} ms`,
    );
    // Bad attributes are reported (added once the live run is done: a third model would share the thread).
    await page.evaluate(() => {
      const bad = document.createElement('attention-playground');
      for (const [name, value] of [
        ['id', 'bad'],
        ['train', ''],
        ['steps', 'many'],
        ['bogus', '1'],
      ])
        bad.setAttribute(name, value);
      document.body.append(bad);
    });
    await page.locator('#bad [role="alert"]').first().waitFor();
    const alerts = await page.locator('#bad [role="alert"]').allTextContents();
    assert.ok(
      alerts.some((a) => /bogus: not a setting of the Train view/.test(a)),
      alerts.join(' | '),
    );
    assert.ok(
      alerts.some((a) => /^steps:/.test(a)),
      alerts.join(' | '),
    );
    await page.screenshot({ path: `${SHOTS}/element-train.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the iframe page takes the same parameters', async () => {
    const { page, errors } = await openPage(browser, { viewport: { width: 1000, height: 900 } });
    await page.goto(server.url + 'embed.html?checkpoint=reverse&controls=buttons,checkpoints');
    const record = JSON.parse(readFileSync(`${ROOT}web/public/checkpoints/reverse.json`, 'utf8'));
    await page.waitForFunction(
      (step) =>
        document.querySelector('ap-train')?.shadowRoot.querySelector('.progress')?.dataset.step === String(step),
      record.step,
    );
    assert.equal(await page.locator('ap-train [data-checkpoint="reverse"]').getAttribute('aria-pressed'), 'true');
    await page.goto(server.url + 'embed.html?train&task=copy&length=4&steps=30&autostart&nonsense=2');
    await page.waitForFunction(
      () => document.querySelector('ap-train')?.shadowRoot.querySelector('.progress')?.dataset.status === 'done',
      null,
      { timeout: 120_000 },
    );
    assert.equal(await page.locator('ap-train .progress').getAttribute('data-step'), '30');
    assert.match(await page.locator('body > [role="alert"]').textContent(), /unknown setting 'nonsense'/);
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('the iframe page', () => {
  test('takes settings from the URL and reports its height to the parent', async () => {
    const { page, errors } = await openPage(browser, { viewport: { width: 1000, height: 800 } });
    await page.goto(server.url + 'index.html');
    const height = await page.evaluate(
      () =>
        new Promise((resolve) => {
          window.addEventListener('message', (event) => {
            if (event.data?.type !== 'attention-playground:height') return;
            window.reportedHeight = event.data.height; // the latest: heatmaps draw again once they have measured their boxes
            document.querySelector('iframe').style.height = `${event.data.height}px`;
            if (event.data.height > 300) resolve(event.data.height);
          });
          const frame = document.createElement('iframe');
          frame.src = 'embed.html?text=one+two+three&mode=decoder&view=masks&controls=none';
          frame.style.cssText = 'width: 700px; border: 0';
          document.body.prepend(frame);
        }),
    );
    const frame = page.frame({ url: /embed\.html/ });
    await frame.locator('ap-heatmap[data-mask="causal"]').waitFor();
    assert.ok(height > 300);
    const inside = () => frame.evaluate(() => document.documentElement.scrollHeight);
    await page
      .waitForFunction((h) => Math.abs(window.reportedHeight - h) <= 2, await inside(), { timeout: 5_000 })
      .catch(async () => {
        const reported = await page.evaluate(() => window.reportedHeight);
        assert.fail(`reported ${reported}, document is ${await inside()}`);
      });
    assert.equal(await frame.locator('textarea').count(), 0);
    await page.screenshot({ path: `${SHOTS}/embed-iframe.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('the tutorial page', () => {
  test('renders every section with one shared engine and no console errors', async () => {
    const { page, errors } = await openPage(browser, { viewport: { width: 1100, height: 900 } });
    await page.goto(server.url + 'tutorial.html');
    const sections = await page.locator('body > section').evaluateAll((all) => all.map((s) => s.id));
    assert.deepEqual(sections, [
      'linear',
      'context',
      'walk',
      'scale',
      'masks',
      'heads',
      'cross',
      'residual',
      'activation',
      'scale-training',
      'induction',
      'trained-heads',
      'positions',
      'gqa',
      'window',
      'modern-block',
      'generate',
    ]);
    const expected = {
      linear: 'ap-row-wise',
      context: 'table.changes',
      walk: 'ap-head-walk',
      scale: 'ap-heatmap',
      masks: 'ap-heatmap[data-mask="causal"]',
      heads: 'ap-head-split',
      cross: 'ap-heatmap',
      residual: 'ap-train ap-heatmap',
      activation: 'ap-train ap-heatmap',
      'scale-training': 'ap-train ap-heatmap',
      induction: 'ap-train ap-heatmap',
      'trained-heads': 'ap-train ap-heatmap',
      positions: 'ap-positions',
      gqa: 'ap-head-split',
      window: 'ap-heatmap[data-mask="window"]',
      'modern-block': 'ap-tensor-view',
      generate: 'ap-generate-panel [data-testid="generated-text"]',
    };
    for (const [id, selector] of Object.entries(expected)) {
      await page.locator(`#${id}`).scrollIntoViewIfNeeded();
      await page.locator(`#${id} attention-playground ${selector}`).first().waitFor({ timeout: 15_000 });
    }
    // The developer status line (engine, ms, heap) is the playground page's, not a tutorial's.
    assert.equal(await page.locator('#heads attention-playground ap-playground .status').count(), 0);
    // The context section compares against its compare-text: one edited row for the linear layer.
    const linearChanged = await page
      .locator('#context table.changes tbody tr')
      .evaluateAll((rows) => rows.map((r) => r.dataset.linearChanged));
    assert.deepEqual(linearChanged, ['0', '1', '0', '0', '0', '0']);
    // Without scaling, d_k = 256 saturates the softmax: some weight close to 1.
    const maxUnscaled = await page
      .locator('#scale attention-playground[scale="0"] ap-heatmap')
      .evaluate((el) => Math.max(...el.values));
    assert.ok(maxUnscaled > 0.9, `largest unscaled weight ${maxUnscaled}`);
    const last = page.locator('#trained-heads attention-playground').last();
    await last.scrollIntoViewIfNeeded();
    await last.locator('ap-heatmap').first().waitFor({ timeout: 15_000 });
    // The modern-block sections' comparisons, each started by scrolling to it: 5 + 3 + 3 + 2 + 2 runs.
    for (const element of await page
      .locator('#positions, #gqa, #window, #modern-block')
      .locator('attention-playground[train]')
      .all()) {
      await element.scrollIntoViewIfNeeded();
      await element.locator('ap-train').waitFor({ timeout: 15_000 });
    }
    // One engine worker shared by every Explore element, and one per training run: 2 + 3 + 2 compared, 1, 2 checkpoints,
    // and the modern sections' 15.
    assert.equal(page.workers().length, 1 + 10 + 15, 'one shared engine worker, one per training run');
    await page.screenshot({ path: `${SHOTS}/tutorial.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
