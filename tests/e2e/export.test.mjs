// PNG and SVG export in every view that shows the buttons, against the production build
// (dist-web/): each download is the view's own picture, with a title (what it shows and the
// typed text, as text) and a legend, under a name that says what it holds; views that are
// not pictures (Shapes, What changed) show no PNG/SVG buttons.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync } from 'node:fs';
import { openPage } from '../support/browser.mjs';
import { ROOT, useSite } from '../support/site.mjs';

const site = useSite();

const SENTENCE = 'the cat sat on the mat';
const KEPT = `${ROOT}test-output/exports`; // every download, to look at
const PNG_MAGIC = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

async function open(hash) {
  const { page, errors } = await openPage(
    site.browser,
    { viewport: { width: 1280, height: 900 }, acceptDownloads: true },
    { onlyFrom: site.url },
  );
  await page.goto(site.url + hash);
  await page
    .locator('ap-heatmap, ap-shape-flow, ap-overview canvas, ap-line-view, table.changes, p.hint')
    .first()
    .waitFor();
  return { page, errors };
}

/** Clicks an export button; the download's suggested file name and bytes. */
async function download(page, label) {
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.locator(`.exports button:text-is("${label}")`).click(),
  ]);
  const path = await file.path();
  mkdirSync(KEPT, { recursive: true });
  copyFileSync(path, `${KEPT}/${file.suggestedFilename()}`);
  return { name: file.suggestedFilename(), bytes: readFileSync(path) };
}

/** The SVG file as the browser reads it: parse errors, title lines, legend items, panels and their marks. */
function readSvg(page, text) {
  return page.evaluate((source) => {
    const doc = new DOMParser().parseFromString(source, 'image/svg+xml');
    if (doc.querySelector('parsererror')) return { error: doc.querySelector('parsererror').textContent };
    const root = doc.documentElement;
    return {
      root: root.tagName,
      width: Number(root.getAttribute('width')),
      title: [...root.querySelectorAll('g.title text')].map((t) => t.textContent).join('\n'),
      headingLines: root.querySelectorAll('g.title text[font-weight="700"]').length,
      legend: [...root.querySelectorAll('g.legend text')].map((t) => t.textContent),
      legendBar: root.querySelector('g.legend rect[fill="url(#legend-scale)"]') !== null,
      panels: [...root.querySelectorAll('g.panel')].map((g) => ({
        ...g.dataset,
        caption: g.querySelector('text')?.textContent,
      })),
      heatmapCells: root.querySelectorAll('g.panel rect[data-row]').length,
      lines: root.querySelectorAll('g.panel line[data-row]').length,
      images: root.querySelectorAll('image').length,
      foreign: root.querySelectorAll('img, script, foreignObject').length,
    };
  }, text);
}

function assertPng(bytes, name) {
  assert.deepEqual([...bytes.subarray(0, 8)], PNG_MAGIC, `${name} is not a PNG`);
  assert.ok(bytes.length > 5000, `${name}: only ${bytes.length} bytes`);
  // IHDR: width and height, big-endian, at bytes 16 and 20.
  assert.ok(
    bytes.readUInt32BE(16) > 400 && bytes.readUInt32BE(20) > 200,
    `${name}: ${bytes.readUInt32BE(16)} x ${bytes.readUInt32BE(20)}`,
  );
}

/** Both downloads of the view on screen; the SVG read back. */
async function exportBoth(page) {
  const svg = await download(page, 'SVG');
  const png = await download(page, 'PNG');
  assert.match(svg.name, /\.svg$/);
  assert.equal(png.name, svg.name.replace(/\.svg$/, '.png'));
  assertPng(png.bytes, png.name);
  const text = svg.bytes.toString('utf8');
  assert.match(text, /^<\?xml/);
  const parsed = await readSvg(page, text);
  assert.equal(parsed.error, undefined, parsed.error);
  assert.equal(parsed.root, 'svg');
  assert.equal(parsed.foreign, 0);
  assert.equal(parsed.headingLines, 1, 'the heading fits on one line');
  return { name: svg.name, svg: parsed };
}

const sorted = (values) => [...values].sort((a, b) => a - b);

/** The Trace JSON download, parsed: one (Sq x Sk) matrix of a stage, for one sentence and head. */
async function traceMatrix(page, name, layer, sequence, head) {
  const { bytes } = await download(page, 'Trace JSON');
  const stage = JSON.parse(bytes.toString('utf8')).stages.find((s) => s.name === name && s.layer === layer);
  const [, heads, rows, cols] = stage.shape;
  const start = (sequence * heads + head) * rows * cols;
  return { rows, cols, data: stage.data.slice(start, start + rows * cols) };
}

