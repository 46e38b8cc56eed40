// "Try a real model" and the "Load a pretrained model…" dialog, in real Chromium against
// the production build (dist-web/). The real model (GPT-2 small, model/pretrained-models.ts
// REAL_MODELS) is fetched from the hub the page is configured with: the base URL setting
// the dialog edits, remembered in localStorage ('attention-playground:hub-base-url'),
// which each page here sets to a local server in the hub's layout serving the tiny GPT-2
// fixture as openai-community/gpt2. The server counts every request, so the tests can
// tell that the size is asked (HEAD) before anything is downloaded, that a reload reads
// the model from Cache Storage without any request, and that clearing the cache works.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { openPage } from '../support/browser.mjs';
import { ROOT, SHOTS, useSite } from '../support/site.mjs';

const FIXTURE = `${ROOT}tests/reference/fixtures/pretrained/gpt2-tiny/`;
const REPO = 'openai-community/gpt2';
const FILES = ['config.json', 'tokenizer.json', 'model.safetensors'];
const SIZE = FILES.reduce((sum, f) => sum + readFileSync(FIXTURE + f).length, 0);
/** How the page shows GPT-2's pieces of "The cat sat on the mat." (a leading space as '·'). */
const GPT2_TOKENS = ['The', '\u00b7c', 'at', '\u00b7s', 'at', '\u00b7on', '\u00b7the', '\u00b7m', 'at', '.'];
const HUB_KEY = 'attention-playground:hub-base-url';
const CACHE = 'attention-playground-models';
/** The checkpoint families the engine declares (its description, as the package's generated schema holds it). */
const FAMILIES = [
  ...readFileSync(`${ROOT}wasm/src/schema.generated.ts`, 'utf8').matchAll(/"name": "(\w+)",\s*"tokenizer"/g),
].map((m) => m[1]);

const site = useSite();

// The hub: /openai-community/gpt2/resolve/main/{file}, with CORS (the site is cross-origin isolated).
// slow: model.safetensors trickles (2 kB every 100 ms); fail: it answers 500; noHead: HEAD answers 405;
// truncated: model.safetensors is cut short (a whole download of a file the engine rejects).
// noCors: every answer lacks the CORS header, so the browser's fetch gets no answer at all ("Failed to fetch").
const hub = {
  url: '',
  server: null,
  requests: [],
  slow: false,
  fail: false,
  noHead: false,
  truncated: false,
  noCors: false,
};

before(async () => {
  hub.server = createServer((request, response) => {
    const path = new URL(request.url, 'http://x').pathname;
    hub.requests.push(`${request.method} ${path}`);
    const headers = hub.noCors
      ? {}
      : { 'access-control-allow-origin': '*', 'cross-origin-resource-policy': 'cross-origin' };
    const file = path.startsWith(`/${REPO}/resolve/main/`) ? path.slice(`/${REPO}/resolve/main/`.length) : '';
    if (!FILES.includes(file)) {
      response.writeHead(404, headers).end('not found');
      return;
    }
    if (request.method === 'HEAD' && hub.noHead) {
      response.writeHead(405, headers).end();
      return;
    }
    if (hub.fail && file === 'model.safetensors') {
      response.writeHead(500, headers).end('broken');
      return;
    }
    let body = readFileSync(FIXTURE + file);
    if (hub.truncated && file === 'model.safetensors') body = body.subarray(0, 5000);
    response.writeHead(200, { ...headers, 'content-type': 'application/octet-stream', 'content-length': body.length });
    if (request.method === 'HEAD') {
      response.end();
      return;
    }
    if (hub.slow && file === 'model.safetensors') {
      let at = 0;
      const timer = setInterval(() => {
        if (at >= body.length) {
          clearInterval(timer);
          response.end();
          return;
        }
        response.write(body.subarray(at, at + 2048));
        at += 2048;
      }, 100);
      response.on('close', () => clearInterval(timer));
      return;
    }
    response.end(body);
  });
  await new Promise((resolve) => hub.server.listen(0, '127.0.0.1', resolve));
  hub.url = `http://127.0.0.1:${hub.server.address().port}`;
});
after(() => new Promise((resolve) => hub.server.close(resolve)));

