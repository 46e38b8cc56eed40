// Pretrained checkpoints on the Explore page, in real Chromium against the production
// build (dist-web/): the tiny GPT-2 and BERT checkpoints of tests/reference/fixtures/
// pretrained are served by a local server in the hub's layout ({base}/{repo}/resolve/
// main/{file}); the page's base URL is set to it, so nothing is fetched from anywhere
// else. GPT-2 loads by name (progress in bytes, the picker lists it, its heads show the
// tokenizer's pieces and PyTorch's attention weights, the next token's top 5); BERT loads
// from files (a sentence pair, its attention against PyTorch, [MASK] candidates); broken
// checkpoints give a message naming the file; Cancel stops a slow download.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import { openPage } from '../support/browser.mjs';
import { ROOT, SHOTS, useSite } from '../support/site.mjs';

const FIXTURES = `${ROOT}tests/reference/fixtures/pretrained/`;
const expectedOf = (dir) => JSON.parse(readFileSync(`${FIXTURES}${dir}/expected.json`, 'utf8'));
const GPT2 = expectedOf('gpt2-tiny');
const BERT = expectedOf('bert-tiny');

/** How the page shows GPT-2's pieces of "The cat sat on the mat." (ids in expected.json): a leading space as '·'. */
const GPT2_TOKENS = ['The', '\u00b7c', 'at', '\u00b7s', 'at', '\u00b7on', '\u00b7the', '\u00b7m', 'at', '.'];

const site = useSite();

// The hub: /{repo}/resolve/main/{file} from the fixtures, with CORS (the site is cross-origin isolated).
// Extra repos: gpt2-noconfig (no config.json), gpt2-truncated (model.safetensors cut short),
// gpt2-slow (model.safetensors trickles: 2 kB every 100 ms).
const hub = { url: '', server: null, requests: [], slowClosed: false };
const VARIANTS = { 'gpt2-noconfig': 'gpt2-tiny', 'gpt2-truncated': 'gpt2-tiny', 'gpt2-slow': 'gpt2-tiny' };

before(async () => {
  hub.server = createServer((request, response) => {
    hub.requests.push(request.url);
    const headers = { 'access-control-allow-origin': '*', 'cross-origin-resource-policy': 'cross-origin' };
    const match = /^\/([\w.-]+)\/resolve\/main\/([\w.-]+)$/.exec(new URL(request.url, 'http://x').pathname);
    const repo = match?.[1],
      file = match?.[2];
    const dir = VARIANTS[repo] ?? repo;
    let body = null;
    try {
      if (match && readdirSync(FIXTURES).includes(dir) && file !== 'expected.json')
        body = readFileSync(`${FIXTURES}${dir}/${file}`);
    } catch {
      body = null;
    }
    if (repo === 'gpt2-noconfig' && file === 'config.json') body = null;
    if (!body) {
      response.writeHead(404, { ...headers, 'content-type': 'text/plain' });
      response.end('not found');
      return;
    }
    if (repo === 'gpt2-truncated' && file === 'model.safetensors') body = body.subarray(0, 5000);
    response.writeHead(200, { ...headers, 'content-type': 'application/octet-stream', 'content-length': body.length });
    if (repo === 'gpt2-slow' && file === 'model.safetensors') {
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
      response.on('close', () => {
        clearInterval(timer);
        if (at < body.length) hub.slowClosed = true;
      });
      return;
    }
    response.end(body);
  });
  await new Promise((resolve) => hub.server.listen(0, '127.0.0.1', resolve));
  hub.url = `http://127.0.0.1:${hub.server.address().port}`;
});
after(() => new Promise((resolve) => hub.server.close(resolve)));

/** A page that records console errors and any request to a server other than the site and the hub. */
async function open(hash = '') {
  const { page, errors } = await openPage(site.browser, { viewport: { width: 1280, height: 1000 } });
  page.on('request', (request) => {
    const url = request.url();
    if (![site.url, hub.url, 'blob:', 'data:'].some((prefix) => url.startsWith(prefix)))
      errors.push(`external request: ${url}`);
  });
  await page.goto(site.url + hash);
  await page.locator('ap-heatmap').first().waitFor({ timeout: 20_000 });
  return { page, errors };
}

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

async function openLoader(page) {
  await page.locator('button[data-action="open-pretrained"]').click();
  await page.locator('[data-testid="pretrained-loader"]').waitFor();
}