/** An exported panel's drawn numbers: each heatmap cell's value, and each line's row, column and opacity. */
function panelMarks(page, text, selector) {
  return page.evaluate(
    ({ source, selector }) => {
      const panel = new DOMParser().parseFromString(source, 'image/svg+xml').querySelector(selector);
      return {
        cells: [...panel.querySelectorAll('rect[data-row][data-value]')].map((r) => [
          Number(r.dataset.row),
          Number(r.dataset.col),
          Number(r.dataset.value),
        ]),
        lines: [...panel.querySelectorAll('line[data-row]')].map((l) => [
          Number(l.dataset.row),
          Number(l.dataset.col),
          Number(l.getAttribute('stroke-opacity')),
        ]),
      };
    },
    { source: text, selector },
  );
}

describe('export', () => {
  test("'All heads' exports every head in one SVG, with a title and a colour legend", async () => {
    const { page, errors } = await open(`#text=${encodeURIComponent(SENTENCE)}&heads=8`);
    await page.waitForFunction(
      () => document.querySelector('ap-playground').shadowRoot.querySelectorAll('ap-heatmap').length === 8,
    );
    const { name, svg } = await exportBoth(page);
    assert.equal(name, 'attention-encoder-self_attn-layer0-all-heads-weights.svg');
    assert.match(svg.title, /Softmax weights · encoder self-attention · layer 0 · all 8 heads/);
    assert.match(svg.title, new RegExp(`Input: ${SENTENCE}`));
    assert.deepEqual(sorted(svg.panels.map((p) => Number(p.head))), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.equal(svg.heatmapCells, 8 * 6 * 6);
    assert.ok(svg.legendBar, 'a colour bar');
    assert.ok(
      svg.legend.includes('Weight:') && svg.legend.includes('0.000') && svg.legend.includes('1.000'),
      svg.legend.join(' | '),
    );
    assert.ok(svg.legend.some((t) => /blocked/.test(t)));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('with each row its own colour scale, the exported legend says so instead of 0 to 1', async () => {
    const { page, errors } = await open(`#text=${encodeURIComponent(SENTENCE)}&colorScale=row`);
    await page.waitForFunction(
      () => document.querySelector('ap-playground').shadowRoot.querySelectorAll('ap-heatmap').length === 4,
    );
    const { svg } = await exportBoth(page);
    assert.ok(svg.legendBar, 'a colour bar');
    assert.deepEqual(
      svg.legend.slice(0, 3),
      ['Weight, each row its own scale:', '0', 'the row\u2019s largest weight'],
      svg.legend.join(' | '),
    );
    assert.ok(!svg.legend.includes('1.000'), svg.legend.join(' | '));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test("'One head' exports that head's heatmap and line view, named for the head and stage", async () => {
    const { page, errors } = await open(
      `#text=${encodeURIComponent(SENTENCE)}&view=head&head=2&stage=scores&layers=2&layer=1`,
    );
    const { name, svg } = await exportBoth(page);
    assert.equal(name, 'attention-encoder-self_attn-layer1-head2-scores.svg');
    assert.match(svg.title, /Scores Q·Kᵀ · encoder self-attention · layer 1 · head 2/);
    assert.match(svg.title, new RegExp(SENTENCE));
    assert.deepEqual(
      svg.panels.map((p) => [p.head, p.kind]),
      [
        ['2', 'heatmap'],
        ['2', 'lines'],
      ],
    );
    assert.equal(svg.heatmapCells, 36);
    assert.ok(svg.lines > 0);
    assert.ok(svg.legendBar && svg.legend.includes('Score:'), svg.legend.join(' | '));

    // The picture's numbers are the trace's: every heatmap cell is head 2's score, and the lines are
    // exactly head 2's softmax weights above 0.01, each as opaque as its weight (×1.1, at most 1).
    const file = readFileSync(`${KEPT}/${name}`, 'utf8');
    const scores = await traceMatrix(page, 'encoder.self_attn.scores', 1, 0, 2);
    const weights = await traceMatrix(page, 'encoder.self_attn.weights', 1, 0, 2);
    const heatmap = await panelMarks(page, file, 'g.panel[data-kind="heatmap"]');
    assert.equal(heatmap.cells.length, scores.rows * scores.cols);
    for (const [i, j, v] of heatmap.cells) assert.equal(v, scores.data[i * scores.cols + j], `score (${i}, ${j})`);
    const lines = await panelMarks(page, file, 'g.panel[data-kind="lines"]');
    const expected = [];
    weights.data.forEach((w, k) => {
      if (w > 0.01) expected.push([Math.floor(k / weights.cols), k % weights.cols, Math.min(1, w * 1.1)]);
    });
    assert.equal(lines.lines.length, expected.length);
    lines.lines.forEach(([i, j, opacity], k) => {
      assert.deepEqual([i, j], expected[k].slice(0, 2));
      assert.ok(Math.abs(opacity - expected[k][2]) < 1e-6, `line (${i}, ${j}): ${opacity} vs ${expected[k][2]}`);
    });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the line view exports its lines: one panel per head, or the overlay with a legend of head colours', async () => {
    const { page, errors } = await open(`#text=${encodeURIComponent(SENTENCE)}&view=lines`);
    const all = await exportBoth(page);
    assert.equal(all.name, 'lines-encoder-self_attn-layer0-all-heads.svg');
    assert.match(all.svg.title, /as lines .* layer 0 · all 4 heads/);
    assert.match(all.svg.title, new RegExp(SENTENCE));
    assert.deepEqual(sorted(all.svg.panels.map((p) => Number(p.head))), [0, 1, 2, 3]);
    assert.ok(all.svg.lines > 0);
    for (const h of [0, 1, 2, 3]) assert.ok(all.svg.legend.includes(`head ${h}`), all.svg.legend.join(' | '));

    await page.locator('[data-setting="overlay"] input[value="1"]').check();
    await page.locator('[data-setting="overlay"] input[value="3"]').check();
    await page.locator('ap-line-view[data-overlay="1,3"]').waitFor();
    const overlay = await exportBoth(page);
    assert.equal(overlay.name, 'lines-encoder-self_attn-layer0-heads1-3-overlaid.svg');
    assert.match(overlay.svg.title, /heads 1, 3 overlaid/);
    assert.deepEqual(
      overlay.svg.panels.map((p) => p.heads),
      ['1,3'],
    );
    assert.deepEqual(
      overlay.svg.legend.filter((t) => t.startsWith('head ')),
      ['head 1', 'head 3'],
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the masks export is named for masks, its layer and sentence, and holds every mask panel', async () => {
    const text = `${SENTENCE}\na dog`;
    const { page, errors } = await open(
      `#text=${encodeURIComponent(text)}&view=masks&mode=decoder&sequence=1&layers=2&layer=1`,
    );
    const { name, svg } = await exportBoth(page);
    assert.equal(name, 'masks-decoder-self_attn-layer1-sentence2.svg');
    assert.match(
      svg.title,
      /Attention masks · decoder self-attention · layer 1 · the same for all 4 heads · sentence 2 of 2/,
    );
    assert.match(svg.title, /Input: a dog/);
    assert.doesNotMatch(svg.title, /cat/); // the picture is of sentence 2
    assert.deepEqual(
      svg.panels.map((p) => p.mask),
      ['batch-padding', 'padding', 'causal', 'combined'],
    );
    assert.ok(svg.legend.includes('allowed') && svg.legend.some((t) => /blocked/.test(t)), svg.legend.join(' | '));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('layers x heads exports every thumbnail, layer by layer', async () => {
    const { page, errors } = await open(`#text=${encodeURIComponent(SENTENCE)}&view=overview&layers=3`);
    await page.waitForFunction(
      () =>
        document
          .querySelector('ap-playground')
          .shadowRoot.querySelector('ap-overview')
          ?.shadowRoot.querySelectorAll('canvas').length === 12,
    );
    const { name, svg } = await exportBoth(page);
    assert.equal(name, 'overview-encoder-self_attn-all-layers-all-heads-weights.svg');
    assert.match(svg.title, /Softmax weights · encoder self-attention · all 3 layers × 4 heads/);
    assert.match(svg.title, new RegExp(SENTENCE));
    assert.equal(svg.panels.length, 12);
    assert.equal(svg.images, 12);
    assert.deepEqual(
      svg.panels.map((p) => `${p.layer}/${p.head}`),
      Array.from({ length: 12 }, (_, k) => `${Math.floor(k / 4)}/${k % 4}`),
    );
    assert.ok(svg.legendBar);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('typed text goes into the title as text, never as markup, and a long text wraps', async () => {
    const hostile = '<img src=x onerror=alert(1)> & "quotes" </text><script>x</script>';
    const long = `${hostile} ${'word '.repeat(60)}`.trim();
    const { page, errors } = await open(`#text=${encodeURIComponent(long)}`);
    const { svg } = await exportBoth(page);
    assert.equal(svg.foreign, 0);
    const title = svg.title.replace(/\n/g, ' ');
    assert.ok(title.includes(hostile), title);
    assert.ok(svg.title.split('\n').length >= 1 + 3, `the long input wraps onto several lines:\n${svg.title}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('views that are not pictures show no PNG or SVG buttons, but still the trace', async () => {
    const { page, errors } = await open(`#text=${encodeURIComponent(SENTENCE)}&view=shapes`);
    const labels = () => page.locator('.exports button').allTextContents();
    assert.deepEqual(await labels(), ['Trace JSON']);
    await page.locator('button[data-view="changes"]').click();
    await page.locator('p.hint, table.changes').first().waitFor();
    assert.deepEqual(await labels(), ['Trace JSON']);
    for (const view of ['heads', 'head', 'lines', 'masks', 'overview']) {
      await page.locator(`button[data-view="${view}"]`).click();
      assert.deepEqual(await labels(), ['PNG', 'SVG', 'Trace JSON'], view);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });
});