/** A page whose hub is the local one (at `hash`), that records console errors and any request elsewhere. */
async function open(viewport = { width: 1400, height: 1000 }, hash = '') {
  const { page, errors } = await openPage(site.browser, { viewport });
  page.on('request', (request) => {
    const url = request.url();
    if (![site.url, hub.url, 'blob:', 'data:'].some((prefix) => url.startsWith(prefix)))
      errors.push(`external request: ${url}`);
  });
  await page.addInitScript(([key, url]) => localStorage.setItem(key, url), [HUB_KEY, hub.url]);
  await page.goto(site.url + hash);
  await page.locator('ap-heatmap').first().waitFor({ timeout: 20_000 });
  return { page, errors };
}

/** Row labels of the first up-to-date heatmap (its accessible table). */
const rows = (page) =>
  page.evaluate(() => {
    const map = document.querySelector('ap-playground').shadowRoot.querySelector('.view:not(.stale) ap-heatmap');
    return map ? [...map.shadowRoot.querySelectorAll('table th[scope="row"]')].map((th) => th.textContent) : [];
  });

async function waitForRows(page, want) {
  await page
    .waitForFunction(
      (w) => {
        const map = document.querySelector('ap-playground').shadowRoot.querySelector('.view:not(.stale) ap-heatmap');
        return (
          map &&
          JSON.stringify([...map.shadowRoot.querySelectorAll('table th[scope="row"]')].map((th) => th.textContent)) ===
            w
        );
      },
      JSON.stringify(want),
      { timeout: 20_000 },
    )
    .catch(async () => assert.fail(`rows: ${JSON.stringify(await rows(page))}`));
}

/** The dialog's box, whether it is open, and where focus is (inside it, on its button, or elsewhere). */
const dialogState = (page) =>
  page.evaluate(() => {
    const loader = document.querySelector('ap-playground').shadowRoot.querySelector('ap-pretrained-loader');
    const root = loader.shadowRoot;
    const dialog = root.querySelector('dialog');
    const box = dialog.getBoundingClientRect();
    const focused = root.activeElement;
    const button = root.querySelector('[data-action="open-pretrained"]');
    return {
      open: dialog.open,
      box: { left: box.left, top: box.top, right: box.right, bottom: box.bottom },
      viewport: { width: innerWidth, height: innerHeight },
      focusInside: !!focused && dialog.contains(focused),
      focusOnButton: focused === button,
      expanded: button.getAttribute('aria-expanded'),
      haspopup: button.getAttribute('aria-haspopup'),
      controls: root.getElementById(button.getAttribute('aria-controls')) === dialog,
      text: dialog.textContent.replace(/\s+/g, ' '),
    };
  });

const cacheKeys = (page) =>
  page.evaluate(async (name) => (await (await caches.open(name)).keys()).map((r) => r.url), CACHE);

const gets = () => hub.requests.filter((r) => r.startsWith('GET'));