/** A load that worked closes the dialog, and focus goes back to its button. */
async function loaderClosed(page) {
  await page.locator('[data-testid="pretrained-dialog"]').waitFor({ state: 'hidden' });
  assert.equal(
    await page.evaluate(() => {
      const root = document.querySelector('ap-playground').shadowRoot.querySelector('ap-pretrained-loader').shadowRoot;
      return root.activeElement?.dataset.action;
    }),
    'open-pretrained',
  );
}

async function loadByName(page, repo) {
  await page.locator('#pretrained-base').fill(hub.url);
  await page.locator('#pretrained-repo').fill(repo);
  await page.locator('button[data-action="load"]').click();
}

/** Row labels of the first heatmap (its accessible table). */
const firstRows = (page) =>
  inPlayground(page, (root) =>
    [...(root.querySelector('ap-heatmap')?.shadowRoot.querySelectorAll('table th[scope="row"]') ?? [])].map(
      (th) => th.textContent,
    ),
  );

async function waitForRows(page, rows) {
  await page
    .waitForFunction(
      (want) => {
        const map = document.querySelector('ap-playground').shadowRoot.querySelector('.view:not(.stale) ap-heatmap');
        return (
          map &&
          JSON.stringify([...map.shadowRoot.querySelectorAll('table th[scope="row"]')].map((th) => th.textContent)) ===
            want
        );
      },
      JSON.stringify(rows),
      { timeout: 15_000 },
    )
    .catch(async () => assert.fail(`rows: ${JSON.stringify(await firstRows(page))}`));
}

/** Every head's shown weights, by head: { row, col, value (null: blocked) }[]. */
const shownWeights = (page) =>
  inPlayground(page, (root) =>
    [...root.querySelectorAll('ap-heatmap[data-head]')].map((map) =>
      [...map.shadowRoot.querySelectorAll('rect[data-row]')].map((r) => ({
        row: Number(r.dataset.row),
        col: Number(r.dataset.col),
        value: r.dataset.blocked ? null : Number(r.dataset.value),
      })),
    ),
  );

/** The shown weights of one layer against expected.json's attentions (batch item 0) within `tolerance`. */
async function checkLayer(page, expected, layer, heads, seq, tolerance = 1e-4) {
  const shown = await shownWeights(page);
  assert.equal(shown.length, heads, `layer ${layer}: heatmaps`);
  shown.forEach((cells, h) => {
    assert.equal(cells.length, seq * seq, `layer ${layer} head ${h}: cells`);
    for (const { row, col, value } of cells) {
      const want = expected.attentions[layer][(h * expected.seq + row) * expected.seq + col];
      const got = value ?? 0; // blocked (the causal mask): PyTorch's weight is 0
      assert.ok(
        Math.abs(got - want) <= tolerance,
        `layer ${layer} head ${h} [${row},${col}]: shown ${got}, PyTorch ${want}`,
      );
    }
  });
}

async function setLayer(page, layer) {
  await page.locator('#setting-layer').fill(String(layer));
  await page.waitForFunction(
    (l) =>
      document
        .querySelector('ap-playground')
        .shadowRoot.querySelector('ap-heatmap[data-head="0"]')
        ?.getAttribute('caption')
        ?.endsWith(`layer ${l}`),
    layer,
  );
}

/** The top 5 ids of a row of logits. */
function top5(logits, row, vocab) {
  const values = logits.slice(row * vocab, (row + 1) * vocab);
  return values
    .map((v, id) => [v, id])
    .sort((a, b) => b[0] - a[0])
    .slice(0, 5)
    .map(([, id]) => id);
}

const candidates = (page, kind) =>
  inPlayground(
    page,
    (root, k) =>
      [...root.querySelectorAll(`[data-testid="predictions"] figure[data-kind="${k}"]`)].map((f) =>
        [...f.querySelectorAll('li')].map((li) => ({
          id: Number(li.dataset.id),
          p: Number(li.dataset.probability),
          token: li.querySelector('.token').textContent,
        })),
      ),
    kind,
  );

