// The views at the sizes of the models people run today, in Chromium against the production
// build (dist-web/), loaded through the "Load a pretrained model…" dialog from a local
// server in the hub's layout ({base}/{repo}/resolve/main/{file}): checkpoints made here for
// their shape (tests/support/hub-checkpoint.mjs: 30 layers x 16 heads, a 512-token context)
// with a reference fixture's tokenizer. The Layers x heads grid of 30 x 16 heads fits at
// 1400 px with its labels and opens a head; a 300-token text draws its heatmaps as images
// in a scroll box while the page keeps answering, and a view too large to draw says why.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { openPage } from '../support/browser.mjs';
import { ROOT, SHOTS, useSite } from '../support/site.mjs';
import { gpt2Checkpoint, vocabSizeOf } from '../support/hub-checkpoint.mjs';

const GPT2 = `${ROOT}tests/reference/fixtures/pretrained/gpt2-tiny/`;
const tokenizer = readFileSync(`${GPT2}tokenizer.json`);
const vocab = vocabSizeOf(tokenizer);

/** The hub's repos: name → { file: bytes }. */
const REPOS = {
  'grid-30x16': {
    ...gpt2Checkpoint(readFileSync(`${GPT2}config.json`), {
      layers: 30,
      heads: 16,
      hidden: 32,
      vocab,
      maxPositions: 64,
    }),
    'tokenizer.json': tokenizer,
  },
  'long-512': {
    ...gpt2Checkpoint(readFileSync(`${GPT2}config.json`), {
      layers: 2,
      heads: 4,
      hidden: 32,
      vocab,
      maxPositions: 512,
    }),
    'tokenizer.json': tokenizer,
  },
};

const site = useSite();
const hub = { url: '', server: null };

before(async () => {
  hub.server = createServer((request, response) => {
    const headers = { 'access-control-allow-origin': '*', 'cross-origin-resource-policy': 'cross-origin' };
    const match = /^\/([\w.-]+)\/resolve\/main\/([\w.-]+)$/.exec(new URL(request.url, 'http://x').pathname);
    const body = match && REPOS[match[1]]?.[match[2]];
    if (!body) {
      response.writeHead(404, headers);
      response.end('not found');
      return;
    }
    response.writeHead(200, { ...headers, 'content-type': 'application/octet-stream', 'content-length': body.length });
    response.end(body);
  });
  await new Promise((resolve) => hub.server.listen(0, '127.0.0.1', resolve));
  hub.url = `http://127.0.0.1:${hub.server.address().port}`;
});
after(() => new Promise((resolve) => hub.server.close(resolve)));

/** Evaluates fn(shadowRoot of <ap-playground>, arg) in the page. */
const inPlayground = (page, fn, arg) =>
  page.evaluate(
    ([source, a]) =>
      new Function('root', 'arg', `return (${source})(root, arg);`)(
        document.querySelector('ap-playground').shadowRoot,
        a,
      ),
    [fn.toString(), arg],
  );

/** A page with `repo` loaded from the hub through the dialog, at `width` px. */
async function openWith(repo, width = 1400) {
  const { page, errors } = await openPage(site.browser, { viewport: { width, height: 1000 } });
  page.on('request', (request) => {
    const url = request.url();
    if (![site.url, hub.url, 'blob:', 'data:'].some((prefix) => url.startsWith(prefix)))
      errors.push(`external request: ${url}`);
  });
  await page.goto(site.url);
  await page.locator('ap-heatmap').first().waitFor({ timeout: 20_000 });
  await page.locator('button[data-action="open-pretrained"]').click();
  await page.locator('#pretrained-base').fill(hub.url);
  await page.locator('#pretrained-repo').fill(repo);
  await page.locator('button[data-action="load"]').click();
  await page.locator('[data-testid="pretrained-dialog"]').waitFor({ state: 'hidden', timeout: 30_000 });
  return { page, errors };
}

/** Switches the view with the block diagram's tabs (or the hash for views without a tab). */
async function showView(page, view) {
  const tab = page.locator(`button[data-view="${view}"]`);
  if (await tab.count()) await tab.first().click();
  else
    await page.evaluate((v) => {
      const params = new URLSearchParams(location.hash.slice(1));
      params.set('view', v);
      location.hash = params.toString();
    }, view);
}

/** How long the page's main thread takes to answer a frame request, ms: it must stay responsive. */
const frameDelay = (page) =>
  page.evaluate(
    () =>
      new Promise((resolve) => {
        const start = performance.now();
        requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - start), 0));
      }),
  );