describe('the pretrained dialog', () => {
  for (const viewport of [
    { width: 1400, height: 1000 },
    { width: 390, height: 844 },
  ]) {
    test(`at ${viewport.width}x${viewport.height}: in view, focus inside, Escape returns focus to its button`, async () => {
      const { page, errors } = await open(viewport);
      const drawer = page.locator('[data-testid="settings-drawer"]');
      if (await drawer.isVisible()) await drawer.click(); // a phone folds the settings into a drawer
      await page
        .locator('[data-testid="real-model"]')
        .screenshot({ path: `${SHOTS}/real-model-card-${viewport.width}.png` });
      const button = page.locator('[data-action="open-pretrained"]');
      let state = await dialogState(page);
      assert.equal(state.open, false);
      assert.equal(state.expanded, 'false');
      assert.equal(state.haspopup, 'dialog');
      assert.ok(state.controls, 'aria-controls names the dialog');

      await button.click();
      await page.locator('[data-testid="pretrained-dialog"]').waitFor();
      state = await dialogState(page);
      assert.equal(state.open, true);
      assert.equal(state.expanded, 'true');
      assert.ok(state.focusInside, 'focus moved into the dialog');
      const { box, viewport: vp } = state;
      assert.ok(
        box.left >= 0 && box.top >= 0 && box.right <= vp.width && box.bottom <= vp.height,
        `dialog ${JSON.stringify(box)} inside ${JSON.stringify(vp)}`,
      );
      // Where checkpoints come from, and the families the engine declares.
      assert.match(state.text, /Hugging Face hub/);
      assert.match(state.text, /config\.json.*model\.safetensors.*tokenizer/);
      for (const name of FAMILIES) assert.match(state.text, new RegExp(`\\b${name}\\b`));
      assert.equal(
        await page.locator('[data-testid="drop-state"]').textContent(),
        'Drop the files here, or their folder.',
      );
      await page.screenshot({ path: `${SHOTS}/pretrained-dialog-${viewport.width}.png` });

      await page.keyboard.press('Escape');
      await page.waitForFunction(() => {
        const root = document
          .querySelector('ap-playground')
          .shadowRoot.querySelector('ap-pretrained-loader').shadowRoot;
        return !root.querySelector('dialog').open && root.querySelector('[aria-expanded="false"]');
      });
      state = await dialogState(page);
      assert.equal(state.expanded, 'false');
      assert.ok(state.focusOnButton, 'focus is back on the button');
      assert.deepEqual(errors, []);
      await page.close();
    });
  }

  test('the drop zone shows dragging and a failed load', async () => {
    const { page, errors } = await open();
    await page.locator('[data-action="open-pretrained"]').click();
    const zone = page.locator('[data-testid="pretrained-loader"]');
    await zone.dispatchEvent('dragover', {});
    assert.equal(await zone.getAttribute('data-state'), 'dragging');
    await zone.dispatchEvent('dragleave', {});
    assert.equal(await zone.getAttribute('data-state'), 'idle');
    // Files without config.json: an error state and a message naming the file.
    await page
      .locator('#pretrained-files')
      .setInputFiles(['tokenizer.json', 'model.safetensors'].map((f) => FIXTURE + f));
    await page.locator('[data-testid="pretrained-error"]').waitFor({ timeout: 15_000 });
    assert.equal(await zone.getAttribute('data-state'), 'error');
    assert.match(await page.locator('[data-testid="pretrained-error"]').textContent(), /config\.json/);
    assert.equal(await page.locator('#setting-model').inputValue(), '');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a hub name that does not load: the message says why and names the URL; the drop zone stays as it was', async () => {
    const { page, errors } = await open();
    await page.locator('[data-action="open-pretrained"]').click();
    const zone = page.locator('[data-testid="pretrained-loader"]');
    hub.noCors = true;
    try {
      await page.locator('#pretrained-repo').fill(REPO);
      await page.locator('#pretrained-base').fill(hub.url);
      await page.locator('button[data-action="load"]').click();
      const error = page.locator('[data-testid="pretrained-error"]');
      await error.waitFor({ timeout: 15_000 });
      const text = (await error.textContent()).replace(/\s+/g, ' ');
      assert.ok(text.includes(`${hub.url}/${REPO}/resolve/main/config.json`), text);
      assert.match(text, /offline or its network blocks 127\.0\.0\.1:\d+/);
      assert.match(text, /refused this page’s cross-origin request/);
      // Only the form's load failed: the drop zone is not marked (no files were dropped).
      assert.equal(await zone.getAttribute('data-state'), 'idle');
      assert.equal(
        await page.locator('[data-testid="drop-state"]').textContent(),
        'Drop the files here, or their folder.',
      );
      await page
        .locator('[data-testid="pretrained-dialog"]')
        .screenshot({ path: `${SHOTS}/pretrained-dialog-hub-error.png` });
      // Files that do not load afterwards: now the drop zone says so.
      await page
        .locator('#pretrained-files')
        .setInputFiles(['tokenizer.json', 'model.safetensors'].map((f) => FIXTURE + f));
      await page.locator('[data-testid="pretrained-error"]').filter({ hasText: 'config.json' }).waitFor();
      assert.equal(await zone.getAttribute('data-state'), 'error');
    } finally {
      hub.noCors = false;
    }
    // The browser's own lines about the blocked request, nothing else.
    assert.deepEqual(
      errors.filter((e) => !/CORS policy|Failed to load resource|net::ERR_FAILED/.test(e)),
      [],
    );
    await page.close();
  });
});

