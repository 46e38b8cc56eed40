// The views at real-model sizes, in Chromium against the production build (dist-web/):
// 12 layers x 12 heads as readable thumbnails in a scroll box, the line view overlaying
// several heads in colour, and a 120-token text that scrolls instead of shrinking and
// can colour each row on its own scale.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { interpolatePuOr, interpolateViridis } from 'd3-scale-chromatic';
import { openPage } from '../support/browser.mjs';
import { SHOTS, useSite } from '../support/site.mjs';

const site = useSite();

async function open(hash, viewport = { width: 1280, height: 900 }) {
  const { page, errors } = await openPage(site.browser, { viewport }, { onlyFrom: site.url });
  await page.goto(site.url + hash);
  await page.locator('ap-heatmap, ap-overview, ap-line-view').first().waitFor({ timeout: 20_000 });
  return { page, errors };
}

const encode = (text) => encodeURIComponent(text).replace(/%20/g, '+');

/** [r, g, b] of '#rrggbb' or 'rgb(r, g, b)'. */
const channels = (color) =>
  color.startsWith('#')
    ? color
        .slice(1)
        .match(/../g)
        .map((h) => parseInt(h, 16))
    : color.match(/\d+/g).map(Number);

describe('views at real-model sizes', () => {
  test('12 layers x 12 heads: 144 thumbnails of at least 48 px in a scroll box with sticky labels; a click opens the head', async () => {
    const { page, errors } = await open(
      `#dModel=96&heads=12&layers=12&view=overview&text=${encode('the cat sat on the mat and looked at the dog')}`,
      { width: 1100, height: 800 },
    );
    await page.waitForFunction(
      () =>
        document
          .querySelector('ap-playground')
          .shadowRoot.querySelector('ap-overview')
          ?.shadowRoot.querySelectorAll('canvas').length === 144,
      null,
      { timeout: 20_000 },
    );
    const info = await page.locator('ap-overview').evaluate((el) => {
      const root = el.shadowRoot;
      const box = root.querySelector('[data-testid="overview-scroll"]');
      const sizes = [...root.querySelectorAll('canvas')].map((c) => {
        const r = c.getBoundingClientRect();
        return [r.width, r.height, c.width, c.height];
      });
      const style = getComputedStyle(box);
      return {
        sizes,
        overflow: [style.overflowX, style.overflowY],
        scrolls: box.scrollHeight > box.clientHeight + 1 || box.scrollWidth > box.clientWidth + 1,
        inside: [...root.querySelectorAll('canvas')].every((c) => box.contains(c)),
        heads: [...root.querySelectorAll('thead th')].map((th) => th.textContent.trim()).filter(Boolean),
        layers: [...root.querySelectorAll('tbody th')].map((th) => th.textContent.trim()),
      };
    });
    assert.equal(info.sizes.length, 144);
    for (const [w, h, cw, ch] of info.sizes) {
      assert.ok(w >= 48 && h >= 48, `thumbnail ${w} x ${h} px`);
      assert.deepEqual([cw, ch], [11, 11]); // drawn: one pixel per (query, key)
    }
    assert.ok(info.inside);
    assert.ok(info.overflow.includes('auto'), `overflow ${info.overflow}`);
    assert.ok(info.scrolls, 'the thumbnail grid scrolls in its own box');
    assert.equal(info.heads.length, 12);
    assert.deepEqual(
      info.layers,
      Array.from({ length: 12 }, (_, l) => `layer ${l}`),
    );
    await page.screenshot({ path: `${SHOTS}/overview-12x12.png`, fullPage: true });

    // Scrolled to the bottom right, the head labels (top) and layer labels (left) are still in view.
    const sticky = await page.locator('ap-overview').evaluate((el) => {
      const root = el.shadowRoot;
      const box = root.querySelector('[data-testid="overview-scroll"]');
      box.scrollTop = box.scrollHeight;
      box.scrollLeft = box.scrollWidth;
      const frame = box.getBoundingClientRect();
      const head = root.querySelectorAll('thead th')[12].getBoundingClientRect();
      const layer = root.querySelectorAll('tbody th')[11].getBoundingClientRect();
      return {
        scrolled: box.scrollTop > 0,
        headTop: head.top - frame.top,
        layerLeft: layer.left - frame.left,
        headVisible: head.bottom <= frame.bottom && head.top >= frame.top - 1,
        layerVisible: layer.left >= frame.left - 1,
      };
    });
    assert.ok(sticky.scrolled);
    assert.ok(sticky.headVisible && Math.abs(sticky.headTop) <= 2, `head label at ${sticky.headTop}`);
    assert.ok(sticky.layerVisible && Math.abs(sticky.layerLeft) <= 2, `layer label at ${sticky.layerLeft}`);

    await page.locator('ap-overview button[aria-label="layer 11, head 10: open"]').click();
    await page.waitForFunction(() => location.hash.includes('view=head') && location.hash.includes('layer=11'));
    assert.equal(await page.locator('ap-heatmap').getAttribute('data-head'), '10');
    assert.match(await page.locator('ap-heatmap').getAttribute('caption'), /· head 10 · layer 11$/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the line view overlays three heads in three colours with a legend; a hovered token keeps only its lines', async () => {
    // Random weights, so the lines' opacities vary (the page's positional heads put all weight on one key).
    const { page, errors } = await open(`#view=lines&preset=random&text=${encode('the cat sat on the mat')}`);
    // One line view per head by default, as before.
    assert.equal(await page.locator('ap-line-view').count(), 4);
    const strip = page.locator('fieldset.overlay-strip');
    for (const head of [0, 1, 2]) await strip.locator(`input[value="${head}"]`).check();
    const view = page.locator('ap-line-view[data-overlay="0,1,2"]');
    await view.waitFor();
    assert.equal(await page.locator('ap-line-view').count(), 1);
    await page.waitForFunction(() => location.hash.includes('overlay=0%2C1%2C2'));
    const drawn = await view.evaluate((el) => {
      const lines = [...el.shadowRoot.querySelectorAll('line')];
      return {
        strokes: [...new Set(lines.map((l) => l.getAttribute('stroke')))],
        byHead: Object.fromEntries(
          [0, 1, 2].map((h) => [
            h,
            [...new Set(lines.filter((l) => l.dataset.head === String(h)).map((l) => l.getAttribute('stroke')))],
          ]),
        ),
        opacities: lines.map((l) => Number(l.getAttribute('stroke-opacity'))),
        legend: [...el.shadowRoot.querySelectorAll('.legend li')].map((li) => [
          li.textContent.trim(),
          li.dataset.color,
        ]),
      };
    });
    assert.equal(drawn.strokes.length, 3, `strokes ${drawn.strokes}`);
    for (const h of [0, 1, 2]) assert.equal(drawn.byHead[h].length, 1, `head ${h}: ${drawn.byHead[h]}`);
    assert.deepEqual(
      drawn.legend,
      [0, 1, 2].map((h) => [`head ${h}`, drawn.byHead[h][0]]),
    );
    assert.ok(
      drawn.opacities.some((o) => o < 0.99),
      'opacity follows the weight',
    );
    await page.screenshot({ path: `${SHOTS}/lines-overlay.png`, fullPage: true });

    // Hovering query token 2 keeps only its lines, of every overlaid head.
    await view.locator('text.token[data-row="2"]').hover();
    const focused = await view.evaluate((el) =>
      [...el.shadowRoot.querySelectorAll('line')].map((l) => [l.dataset.row, l.dataset.head]),
    );
    assert.ok(focused.length > 0);
    assert.ok(focused.every(([row]) => row === '2'));
    assert.equal(new Set(focused.map(([, head]) => head)).size, 3);

    // "none": back to one line view per head.
    await strip.locator('button', { hasText: 'none' }).click();
    await page.waitForFunction(
      () => document.querySelector('ap-playground').shadowRoot.querySelectorAll('ap-line-view').length === 4,
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a 120-token text keeps heatmap cells and labels readable: the heatmap scrolls in its box', async () => {
    const words = Array.from({ length: 120 }, (_, i) => `w${i}`).join(' ');
    const { page, errors } = await open(`#view=head&text=${encode(words)}`);
    await page.waitForFunction(
      () =>
        document
          .querySelector('ap-playground')
          .shadowRoot.querySelector('ap-heatmap')
          ?.shadowRoot.querySelectorAll('rect[data-row]').length ===
        120 * 120,
      null,
      { timeout: 20_000 },
    );
    const measured = await page.locator('ap-heatmap').evaluate((el) => {
      const root = el.shadowRoot;
      const svg = root.querySelector('svg');
      const box = root.querySelector('.plot');
      const cell = root.querySelector('rect[data-row="5"][data-col="7"]').getBoundingClientRect();
      const scale = svg.getBoundingClientRect().width / svg.viewBox.baseVal.width;
      const label = root.querySelector('svg > text[text-anchor="end"][font-size="12"]');
      return {
        cell: [cell.width, cell.height],
        labelPx: Number(label.getAttribute('font-size')) * scale,
        overflow: getComputedStyle(box).overflowX,
        scrollsX: box.scrollWidth > box.clientWidth + 1,
        scrollsY: box.scrollHeight > box.clientHeight + 1,
        boxWidth: box.getBoundingClientRect().width,
      };
    });
    assert.ok(measured.cell[0] >= 17.9 && measured.cell[1] >= 17.9, `cell ${measured.cell}`); // MIN_CELL
    assert.ok(measured.labelPx >= 9, `labels ${measured.labelPx} px`);
    assert.equal(measured.overflow, 'auto');
    assert.ok(measured.scrollsX && measured.scrollsY, 'the heatmap scrolls in its box');
    assert.ok(measured.boxWidth < 1280);

    // Its line view keeps 9 px labels too, scrolling in its own box.
    const lines = await page.locator('ap-line-view').evaluate((el) => {
      const svg = el.shadowRoot.querySelector('svg');
      const box = el.shadowRoot.querySelector('.scroll');
      return {
        scale: svg.getBoundingClientRect().width / svg.viewBox.baseVal.width,
        scrolls: box.scrollHeight > box.clientHeight + 1,
      };
    });
    assert.ok(lines.scale * 12 >= 9, `line view labels ${lines.scale * 12} px`);
    assert.ok(lines.scrolls);
    await page.screenshot({ path: `${SHOTS}/long-input.png` });

    // All heads: every heatmap keeps the minimum cell size in its column.
    await page.locator('button[data-view="heads"]').click();
    await page.waitForFunction(
      () => document.querySelector('ap-playground').shadowRoot.querySelectorAll('ap-heatmap').length === 4,
    );
    const cells = await page.locator('ap-heatmap').evaluateAll((els) =>
      els.map((el) => {
        const r = el.shadowRoot.querySelector('rect[data-row="0"][data-col="0"]').getBoundingClientRect();
        const box = el.shadowRoot.querySelector('.plot');
        return [r.width, box.scrollWidth > box.clientWidth + 1, el.getBoundingClientRect().width];
      }),
    );
    for (const [w, scrolls, width] of cells) {
      assert.ok(w >= 17.9, `cell ${w} px`); // MIN_CELL
      // One heatmap a row (fewer columns before smaller cells), scrolling at MIN_CELL inside the page's width.
      assert.ok(scrolls && width < 1280, `a heatmap ${width} px wide that ${scrolls ? 'scrolls' : 'does not scroll'}`);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });
  test('each row its own colour scale: a long text\u2019s small weights span the whole palette, row by row', async () => {
    const words = Array.from({ length: 40 }, (_, i) => `w${i}`).join(' ');
    const { page, errors } = await open(`#view=head&preset=random&text=${encode(words)}`);
    // Every cell of the head's heatmap: its weight and its colour, by row.
    const cells = () =>
      page.locator('ap-heatmap').evaluate((el) => {
        const rows = [];
        for (const r of el.shadowRoot.querySelectorAll('rect[data-row][data-value]')) {
          (rows[Number(r.dataset.row)] ??= []).push({ value: Number(r.dataset.value), fill: r.getAttribute('fill') });
        }
        return rows;
      });
    const wait = (perRow) =>
      page.waitForFunction(
        (want) => {
          const legend = document.querySelector('ap-playground').shadowRoot.querySelector('ap-legend');
          return (
            (legend?.shadowRoot.querySelector('[data-key="per-row"]') !== null) === want &&
            (document
              .querySelector('ap-playground')
              .shadowRoot.querySelector('ap-heatmap')
              ?.shadowRoot.querySelectorAll('rect[data-row]').length ?? 0) ===
              40 * 40
          );
        },
        perRow,
        { timeout: 20_000 },
      );

    // One scale for all cells: a weight's colour is viridis at the weight itself. Forty keys of an untrained model
    // share each row, so no row comes near the top of the palette.
    await wait(false);
    const shared = await cells();
    assert.equal(shared.length, 40);
    let largest = 0;
    for (const row of shared)
      for (const { value, fill } of row) {
        assert.equal(fill, interpolateViridis(value), `shared: weight ${value}`);
        largest = Math.max(largest, value);
      }
    assert.ok(largest < 0.5, `the largest weight ${largest} would already reach far up the shared palette`);

    // Each row its own: the setting's menu, the link, the legend, and every colour at the weight over its row's largest.
    await page.locator('#setting-colorScale').selectOption('row');
    await wait(true);
    await page.waitForFunction(() => location.hash.includes('colorScale=row'));
    const perRow = await cells();
    for (const row of perRow) {
      const top = Math.max(...row.map((c) => c.value));
      for (const { value, fill } of row)
        assert.equal(fill, interpolateViridis(value / top), `per row: weight ${value} of ${top}`);
      assert.ok(
        row.some((c) => c.fill === interpolateViridis(1)),
        'each row reaches the top of the palette',
      );
    }
    const legend = await page.locator('ap-legend').evaluate((el) => el.shadowRoot.textContent.replace(/\s+/g, ' '));
    assert.match(legend, /each row its own scale: 0 .*the row’s largest weight/);

    // Scores on a row's own scale: symmetric around 0 up to the row's largest |score|.
    await page.locator('#setting-stage').selectOption('scores');
    await page.waitForFunction(() => location.hash.includes('stage=scores'));
    // A row's own scale hides the ÷ √d_k (every row shrinks alike): the view says so.
    assert.match(
      await page.locator('[data-testid="row-scale-note"]').textContent(),
      /Scores and Scaled look the same here/,
    );
    const scores = await cells();
    for (const row of scores) {
      const extent = Math.max(...row.map((c) => Math.abs(c.value)));
      const end = row.find((c) => Math.abs(c.value) === extent);
      // The playground's diverging palette puts high scores at PuOr's purple end (0) and low ones at its orange end (1).
      const want = channels(interpolatePuOr(end.value > 0 ? 0 : 1));
      const got = channels(end.fill);
      assert.ok(
        got.every((c, k) => Math.abs(c - want[k]) <= 1),
        `a row's largest |score| takes an end colour: ${end.fill}, not ${want}`,
      );
    }

    // Layers x heads: each thumbnail row tops out at the palette's top colour too.
    await page.locator('button[data-view="overview"]').click();
    await page.waitForFunction(
      () =>
        document
          .querySelector('ap-playground')
          .shadowRoot.querySelector('ap-overview')
          ?.shadowRoot.querySelectorAll('canvas').length === 8,
    );
    const tops = await page.locator('ap-overview').evaluate((el) => {
      const canvas = el.shadowRoot.querySelector('canvas[data-layer="1"][data-head="2"]');
      const px = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
      // For each row, the brightest pixel (viridis' top is yellow: the largest red + green).
      return Array.from({ length: canvas.height }, (_, i) => {
        let best = 0;
        for (let j = 0; j < canvas.width; j++)
          best = Math.max(best, px[4 * (i * canvas.width + j)] + px[4 * (i * canvas.width + j) + 1]);
        return best;
      });
    });
    assert.equal(tops.length, 40);
    assert.match(
      await page.locator('ap-legend').evaluate((el) => el.shadowRoot.textContent.replace(/\s+/g, ' ')),
      /Colour \(softmax weights\):\s*each row its own scale: 0 .*the row’s largest weight/,
    );
    const yellow = channels(interpolateViridis(1))[0] + channels(interpolateViridis(1))[1];
    for (const best of tops)
      assert.ok(Math.abs(best - yellow) <= 4, `a thumbnail row tops out at ${best}, not the palette's top ${yellow}`);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