describe('the views at the sizes of today\u2019s models', () => {
  test('30 layers x 16 heads: 480 thumbnails fit at 1400 px beside their labels; a click opens the head', async () => {
    const { page, errors } = await openWith('grid-30x16');
    await page.locator('#setting-text').fill('The cat sat on the mat and the dog lay by the door.');
    await showView(page, 'overview');
    await page.waitForFunction(
      () =>
        document
          .querySelector('ap-playground')
          .shadowRoot.querySelector('.view:not(.stale) ap-overview')
          ?.shadowRoot.querySelectorAll('canvas').length === 480,
      null,
      { timeout: 30_000 },
    );
    const grid = await page.locator('ap-overview').evaluate((el) => {
      const root = el.shadowRoot;
      const box = root.querySelector('[data-testid="overview-scroll"]');
      const visible = box.getBoundingClientRect();
      const heads = [...root.querySelectorAll('thead th[scope="col"]:not(.corner)')];
      return {
        scrollWidth: box.scrollWidth,
        clientWidth: box.clientWidth,
        sides: [...root.querySelectorAll('canvas')].map((c) => c.getBoundingClientRect().width),
        heads: heads.map((th) => th.textContent.trim()),
        // every head label inside the box's visible width
        headsInside: heads.every((th) => {
          const r = th.getBoundingClientRect();
          return r.left >= visible.left - 1 && r.right <= visible.right + 1;
        }),
        layers: [...root.querySelectorAll('tbody th')].map((th) => th.textContent.trim()),
      };
    });
    assert.ok(
      grid.scrollWidth <= grid.clientWidth + 1,
      `the grid scrolls sideways: ${grid.scrollWidth} > ${grid.clientWidth}`,
    );
    assert.ok(
      grid.sides.every((w) => w >= 48),
      `a thumbnail below 48 px: ${Math.min(...grid.sides)}`,
    );
    assert.deepEqual(
      grid.heads,
      Array.from({ length: 16 }, (_, h) => `head ${h}`),
    );
    assert.ok(grid.headsInside, 'a head label outside the grid');
    assert.deepEqual(
      grid.layers,
      Array.from({ length: 30 }, (_, l) => `layer ${l}`),
    );
    await page.screenshot({ path: `${SHOTS}/modern-overview-30x16.png` });
    // The last layer's last head opens as One head at that layer and head.
    await page
      .locator('ap-overview')
      .evaluate((el) =>
        el.shadowRoot.querySelector('canvas[data-layer="29"][data-head="15"]').closest('button').click(),
      );
    await page.waitForFunction(
      () =>
        document
          .querySelector('ap-playground')
          .shadowRoot.querySelector('ap-heatmap[data-head="15"]')
          ?.getAttribute('caption')
          ?.endsWith('layer 29'),
      null,
      { timeout: 20_000 },
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a 300-token text: heatmaps as images in a scroll box, the page answering meanwhile; a view too large says why', async () => {
    const { page, errors } = await openWith('long-512');
    const text = Array.from({ length: 300 }, () => 'the').join(' '); // 301 tokens for the fixture's tokenizer
    await page.locator('#setting-text').fill(text);
    await showView(page, 'head');
    const started = Date.now();
    // While the worker runs and the page draws, the page keeps answering.
    const delays = [];
    const drawn = page.waitForFunction(
      () => {
        const map = document.querySelector('ap-playground').shadowRoot.querySelector('.view:not(.stale) ap-heatmap');
        return map?.shadowRoot.querySelector('image[data-cells]') && map.rows >= 300;
      },
      null,
      { timeout: 30_000, polling: 100 },
    );
    let done = false;
    drawn.then(
      () => (done = true),
      () => (done = true),
    );
    while (!done) delays.push(await frameDelay(page));
    await drawn;
    const tookMs = Date.now() - started;
    const map = await page
      .locator('.view ap-heatmap')
      .first()
      .evaluate((el) => {
        const root = el.shadowRoot;
        const box = root.querySelector('.plot');
        return {
          rows: el.rows,
          cells: Number(root.querySelector('image').dataset.cells),
          rects: root.querySelectorAll('rect[data-row]').length,
          cell: Number(root.querySelector('svg').dataset.cell),
          scrolls: box.scrollHeight > box.clientHeight + 1,
          rowLabels: root.querySelectorAll('text[data-row-label]').length,
        };
      });
    assert.ok(map.rows >= 300, `${map.rows} tokens`);
    assert.equal(map.cells, map.rows * map.rows);
    assert.equal(map.rects, 0, 'no SVG rect per cell');
    assert.equal(map.rowLabels, map.rows, 'every query labelled');
    assert.ok(map.cell >= 14 && map.scrolls, `cells ${map.cell} px in a box that scrolls`);
    assert.ok(tookMs < 20_000, `drawn in ${tookMs} ms`);
    assert.ok(Math.max(...delays) < 1000, `the page stalled ${Math.round(Math.max(...delays))} ms`);
    await page.screenshot({ path: `${SHOTS}/modern-long-text.png` });

    // Hovering a cell of the image names it.
    const box = await page
      .locator('.view ap-heatmap')
      .first()
      .evaluate((el) => {
        const r = el.shadowRoot.querySelector('image').getBoundingClientRect();
        return { x: r.left, y: r.top, cell: Number(el.shadowRoot.querySelector('svg').dataset.cell) };
      });
    await page.mouse.move(box.x + box.cell * 2.5, box.y + box.cell * 5.5);
    const tip = await page
      .locator('.view ap-heatmap')
      .first()
      .evaluate((el) => el.shadowRoot.querySelector('.tip')?.textContent ?? '');
    assert.match(tip, /^query “·the” \(5\) → key “·the” \(2\)/);

    // The line view (a line per pair of tokens, four heads) would draw too much: it says why, and what draws instead.
    await showView(page, 'lines');
    const refusal = page.locator('[data-testid="too-long-to-draw"]');
    await refusal.waitFor({ timeout: 10_000 });
    const said = await refusal.evaluate((p) => ({ text: p.textContent, longest: Number(p.dataset.longest) }));
    assert.match(said.text, /This text is \d+ tokens/);
    assert.match(said.text, /65,536/);
    assert.equal(said.longest, Math.floor(Math.sqrt(65_536 / 4)));
    assert.equal(await inPlayground(page, (root) => root.querySelectorAll('ap-line-view').length), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