describe('pretrained checkpoints on the Explore page', () => {
  test('GPT-2 by name from the hub: progress, the picker, its heads against PyTorch, the next token', async () => {
    const { page, errors } = await open();
    await openLoader(page);
    assert.equal(await page.locator('#pretrained-base').inputValue(), 'https://huggingface.co');
    await loadByName(page, 'gpt2-tiny');
    // Progress in bytes per file.
    const weights = page.locator('[data-testid="pretrained-progress"] li[data-file="model.safetensors"]');
    await weights.waitFor({ state: 'attached', timeout: 15_000 }); // the dialog may have closed already: the load worked
    const size = readFileSync(`${FIXTURES}gpt2-tiny/model.safetensors`).length;
    await page.waitForFunction(
      (s) =>
        document
          .querySelector('ap-playground')
          .shadowRoot.querySelector('ap-pretrained-loader')
          .shadowRoot.querySelector('li[data-file="model.safetensors"]')?.dataset.loaded === String(s),
      size,
    );
    assert.match(
      await weights.textContent(),
      new RegExp(`model\\.safetensors ${(size / 1000).toFixed(1)} / ${(size / 1000).toFixed(1)} kB`),
    );
    await page.locator('[data-testid="pretrained-note"]').waitFor();
    assert.match(
      await page.locator('[data-testid="pretrained-note"]').textContent(),
      /Loaded gpt2-tiny: 2 layers × 4 heads/,
    );
    await loaderClosed(page);

    // The picker lists it and has it chosen; the text starts as the example.
    assert.equal(await page.locator('#setting-model').inputValue(), 'pretrained:gpt2-tiny');
    assert.match(
      await page.locator('#setting-model option[value="pretrained:gpt2-tiny"]').textContent(),
      /gpt2-tiny \(pretrained GPT2LMHeadModel, 2 layers × 4 heads\)/,
    );
    assert.equal(await page.locator('#setting-text').inputValue(), GPT2.texts[0].text);
    assert.match(new URL(page.url()).hash, /model=pretrained%3Agpt2-tiny/);

    // 4 heads per layer over the tokenizer's pieces, the weights as PyTorch's.
    await waitForRows(page, GPT2_TOKENS);
    assert.equal(await page.locator('ap-heatmap').count(), 4);
    await checkLayer(page, GPT2, 0, 4, 10);
    await setLayer(page, 1);
    await checkLayer(page, GPT2, 1, 4, 10);
    await page.screenshot({ path: `${SHOTS}/pretrained-gpt2-heads.png`, fullPage: true });

    // The next token: 5 candidates, the top 5 of PyTorch's last row of logits, probabilities descending.
    const [next] = await candidates(page, 'next');
    assert.equal(next.length, 5);
    assert.deepEqual(
      next.map((c) => c.id),
      top5(GPT2.logits, 9, 557),
    );
    for (let i = 1; i < 5; i++) assert.ok(next[i].p <= next[i - 1].p);
    assert.ok(next[0].p > 0 && next[0].p < 1);

    // The other views draw it: layers x heads (2 x 4 thumbnails), masks (causal), shapes (the decoder layer).
    await page.locator('button[data-view="overview"]').click();
    await page.locator('ap-overview').waitFor();
    assert.equal(
      await inPlayground(
        page,
        (root) => root.querySelector('ap-overview').shadowRoot.querySelectorAll('canvas').length,
      ),
      8,
    );
    await page.locator('button[data-view="masks"]').click();
    await page.locator('ap-heatmap[data-mask="causal"]').waitFor();
    await page.locator('button[data-view="shapes"]').click();
    await page.locator('ap-shape-flow[data-stack="decoder"]').waitFor();
    await page.locator('button[data-view="heads"]').click();

    // A text longer than the model's 32 positions: a message at the text box, not a freeze.
    await page.locator('#setting-text').fill('the cat sat on the mat '.repeat(8));
    await page.locator('[data-setting="text"] .error, [data-setting="text"] [role="alert"]').first().waitFor();
    assert.match(await page.locator('[data-setting="text"]').textContent(), /tokens long; this model reads at most 32/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('weights in memory: a link\u2019s bf16 is the dialog\u2019s pick, and GPT-2 loads held in BF16', async () => {
    const { page, errors } = await open('#weights=bf16');
    await openLoader(page);
    const mode = (m) => page.locator(`input[name="weights"][value="${m}"]`);
    const int16 = page.locator('input[name="q8Activations"][value="int16"]');
    // one radio button per engine mode, each with its line; the link's pick checked; the activation modes only with q8_0
    assert.deepEqual(await page.locator('input[name="weights"]').evaluateAll((inputs) => inputs.map((i) => i.value)), [
      'f32',
      'auto',
      'bf16',
      'q8_0',
    ]);
    assert.deepEqual(
      await page.locator('input[name="q8Activations"]').evaluateAll((inputs) => inputs.map((i) => i.value)),
      ['f32', 'int16', 'int8'],
    );
    assert.equal(await mode('bf16').isChecked(), true);
    assert.match(
      await page.locator('label.mode:has(input[value="bf16"])').textContent(),
      /bf16: BF16, 2 bytes a value: half of float32.s memory/,
    );
    assert.equal(await int16.isDisabled(), true);
    // disabled, an activation mode keeps its name but not its line (a narrow dialog stays short)
    const int16Label = page.locator('label.mode:has(input[name="q8Activations"][value="int16"])');
    assert.doesNotMatch(await int16Label.textContent(), /integers/);
    await mode('q8_0').check();
    await page.waitForFunction(() => /weights=q8_0/.test(location.hash));
    assert.equal(await int16.isEnabled(), true);
    assert.match(await int16Label.textContent(), /int16\s+activations \(with q8_0\): .*integers/s);
    await int16.check();
    await page.waitForFunction(() => /q8Activations=int16/.test(location.hash));
    await page.screenshot({ path: `${SHOTS}/pretrained-weights-held.png` });
    await mode('bf16').check();
    await page.waitForFunction(() => /weights=bf16/.test(location.hash));
    assert.equal(await int16.isDisabled(), true);

    await loadByName(page, 'gpt2-tiny');
    await loaderClosed(page);
    // the summary says how the model is held: its matrices in BF16
    const held = page.locator('[data-testid="pretrained-summary"] dt:text-is("Weights in memory") + dd');
    assert.match(await held.textContent(), /^bf16: [\d.]+ kB \(f32 [\d.]+ kB, bf16 [\d.]+ kB\)$/);
    const hash = new URL(page.url()).hash;
    assert.match(hash, /model=pretrained%3Agpt2-tiny/);
    assert.match(hash, /weights=bf16/);
    // its heads still PyTorch's, within BF16's rounding of the weights
    await waitForRows(page, GPT2_TOKENS);
    await checkLayer(page, GPT2, 0, 4, 10, 2e-2);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('BERT from files: a sentence pair against PyTorch, and the candidates for [MASK]', async () => {
    const { page, errors } = await open();
    await openLoader(page);
    const files = readdirSync(`${FIXTURES}bert-tiny`)
      .filter((f) => f !== 'expected.json')
      .map((f) => `${FIXTURES}bert-tiny/${f}`);
    await page.locator('#pretrained-files').setInputFiles(files);
    await page.locator('[data-testid="pretrained-note"]').waitFor({ timeout: 15_000 });
    assert.equal(await page.locator('#setting-model').inputValue(), 'pretrained:BertForMaskedLM');
    await loaderClosed(page);
    // The files the loader read (tokenizer.json holds the vocabulary: vocab.txt and tokenizer_config.json are not read).
    assert.deepEqual(
      await page
        .locator('[data-testid="pretrained-progress"] li')
        .evaluateAll((lis) => lis.map((li) => li.dataset.file)),
      ['config.json', 'tokenizer.json', 'model.safetensors'],
    );

    // [MASK] in the example: 5 candidates.
    await waitForRows(page, ['[CLS]', 'the', 'ca', '##t', '[MASK]', 'on', 'the', 'm', '##at', '.', '[SEP]']);
    const masks = await candidates(page, 'mask');
    assert.equal(masks.length, 1);
    assert.equal(masks[0].length, 5);
    assert.ok(masks[0].every((c) => c.token.length > 0 && c.p > 0 && c.p < 1));

    // A pair on two lines: [CLS] a [SEP] b [SEP], token types from the tokenizer; the weights as PyTorch's.
    const pair = BERT.texts[0];
    await page.locator('#setting-text').fill(`${pair.text}\n${pair.text_pair}`);
    await waitForRows(page, pair.tokens);
    assert.equal(await page.locator('ap-heatmap').count(), 2);
    await checkLayer(page, BERT, 0, 2, 14);
    await setLayer(page, 1);
    await checkLayer(page, BERT, 1, 2, 14);
    assert.match(await page.locator('[data-testid="predictions"]').textContent(), /Write \[MASK\]/);
    await page.screenshot({ path: `${SHOTS}/pretrained-bert-heads.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('BERT from files dropped on the panel loads as from the picker', async () => {
    const { page, errors } = await open();
    await openLoader(page);
    const names = readdirSync(`${FIXTURES}bert-tiny`).filter((f) => f !== 'expected.json');
    const files = names.map((name) => ({
      name,
      base64: readFileSync(`${FIXTURES}bert-tiny/${name}`).toString('base64'),
    }));
    // A drop as the browser delivers one: a DataTransfer holding the files, on the panel.
    await page.evaluate((files) => {
      const data = new DataTransfer();
      for (const { name, base64 } of files)
        data.items.add(new File([Uint8Array.from(atob(base64), (c) => c.charCodeAt(0))], name));
      const panel = document
        .querySelector('ap-playground')
        .shadowRoot.querySelector('ap-pretrained-loader')
        .shadowRoot.querySelector('[data-testid="pretrained-loader"]');
      panel.dispatchEvent(new DragEvent('dragover', { dataTransfer: data, bubbles: true, cancelable: true }));
      panel.dispatchEvent(new DragEvent('drop', { dataTransfer: data, bubbles: true, cancelable: true }));
    }, files);
    await page.locator('[data-testid="pretrained-note"]').waitFor({ timeout: 15_000 });
    assert.equal(await page.locator('#setting-model').inputValue(), 'pretrained:BertForMaskedLM');
    await waitForRows(page, ['[CLS]', 'the', 'ca', '##t', '[MASK]', 'on', 'the', 'm', '##at', '.', '[SEP]']);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a broken checkpoint says which file; Cancel stops a download', async () => {
    const { page, errors } = await open();
    await openLoader(page);
    const error = page.locator('[data-testid="pretrained-error"]');

    await loadByName(page, 'gpt2-noconfig');
    await error.waitFor({ timeout: 15_000 });
    assert.match(await error.textContent(), /config\.json/);

    await loadByName(page, 'gpt2-truncated');
    await page.waitForFunction(
      () =>
        /model\.safetensors/.test(
          document
            .querySelector('ap-playground')
            .shadowRoot.querySelector('ap-pretrained-loader')
            .shadowRoot.querySelector('[data-testid="pretrained-error"]')?.textContent ?? '',
        ),
      null,
      { timeout: 15_000 },
    );
    assert.match(await error.textContent(), /model\.safetensors.*truncated/);

    // Files without config.json: the same message, naming it.
    const files = readdirSync(`${FIXTURES}gpt2-tiny`)
      .filter((f) => f !== 'expected.json' && f !== 'config.json')
      .map((f) => `${FIXTURES}gpt2-tiny/${f}`);
    await page.locator('#pretrained-files').setInputFiles(files);
    await page.waitForFunction(() =>
      /needs config\.json/.test(
        document
          .querySelector('ap-playground')
          .shadowRoot.querySelector('ap-pretrained-loader')
          .shadowRoot.querySelector('[data-testid="pretrained-error"]')?.textContent ?? '',
      ),
    );

    // Cancel a slow download part-way.
    await loadByName(page, 'gpt2-slow');
    await page.waitForFunction(
      () =>
        Number(
          document
            .querySelector('ap-playground')
            .shadowRoot.querySelector('ap-pretrained-loader')
            .shadowRoot.querySelector('li[data-file="model.safetensors"]')?.dataset.loaded ?? 0,
        ) > 0,
      null,
      { timeout: 15_000 },
    );
    await page.locator('button[data-action="cancel"]').click();
    await page.locator('[data-testid="pretrained-note"]').waitFor();
    assert.match(await page.locator('[data-testid="pretrained-note"]').textContent(), /cancelled/);
    assert.equal(await error.count(), 0);
    assert.equal(await page.locator('#setting-model option[value^="pretrained:"]').count(), 0);
    assert.equal(await page.locator('#setting-model').inputValue(), '');
    await page.waitForFunction(() => true);
    for (let i = 0; i < 20 && !hub.slowClosed; i++) await new Promise((r) => setTimeout(r, 100));
    assert.ok(hub.slowClosed, 'the slow download was closed before its end');
    assert.equal(await page.locator('button[data-action="load"]').isEnabled(), true);
    await page.screenshot({ path: `${SHOTS}/pretrained-errors.png`, fullPage: true });

    // The hub's 404s are the browser's "failed to load resource" lines, nothing else.
    assert.deepEqual(
      errors.filter((e) => !/Failed to load resource: the server responded with a status of 404/.test(e)),
      [],
    );
    assert.ok(
      hub.requests.every((url) => url.startsWith('/gpt2-')),
      hub.requests.join(' '),
    );
    await page.close();
  });
});