describe('Try a real model', () => {
  test('a download that gets no answer says what that likely means, and the URL', async () => {
    const { page, errors } = await open();
    hub.noCors = true;
    try {
      await page.locator('[data-action="try-real"]').click();
      // The HEAD requests got no answer either: the size declared for the model.
      await page.locator('[data-testid="real-size"]').waitFor();
      await page.locator('[data-action="download-real"]').click();
      const error = page.locator('[data-testid="real-error"]');
      await error.waitFor({ timeout: 15_000 });
      const text = (await error.textContent()).replace(/\s+/g, ' ');
      assert.ok(text.startsWith(`Could not reach ${hub.url}/${REPO}/resolve/main/`), text);
      assert.match(text, /the browser says “Failed to fetch”/);
      assert.match(
        text,
        /offline or its network blocks 127\.0\.0\.1:\d+, or 127\.0\.0\.1:\d+ refused this page’s cross-origin request/,
      );
      assert.equal(await page.locator('#setting-model').inputValue(), '', 'the model shown stays');
      await page.locator('[data-testid="real-model"]').screenshot({ path: `${SHOTS}/real-model-unreachable.png` });
    } finally {
      hub.noCors = false;
    }
    assert.deepEqual(
      errors.filter((e) => !/CORS policy|Failed to load resource|net::ERR_FAILED/.test(e)),
      [],
    );
    await page.close();
  });

  test('size first, progress, cancel keeps the model, the heads, a reload from Cache Storage, clearing it', async () => {
    const { page, errors } = await open();
    const tryIt = page.locator('[data-action="try-real"]');
    // Near the top of the Explore view: in the first screen without scrolling.
    const at = await tryIt.boundingBox();
    assert.ok(at && at.y + at.height <= 1000, `the button at y = ${at?.y}`);
    assert.match(await tryIt.textContent(), /Try a real model: GPT-2 small/);
    assert.equal(await page.locator('[data-testid="real-cached"]').count(), 0);
    const before = await rows(page);

    // 1. The size, from the hub's HEAD answers, before any download.
    hub.requests.length = 0;
    hub.slow = true;
    await tryIt.click();
    const size = page.locator('[data-testid="real-size"]');
    await size.waitFor();
    assert.equal(Number(await size.getAttribute('data-bytes')), SIZE);
    // One sentence, as one piece of text: the size inside its first line, not broken off onto a line of its own.
    const sentence = await size.locator('.sentence').evaluate((el) => {
      const lines = el.getClientRects();
      const strong = el.querySelector('strong').getBoundingClientRect();
      return {
        text: el.textContent.replace(/\s+/g, ' ').trim(),
        sizeOnFirstLine: strong.top < lines[0].top + strong.height,
        sizeNotFirst: strong.left > el.getBoundingClientRect().left + 50,
      };
    });
    assert.match(
      sentence.text,
      new RegExp(
        `^Downloading GPT-2 small from 127\\.0\\.0\\.1:\\d+ takes ${(SIZE / 1000).toFixed(1)} kB \\(the sizes the hub reports for its files\\); this browser then keeps it, so the next visit does not download it again\\. The engine holds its weights as the file stores them \\(auto\\)\\.$`,
      ),
    );
    assert.ok(sentence.sizeOnFirstLine && sentence.sizeNotFirst, JSON.stringify(sentence));
    assert.deepEqual(gets(), [], 'nothing downloaded before the size is stated');
    assert.equal(hub.requests.filter((r) => r.startsWith('HEAD')).length, FILES.length);

    // 2. Download with progress, then Cancel: the model and the page stay as they were.
    await page.locator('[data-action="download-real"]').click();
    await page.waitForFunction(
      () =>
        Number(
          document
            .querySelector('ap-playground')
            .shadowRoot.querySelector('ap-real-model')
            .shadowRoot.querySelector('[data-testid="real-progress"]')?.dataset.loaded ?? 0,
        ) > 20_000,
      null,
      { timeout: 15_000 },
    );
    assert.match(
      await page.locator('[data-testid="real-progress"]').textContent(),
      new RegExp(`Downloading model\\.safetensors: [\\d.]+ / ${(SIZE / 1000).toFixed(1)} kB in all`),
    );
    await page.screenshot({ path: `${SHOTS}/real-model-progress.png` });
    await page.locator('[data-action="cancel-real"]').click();
    await page.locator('[data-testid="real-note"]').waitFor();
    assert.match(await page.locator('[data-testid="real-note"]').textContent(), /cancelled/);
    assert.equal(await page.locator('[data-testid="real-error"]').count(), 0);
    assert.equal(await page.locator('#setting-model').inputValue(), '');
    assert.equal(await page.locator('#setting-model option[value^="pretrained:"]').count(), 0);
    assert.deepEqual(await rows(page), before);
    assert.equal(
      await page.locator('[data-testid="real-cached"]').count(),
      0,
      'a cancelled download is not kept whole',
    );

    // 3. Again, at full speed: progress, then the model's heads.
    hub.slow = false;
    await tryIt.click();
    await size.waitFor();
    await page.locator('[data-action="download-real"]').click();
    await page.locator('[data-testid="real-note"]').filter({ hasText: 'loaded' }).waitFor({ timeout: 20_000 });
    assert.match(
      await page.locator('[data-testid="real-note"]').textContent(),
      /GPT-2 small downloaded and loaded; this browser keeps it for next time: 2 layers × 4 heads, weights in auto\./,
    );
    assert.equal(await page.locator('#setting-model').inputValue(), `pretrained:${REPO}`);
    await waitForRows(page, GPT2_TOKENS);
    assert.equal(await page.locator('ap-heatmap[data-head]').count(), 4);
    // config.json and tokenizer.json arrived whole before the cancel and were kept: only the weights downloaded again.
    assert.deepEqual(
      gets().map((r) => r.split('/').pop()),
      ['config.json', 'tokenizer.json', 'model.safetensors', 'model.safetensors'],
    );
    await page.locator('[data-testid="real-cached"]').waitFor();
    assert.match(await page.locator('[data-testid="real-cached"]').textContent(), /in this browser’s cache/);
    assert.equal((await cacheKeys(page)).length, FILES.length);
    await page.screenshot({ path: `${SHOTS}/real-model-loaded.png` });

    // 4. A reload (the link names the model): it loads from Cache Storage by itself, with no request to the hub;
    // and Try again reads it from there too.
    hub.requests.length = 0;
    await page.reload();
    await page.locator('[data-testid="real-note"]').filter({ hasText: 'loaded' }).waitFor({ timeout: 20_000 });
    assert.match(
      await page.locator('[data-testid="real-note"]').textContent(),
      /GPT-2 small loaded from this browser’s cache/,
    );
    await waitForRows(page, GPT2_TOKENS);
    assert.equal(await page.locator('[data-testid="model-error"]').count(), 0);
    await page.locator('[data-testid="real-cached"]').waitFor();
    await page.locator('#setting-text').fill('A different text');
    await tryIt.click(); // a new load starts the model on its example text again
    await page.waitForFunction(() => {
      const root = document.querySelector('ap-playground').shadowRoot;
      return root.querySelector('#setting-text').value === 'The cat sat on the mat.';
    });
    assert.match(
      await page.locator('[data-testid="real-note"]').textContent(),
      /GPT-2 small loaded from this browser’s cache/,
    );
    await waitForRows(page, GPT2_TOKENS);
    assert.deepEqual(hub.requests, [], 'no request to the hub on the second visit');

    // 5. A failed download: a message, and the model shown stays.
    // 6. Clearing the cache: gone from Cache Storage; the next try asks the hub again.
    await page.locator('[data-action="forget-real"]').click();
    await page.locator('[data-testid="real-note"]').filter({ hasText: 'removed' }).waitFor();
    assert.equal(await page.locator('[data-testid="real-cached"]').count(), 0);
    assert.deepEqual(await cacheKeys(page), []);
    assert.equal(await page.locator('#setting-model').inputValue(), `pretrained:${REPO}`, 'the model stays loaded');
    hub.fail = true;
    await tryIt.click();
    await size.waitFor();
    assert.ok(
      hub.requests.some((r) => r.startsWith('HEAD')),
      'the size is asked again',
    );
    await page.locator('[data-action="download-real"]').click();
    await page.locator('[data-testid="real-error"]').waitFor({ timeout: 15_000 });
    assert.match(await page.locator('[data-testid="real-error"]').textContent(), /model\.safetensors: HTTP 500/);
    assert.equal(await page.locator('#setting-model').inputValue(), `pretrained:${REPO}`);
    await waitForRows(page, GPT2_TOKENS);
    hub.fail = false;

    // A hub that does not answer HEAD: the declared size, said to be that.
    hub.noHead = true;
    await tryIt.click();
    await size.waitFor();
    assert.equal(Number(await size.getAttribute('data-bytes')), 549_400_000);
    assert.match(
      (await size.locator('.sentence').textContent()).replace(/\s+/g, ' '),
      /takes 549\.4 MB \(the size expected for it, as the hub did not report its file sizes\); this browser/,
    );
    await page.locator('[data-testid="real-model"]').screenshot({ path: `${SHOTS}/real-model-declared-size.png` });
    await page.locator('[data-action="cancel-real"]').click();
    await size.waitFor({ state: 'detached' });
    hub.noHead = false;

    // A checkpoint the engine rejects: the message names the file, the model shown stays, and the bad copy is not kept.
    hub.truncated = true;
    await tryIt.click();
    await size.waitFor();
    await page.locator('[data-action="download-real"]').click();
    await page.locator('[data-testid="real-error"]').waitFor({ timeout: 15_000 });
    assert.match(
      await page.locator('[data-testid="real-error"]').textContent(),
      /model\.safetensors.*truncated.*removed from this browser’s cache/s,
    );
    assert.equal(await page.locator('#setting-model').inputValue(), `pretrained:${REPO}`);
    await waitForRows(page, GPT2_TOKENS);
    assert.deepEqual(await cacheKeys(page), []);
    hub.truncated = false;

    // The hub's 500 is the browser's "failed to load resource" line, nothing else.
    assert.deepEqual(
      errors.filter((e) => !/Failed to load resource: the server responded with a status of (500|405)/.test(e)),
      [],
    );
    await page.close();
  });

  test('the weights as picked under Weights in memory: said before the download, held, in the facts, and again on a reload', async () => {
    const { page, errors } = await open({ width: 390, height: 844 }, '#weights=bf16'); // a phone
    const held = page.locator('[data-testid="pretrained-summary"] dt:text-is("Weights in memory") + dd');
    await page.locator('[data-action="try-real"]').click();
    const size = page.locator('[data-testid="real-size"] .sentence');
    await size.waitFor();
    assert.match(
      (await size.textContent()).replace(/\s+/g, ' '),
      /next visit does not download it again\. The engine holds its weights in bf16, as picked under “Weights in memory”\.$/,
    );
    await page.locator('[data-testid="real-model"]').screenshot({ path: `${SHOTS}/real-model-picked-mode.png` });
    await page.locator('[data-action="download-real"]').click();
    const note = page.locator('[data-testid="real-note"]').filter({ hasText: 'loaded' });
    await note.waitFor({ timeout: 20_000 });
    assert.match(
      await note.textContent(),
      /GPT-2 small downloaded and loaded.*: 2 layers × 4 heads, weights in bf16\./,
    );
    // The model's facts say how it is held (the tiny GPT-2's F32 matrices rounded to BF16, its biases and norms F32).
    assert.match(await held.textContent(), /^bf16: [\d.]+ kB \(f32 [\d.]+ kB, bf16 [\d.]+ kB\)$/);
    await page.screenshot({ path: `${SHOTS}/real-model-picked-mode-loaded.png` });
    await page.locator('[data-testid="real-size"]').waitFor({ state: 'detached' });
    const hash = new URLSearchParams(new URL(page.url()).hash.slice(1));
    assert.deepEqual([hash.get('model'), hash.get('weights')], [`pretrained:${REPO}`, 'bf16']);
    // The link reopens the same model held the same way (from this browser's cache).
    await page.reload();
    await page
      .locator('[data-testid="real-note"]')
      .filter({ hasText: 'loaded from this browser' })
      .waitFor({ timeout: 20_000 });
    assert.match(await page.locator('[data-testid="real-note"]').textContent(), /weights in bf16\./);
    assert.match(await held.textContent(), /^bf16: /);
    await waitForRows(page, GPT2_TOKENS);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
