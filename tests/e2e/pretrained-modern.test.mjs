// The models people run today in the playground, in Chromium against the production build
// (dist-web/), loaded through the "Load a pretrained model…" dialog from a local server in
// the hub's layout ({base}/{repo}/resolve/main/{file}). The tiny Llama and Gemma 3
// reference checkpoints (tests/reference/fixtures/hub/): the tokenizer's pieces, as
// @huggingface/tokenizers cuts the text, shown readably; which query heads share each K/V
// head; the next-token panel; Gemma's local layers' window masks and its global layer
// named; chat turns rendered by the chat template (as @huggingface/jinja renders it) and
// read with its special tokens. Checkpoints made here for their shape
// (tests/support/hub-checkpoint.mjs, with the Llama fixture's tokenizer): 30 layers x 16
// heads, whose Layers x heads grid fits at 1400 px with its labels and opens a head; a
// 512-token context, where a 300-token text draws its heatmaps as images in a scroll box
// while the page keeps answering, and a view too large to draw says why.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { openPage } from '../support/browser.mjs';
import { ROOT, SHOTS, useSite } from '../support/site.mjs';
import { readdirSync } from 'node:fs';
import { Tokenizer as ReferenceTokenizer } from '@huggingface/tokenizers';
import { Template } from '@huggingface/jinja';
import { decoderCheckpoint, vocabSizeOf } from '../support/hub-checkpoint.mjs';

const HUB = `${ROOT}tests/reference/fixtures/hub/`;
/** A reference fixture's files as the hub serves them (expected.json is the test's, not the hub's). */
const fixture = (dir) =>
  Object.fromEntries(
    readdirSync(`${HUB}${dir}`)
      .filter((f) => f !== 'expected.json')
      .map((f) => [f, readFileSync(`${HUB}${dir}/${f}`)]),
  );
const LLAMA = fixture('llama-tiny');
const GEMMA = fixture('gemma3-text-tiny');
const vocab = vocabSizeOf(LLAMA['tokenizer.json']);
const tokenizerFiles = {
  'tokenizer.json': LLAMA['tokenizer.json'],
  'tokenizer_config.json': LLAMA['tokenizer_config.json'],
};

// A small chat template in the shape of Llama 3's (BOS, each turn closed by <|eot_id|>, the assistant's turn opened),
// with the roles as words: the tiny fixture's vocabulary has no <|start_header_id|>.
const CHAT_TEMPLATE =
  "{{ bos_token }}{% for message in messages %}{{ message['role'] + ': ' + message['content'] | trim + '<|eot_id|>' }}{% endfor %}{% if add_generation_prompt %}{{ 'assistant:' }}{% endif %}";
const chatConfig = JSON.stringify({ ...JSON.parse(LLAMA['tokenizer_config.json']), chat_template: CHAT_TEMPLATE });

/** The hub's repos: name → { file: bytes }. */
const REPOS = {
  'llama-tiny': LLAMA,
  'gemma3-text-tiny': GEMMA,
  'llama-chat': { ...LLAMA, 'tokenizer_config.json': Buffer.from(chatConfig) },
  'grid-30x16': {
    ...decoderCheckpoint({ layers: 30, heads: 16, kvHeads: 4, headDim: 2, hidden: 32, vocab, maxPositions: 64 }),
    ...tokenizerFiles,
  },
  // Llama 3.2 1B's depth and Qwen3-0.6B's heads (28 x 16, GQA 2:1): past 126 tokens only the weights fit, and 260 is the longest text shown
  // (model/recorded-stages.ts: the engine's check and the page's bound).
  'llama-28x16-long': {
    ...decoderCheckpoint({ layers: 28, heads: 16, kvHeads: 8, headDim: 2, hidden: 32, vocab, maxPositions: 512 }),
    ...tokenizerFiles,
  },
  'long-512': {
    ...decoderCheckpoint({ layers: 2, heads: 4, kvHeads: 2, headDim: 8, hidden: 32, vocab, maxPositions: 512 }),
    ...tokenizerFiles,
  },
};

/** How the page writes a reference piece (ASCII texts): a leading 'Ġ' or '▁' as '·' each, 'Ċ' (a newline) as '↵'. */
const shown = (piece) =>
  piece
    .replace(/^[\u0120\u2581]+/, (m) => '\u00b7'.repeat(m.length))
    .replace(/\u2581/g, ' ')
    .replace(/\u010a/g, '\u21b5');

/** The reference tokenizer's pieces of `text` for a fixture's files, as the page shows them. */
function referencePieces(files, text, addSpecialTokens = true, config = files['tokenizer_config.json']) {
  const reference = new ReferenceTokenizer(JSON.parse(files['tokenizer.json']), JSON.parse(config));
  return reference.encode(text, { add_special_tokens: addSpecialTokens }).tokens.map(shown);
}

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
  await page
    .locator('[data-testid="pretrained-dialog"]')
    .waitFor({ state: 'hidden', timeout: 30_000 })
    .catch(async (error) =>
      assert.fail(
        `${error.message}\nthe dialog says: ${await page.locator('[data-testid="pretrained-dialog"]').textContent()}`,
      ),
    );
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

/** Sets one view setting through the page's hash (as a link would). */
async function setInHash(page, name, value) {
  await page.evaluate(
    ([n, v]) => {
      const params = new URLSearchParams(location.hash.slice(1));
      params.set(n, v);
      location.hash = params.toString();
    },
    [name, value],
  );
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

/** Row labels of the first heatmap of the view (its screen readers' table: whole labels). */
const rowLabels = (page) =>
  inPlayground(page, (root) =>
    [
      ...(root.querySelector('.view:not(.stale) ap-heatmap')?.shadowRoot.querySelectorAll('table th[scope="row"]') ??
        []),
    ].map((th) => th.textContent),
  );

async function waitForRows(page, rows) {
  await page
    .waitForFunction(
      (want) => {
        const map = document.querySelector('ap-playground').shadowRoot.querySelector('.view:not(.stale) ap-heatmap');
        const got = [...(map?.shadowRoot.querySelectorAll('table th[scope="row"]') ?? [])].map((th) => th.textContent);
        return JSON.stringify(got) === want;
      },
      JSON.stringify(rows),
      { timeout: 20_000 },
    )
    .catch(async () => assert.fail(`rows ${JSON.stringify(await rowLabels(page))}, want ${JSON.stringify(rows)}`));
}

describe('Llama and Gemma 3 checkpoints in the playground', () => {
  test('"Try a real model" lists the modern checkpoints with family and size; a gated one says what the hub asks', async () => {
    const { page, errors } = await openPage(
      site.browser,
      { viewport: { width: 1400, height: 1000 } },
      { onlyFrom: site.url },
    );
    await page.goto(site.url);
    const choice = page.locator('[data-testid="real-choice"]');
    await choice.waitFor({ timeout: 20_000 });
    const options = await choice.locator('option').evaluateAll((list) => list.map((o) => [o.value, o.textContent]));
    assert.deepEqual(
      options.map(([repo]) => repo),
      [
        'openai-community/gpt2',
        'HuggingFaceTB/SmolLM2-135M',
        'HuggingFaceTB/SmolLM2-360M',
        'Qwen/Qwen2.5-0.5B',
        'Qwen/Qwen3-0.6B',
        'google/gemma-3-270m',
        'meta-llama/Llama-3.2-1B',
      ],
    );
    assert.match(options[1][1], /^SmolLM2-135M \(llama, 271\.3 MB\)$/);
    assert.equal(await page.locator('[data-testid="real-gated"]').count(), 0);
    await choice.selectOption('google/gemma-3-270m');
    assert.match(await page.locator('[data-action="try-real"]').textContent(), /Try a real model: Gemma 3 270M/);
    assert.match(await page.locator('[data-testid="real-gated"]').textContent(), /gated on the hub/);
    assert.deepEqual(errors, []); // nothing was asked of the hub
    await page.close();
  });

  test('a tiny Llama: its tokenizer\u2019s pieces, the K/V heads its query heads share, the next token', async () => {
    const { page, errors } = await openWith('llama-tiny');
    const text = 'The cat sat on the mat.';
    await page.locator('#setting-text').fill(text);
    const pieces = referencePieces(LLAMA, text);
    assert.equal(pieces[0], '<|begin_of_text|>');
    await waitForRows(page, pieces);
    // Two K/V heads, each read by two query heads; each head's caption names its own.
    const groups = await inPlayground(page, (root) => ({
      groups: root.querySelector('[data-testid="kv-groups"]')?.dataset.groups,
      captions: [...root.querySelectorAll('ap-heatmap[data-head]')].map((m) => m.getAttribute('caption')),
      summary: root.querySelector('[data-testid="pretrained-summary"]')?.textContent.replace(/\s+/g, ' '),
    }));
    assert.equal(
      groups.groups,
      JSON.stringify([
        [0, 1],
        [2, 3],
      ]),
    );
    assert.deepEqual(
      groups.captions.map((c) => c.match(/K\/V head (\d)$/)?.[1]),
      ['0', '0', '1', '1'],
    );
    assert.match(groups.summary, /4 × d_h 8, on 2 K\/V heads \(2 query heads each\)/);
    assert.match(groups.summary, /RoPE, θ = 10,000/);
    // The next token after the last: five candidates, most likely first.
    const next = await inPlayground(page, (root) => {
      const figure = root.querySelector('[data-testid="predictions"] figure[data-kind="next"]');
      return {
        position: Number(figure?.dataset.position),
        p: [...(figure?.querySelectorAll('li') ?? [])].map((li) => Number(li.dataset.probability)),
        tokens: [...(figure?.querySelectorAll('li .token') ?? [])].map((t) => t.textContent),
      };
    });
    assert.equal(next.position, pieces.length - 1);
    assert.equal(next.p.length, 5);
    for (let k = 1; k < 5; k++) assert.ok(next.p[k] <= next.p[k - 1] && next.p[k] > 0);
    assert.ok(next.tokens.every((t) => t !== ''));
    // Layers x heads names each head's K/V head.
    await showView(page, 'overview');
    await page.waitForFunction(
      () =>
        document
          .querySelector('ap-playground')
          .shadowRoot.querySelector('ap-overview')
          ?.shadowRoot.querySelectorAll('[data-kv]').length === 4,
    );
    assert.deepEqual(
      await page
        .locator('ap-overview')
        .evaluate((el) => [...el.shadowRoot.querySelectorAll('[data-kv]')].map((s) => s.textContent)),
      ['K/V 0', 'K/V 0', 'K/V 1', 'K/V 1'],
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a tiny Gemma 3: metaspace pieces; a sliding window on its local layers, none on its global one, each named', async () => {
    const { page, errors } = await openWith('gemma3-text-tiny');
    const text = 'The cat sat on the mat and the dog lay by the door.';
    await page.locator('#setting-text').fill(text);
    const pieces = referencePieces(GEMMA, text);
    assert.equal(pieces[0], '<bos>');
    await waitForRows(page, pieces);
    await showView(page, 'masks');
    const masks = async (layer) => {
      await page.locator('#setting-layer').fill(String(layer));
      await page.waitForFunction(
        (l) =>
          document
            .querySelector('ap-playground')
            .shadowRoot.querySelector('.view:not(.stale) ap-heatmap[data-mask="combined"]')
            ?.getAttribute('caption')
            ?.endsWith(`layer ${l}`),
        layer,
      );
      return inPlayground(page, (root) => {
        const note = root.querySelector('[data-testid="layer-kind"]');
        const window = root.querySelector('ap-heatmap[data-mask="window"]');
        return {
          kind: note?.dataset.kind,
          local: note?.dataset.local,
          global: note?.dataset.global,
          text: note?.textContent.replace(/\s+/g, ' ').trim(),
          // the window panel's blocked cells, as (query, key)
          blocked: window
            ? [...window.shadowRoot.querySelectorAll('rect[data-blocked]')].map((r) => [
                Number(r.dataset.row),
                Number(r.dataset.col),
              ])
            : null,
        };
      });
    };
    const n = pieces.length;
    // sliding_window 3, sliding_window_pattern 2: layers 0 and 2 local, layer 1 global
    const local = await masks(0);
    assert.equal(local.kind, 'local');
    assert.equal(local.local, '0,2');
    assert.equal(local.global, '1');
    assert.match(local.text, /^Layer 0 is local: a sliding window of 3 tokens\./);
    const want = [];
    for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) if (j <= i - 3) want.push([i, j]);
    assert.deepEqual(local.blocked, want);
    const global = await masks(1);
    assert.equal(global.kind, 'global');
    assert.equal(global.blocked, null, 'no window panel on the global layer');
    assert.match(global.text, /^Layer 1 is global: no window, every earlier token\./);
    await page.screenshot({ path: `${SHOTS}/modern-gemma-masks.png` });
    // Layers x heads names each layer's kind.
    await showView(page, 'overview');
    await page.waitForFunction(
      () =>
        document
          .querySelector('ap-playground')
          .shadowRoot.querySelector('ap-overview')
          ?.shadowRoot.querySelectorAll('[data-kind]').length === 3,
    );
    assert.deepEqual(
      await page
        .locator('ap-overview')
        .evaluate((el) => [...el.shadowRoot.querySelectorAll('tbody th [data-kind]')].map((s) => s.dataset.kind)),
      ['local', 'global', 'local'],
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('chat turns: the chat template\u2019s text, shown, and read with its special tokens', async () => {
    const { page, errors } = await openWith('llama-chat');
    const chat = page.locator('#setting-chat');
    await chat.waitFor();
    await chat.check();
    await page.locator('#setting-text').fill('system: Be brief.\nuser: What sat on the mat?');
    const rendered = new Template(CHAT_TEMPLATE).render({
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'What sat on the mat?' },
      ],
      add_generation_prompt: true,
      bos_token: '<|begin_of_text|>',
      eos_token: '<|end_of_text|>',
    });
    const shownText = page.locator('[data-testid="rendered-prompt"] pre');
    await shownText.waitFor({ timeout: 20_000 });
    // The box shows the default text's turn first; the typed turns follow after the debounce.
    let promptShown = await shownText.textContent();
    for (const started = Date.now(); promptShown !== rendered && Date.now() - started < 20_000;) {
      await page.waitForTimeout(100);
      promptShown = await shownText.textContent();
    }
    assert.equal(promptShown, rendered);
    // The rendered text read as it is: one BOS (the template's), the special tokens whole.
    const reference = new ReferenceTokenizer(JSON.parse(LLAMA['tokenizer.json']), JSON.parse(chatConfig));
    const pieces = reference.encode(rendered, { add_special_tokens: false }).tokens.map(shown);
    assert.equal(pieces.filter((p) => p === '<|begin_of_text|>').length, 1);
    await waitForRows(
      page,
      pieces.map((p) => p.replace(/\u010a/g, '\u21b5')),
    );
    await page.screenshot({ path: `${SHOTS}/modern-chat.png` });
    // Back to plain text: the template's text goes.
    await chat.uncheck();
    await shownText.waitFor({ state: 'detached' });
    assert.deepEqual(errors, []);
    await page.close();
  });
});

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
      Array.from({ length: 16 }, (_, h) => `head ${h}K/V ${Math.floor(h / 4)}`),
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
    const text = Array.from({ length: 298 }, () => 'the').join(' ');
    assert.equal(referencePieces(LLAMA, text).length, 300); // BOS, "t" "he", then 297 words
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
    assert.match(tip, /^query “·the” \(5\) → key “he” \(2\)/);

    // The line view (a line per pair of tokens, four heads) would draw too much: it says why, and what draws instead.
    await showView(page, 'lines');
    const refusal = page.locator('[data-testid="too-long-to-draw"]');
    await refusal.waitFor({ timeout: 10_000 });
    const said = await refusal.evaluate((p) => ({ text: p.textContent, longest: Number(p.dataset.longest) }));
    assert.match(said.text, /This text is \d+ tokens/);
    assert.match(said.text, /65,536/);
    assert.equal(said.longest, Math.floor(Math.sqrt(65_536 / 4))); // four heads' lines within MAX_VIEW_CELLS
    assert.equal(await inPlayground(page, (root) => root.querySelectorAll('ap-line-view').length), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a 260-token text on 28 layers x 16 heads: the weights drawn, the views that need more say what was not recorded', async () => {
    const { page, errors } = await openWith('llama-28x16-long');
    const text = Array.from({ length: 258 }, () => 'the').join(' ');
    assert.equal(referencePieces(LLAMA, text).length, 260); // BOS, "t" "he", then 257 words
    await page.locator('#setting-text').fill(text);
    await showView(page, 'heads');
    const started = Date.now();
    const delays = [];
    const drawn = page.waitForFunction(
      () => {
        const maps = document
          .querySelector('ap-playground')
          .shadowRoot.querySelectorAll('.view:not(.stale) ap-heatmap');
        return (
          maps.length === 16 &&
          [...maps].every((m) => m.shadowRoot.querySelector('image[data-cells]') && m.rows === 260)
        );
      },
      null,
      { timeout: 60_000, polling: 100 },
    );
    let done = false;
    drawn.then(
      () => (done = true),
      () => (done = true),
    );
    while (!done) delays.push(await frameDelay(page));
    await drawn.catch(async (error) =>
      assert.fail(
        `${error.message}\n${await inPlayground(page, (root) => {
          const maps = [...root.querySelectorAll('.view:not(.stale) ap-heatmap')];
          return `${maps.length} heatmaps, rows ${maps.map((m) => m.rows)}; ${root.querySelector('.view')?.textContent}; ${root.querySelector('[data-setting="text"]')?.textContent}`;
        })}`,
      ),
    );
    const tookMs = Date.now() - started;
    assert.ok(tookMs < 30_000, `drawn in ${tookMs} ms`);
    assert.ok(Math.max(...delays) < 1000, `the page stalled ${Math.round(Math.max(...delays))} ms`);
    // every cell of the first head drawn in its image
    const cells = await page
      .locator('.view ap-heatmap')
      .first()
      .evaluate((el) => Number(el.shadowRoot.querySelector('image').dataset.cells));
    assert.equal(cells, 260 * 260);
    await page.screenshot({ path: `${SHOTS}/modern-long-28x16.png` });
    // Hovering a cell gives its weight, and says the scores were not recorded.
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
    assert.match(tip, /query “·the” \(5\) → key “he” \(2\), head 0/);
    assert.match(tip, /weight\s+softmax over the row = 0\.\d+/);
    assert.match(tip, /scores\s+not recorded for a text this long/);

    // The scores were not recorded at this length: the heads view says so in their place.
    await setInHash(page, 'stage', 'scores');
    const note = page.locator('[data-testid="not-recorded"]');
    await note.waitFor({ timeout: 10_000 });
    assert.match(await note.textContent(), /draws the scores: for a\s+text this long \(260 tokens\)/);
    assert.match(await note.textContent(), /a text of at most 126 tokens records every attention stage/);
    assert.equal(await inPlayground(page, (root) => root.querySelectorAll('.view:not(.stale) ap-heatmap').length), 0);
    // Step by step reads every stage of a head: it says which, and names the views that draw this text.
    await setInHash(page, 'stage', 'weights');
    await showView(page, 'steps');
    await page.waitForFunction(
      () =>
        /the scores, scaled scores, masked scores and the contexts/.test(
          document.querySelector('ap-playground').shadowRoot.querySelector('[data-testid="not-recorded"]')
            ?.textContent ?? '',
        ),
      null,
      { timeout: 10_000 },
    );
    // The masks were recorded: the Masks view draws them.
    await showView(page, 'masks');
    await page.waitForFunction(
      () =>
        document.querySelector('ap-playground').shadowRoot.querySelectorAll('.view:not(.stale) ap-heatmap[data-mask]')
          .length > 0,
      null,
      { timeout: 20_000 },
    );
    // Layers x heads draws every layer's weights as thumbnails.
    await showView(page, 'overview');
    await page.waitForFunction(
      () =>
        document
          .querySelector('ap-playground')
          .shadowRoot.querySelector('.view:not(.stale) ap-overview')
          ?.shadowRoot.querySelectorAll('canvas[data-layer]').length ===
        28 * 16,
      null,
      { timeout: 30_000 },
    );
    // One token past the limit (260 tokens for this 28 x 16 model) is refused at the text box with the reason.
    await page.locator('#setting-text').fill(Array.from({ length: 259 }, () => 'the').join(' '));
    await page
      .locator('[data-setting="text"] .error, [data-setting="text"] [role="alert"]')
      .first()
      .waitFor({ timeout: 30_000 });
    assert.match(
      await page.locator('[data-setting="text"]').textContent(),
      /261 tokens long; its 28 × 16 attention maps are shown for at most 260 tokens \(the softmax weights alone; every attention stage up to 126\)/,
    );
    assert.deepEqual(errors, []);
    await page.close();
  });
});
