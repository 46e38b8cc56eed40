// Issue 11, item 11: layout and accessibility. On a phone the view comes first (issue 31: a
// picture above the fold) and the settings after it, folded into a drawer; the block diagram's
// boxes (the view tabs) follow the WAI-ARIA tabs pattern; no menu is cut off;
// four pictures lay out 2 + 2; a tooltip stays inside its own heatmap's box; the Masks view
// has a legend; the developer status line shows on the playground page only (or when asked).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage } from '../support/browser.mjs';
import { SHOTS, useSite } from '../support/site.mjs';

const site = useSite();

async function open(path, viewport = { width: 1280, height: 900 }) {
  const { page, errors } = await openPage(site.browser, { viewport }, { onlyFrom: site.url });
  await page.goto(site.url + path);
  await page.locator('ap-heatmap').first().waitFor();
  return { page, errors };
}

const box = (locator) =>
  locator.evaluate((el) => {
    const r = el.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom };
  });
const overlaps = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

describe('layout and accessibility', () => {
  test('on a phone the heatmaps come first, the settings after them in a drawer that opens', async () => {
    const { page, errors } = await open('#text=the+cat+sat', { width: 390, height: 844 });
    const drawer = page.locator('[data-testid="settings-drawer"]');
    const firstMap = await box(page.locator('ap-heatmap').first());
    assert.ok(firstMap.top < 844, `the first heatmap starts at ${firstMap.top}px, on the first screen`);
    assert.ok((await box(drawer)).top > firstMap.top, 'the settings drawer comes after the first heatmap');
    assert.equal(await drawer.getAttribute('aria-expanded'), 'false');
    assert.match(await drawer.textContent(), /Model settings\s+d_model 64, 4 heads, 2 layers/);
    assert.equal(await page.locator('#setting-dModel').isVisible(), false);
    await drawer.click();
    assert.equal(await drawer.getAttribute('aria-expanded'), 'true');
    await page.locator('#setting-heads').fill('2');
    await page.waitForFunction(
      () => document.querySelector('ap-playground').shadowRoot.querySelectorAll('ap-heatmap').length === 2,
    );
    assert.ok((await box(page.locator('#setting-heads'))).top > (await box(page.locator('ap-heatmap').first())).top);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `page is ${overflow}px wider than the phone`);
    await page.screenshot({ path: `${SHOTS}/phone-drawer.png`, fullPage: true });
    // A problem inside the drawer still shows once it is closed: on its button, next to the view's stale note.
    await page.locator('#setting-heads').fill('5');
    await page.locator('#setting-heads-error').waitFor();
    await drawer.click();
    assert.equal(await page.locator('#setting-heads').isVisible(), false);
    assert.match(await page.locator('[data-testid="drawer-problem"]').textContent(), /a problem to fix: Heads/);
    assert.ok(await page.locator('[data-testid="drawer-problem"]').isVisible());
    await drawer.click();
    await page.locator('#setting-heads').fill('2');
    await page.locator('[data-testid="drawer-problem"]').waitFor({ state: 'detached' });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('on a phone, Head split\u2019s (S, E) matrices narrow their columns to fit, every head\u2019s band in view', async () => {
    const { page, errors } = await openPage(
      site.browser,
      { viewport: { width: 390, height: 844 } },
      { onlyFrom: site.url },
    );
    await page.goto(`${site.url}#view=split&text=the+cat+sat`);
    const fitted = () =>
      page.locator('ap-head-split').evaluate((el) =>
        [...el.shadowRoot.querySelectorAll('ap-matrix[fit]')].map((m) => {
          const svg = m.shadowRoot.querySelector('svg');
          return {
            box: m.clientWidth,
            scroll: m.scrollWidth,
            svg: svg ? Number(svg.getAttribute('width')) : 0,
            bands: [...(svg?.querySelectorAll('text') ?? [])]
              .filter((t) => /^head \d+$/.test(t.textContent))
              .map((t) => t.textContent),
          };
        }),
      );
    await page.waitForFunction(
      () =>
        document
          .querySelector('ap-playground')
          .shadowRoot.querySelector('ap-head-split')
          ?.shadowRoot.querySelectorAll('ap-matrix[fit]').length === 2,
      null,
      { timeout: 20_000 },
    );
    let matrices = [];
    for (let i = 0; i < 40; i++) {
      // the box is measured after the first paint
      matrices = await fitted();
      if (matrices.every((m) => m.svg > 0 && m.svg <= m.box)) break;
      await page.waitForTimeout(50);
    }
    assert.equal(matrices.length, 2, 'the split and the merge');
    for (const m of matrices) {
      assert.ok(
        m.box < 390 && m.svg <= m.box && m.scroll <= m.box + 1,
        `a matrix ${m.svg} px wide in a ${m.box} px box (scrolls to ${m.scroll})`,
      );
      assert.deepEqual(m.bands, ['head 0', 'head 1', 'head 2', 'head 3']);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('on a phone, a table scrolled sideways or down keeps its headers in sight', async () => {
    const { page, errors } = await openPage(
      site.browser,
      { viewport: { width: 390, height: 844 } },
      { onlyFrom: site.url },
    );
    await page.goto(`${site.url}#view=steps`); // Step by step draws small matrices, no heatmap
    const walk = page.locator('ap-head-walk');
    await walk.locator('table[data-row-of="scores"]').waitFor();
    // Scrolled to its right end, and down (a tall table scrolls in its own box): each header cell still within the box.
    const seen = await walk.evaluate((el) => {
      const table = el.shadowRoot.querySelector('table[data-row-of="scores"]');
      const scroller = table.parentElement;
      scroller.style.maxHeight = '3rem'; // this table is 3 rows: make it taller than its box, to scroll it down too
      scroller.scrollLeft = scroller.scrollWidth;
      scroller.scrollTop = scroller.scrollHeight;
      const box = scroller.getBoundingClientRect();
      const inside = (cell) => {
        const r = cell.getBoundingClientRect();
        return r.left >= box.left - 1 && r.right <= box.right + 1 && r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
      };
      const rowHeader = table.querySelector('tbody th[scope="row"]');
      const lastColumn = [...table.querySelectorAll('thead th')].at(-1);
      return {
        scrolled: [scroller.scrollLeft, scroller.scrollTop],
        rowHeader: [rowHeader.textContent, inside(rowHeader)],
        columnHeader: [lastColumn.textContent, inside(lastColumn)],
      };
    });
    assert.ok(seen.scrolled[0] > 50 && seen.scrolled[1] > 0, `scrolled by ${seen.scrolled}`);
    assert.deepEqual(seen.rowHeader, ['engine', true]);
    assert.deepEqual(seen.columnHeader, ['check', true]);
    await walk.evaluate((el) =>
      el.shadowRoot.querySelector('table[data-row-of="scores"]').parentElement.scrollIntoView({ block: 'center' }),
    );
    await page.screenshot({ path: `${SHOTS}/phone-sticky-table.png` });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the block diagram\u2019s boxes follow the WAI-ARIA tabs pattern', async () => {
    const { page, errors } = await open('#text=the+cat+sat');
    const tabs = page.locator('[role="tablist"] [role="tab"]');
    // Each view is marked on exactly one tab (its box, or its tab beside the diagram): tests/e2e/diagram.test.mjs
    // walks them all.
    const marked = await tabs.evaluateAll((all) => all.filter((t) => t.dataset.view).map((t) => t.dataset.view));
    assert.deepEqual(marked.sort(), [
      'changes',
      'head',
      'heads',
      'lines',
      'masks',
      'overview',
      'positions',
      'rows',
      'shapes',
      'split',
      'steps',
      'values',
    ]);
    const look = () =>
      page.evaluate(() => {
        const root = document.querySelector('ap-playground').shadowRoot;
        const all = [...root.querySelectorAll('[role="tab"]')];
        const panel = root.querySelector('[role="tabpanel"]');
        return {
          selected: all.filter((t) => t.getAttribute('aria-selected') === 'true').map((t) => t.dataset.step),
          inTabOrder: all.filter((t) => t.tabIndex === 0).map((t) => t.dataset.step),
          focused: root.activeElement?.dataset.step ?? null,
          controls: [...new Set(all.map((t) => t.getAttribute('aria-controls')))],
          panel: panel && {
            id: panel.id,
            labelledBy: panel.getAttribute('aria-labelledby'),
            view: panel.querySelector('.view')?.dataset.view,
          },
          tabId: all.find((t) => t.getAttribute('aria-selected') === 'true').id,
          order: all.map((t) => t.dataset.step),
        };
      });
    let state = await look();
    assert.deepEqual(state.selected, ['weights']);
    assert.deepEqual(state.inTabOrder, ['weights'], 'roving tabindex: only the selected tab is in the Tab order');
    assert.deepEqual(state.controls, [state.panel.id]);
    assert.equal(state.panel.labelledBy, state.tabId);
    const order = state.order;
    await page.locator('ap-playground [role="tab"][aria-selected="true"]').focus();
    const press = async (key, step, view) => {
      await page.keyboard.press(key);
      await page.waitForFunction(
        (v) => document.querySelector('ap-playground').shadowRoot.querySelector('.view')?.dataset.view === v,
        view,
      );
      state = await look();
      assert.deepEqual(
        [state.selected, state.inTabOrder, state.focused, state.panel.view],
        [[step], [step], step, view],
        `${key} -> ${step}`,
      );
      assert.equal(state.panel.labelledBy, state.tabId);
    };
    const after = (step) => order[order.indexOf(step) + 1];
    await press('ArrowRight', after('weights'), 'values'); // softmax -> · V, shown in the Values view
    await press('ArrowLeft', 'weights', 'heads');
    await press('End', order.at(-1), 'changes');
    await press('ArrowRight', order[0], 'values'); // wraps to x, the layer's input
    await press('ArrowLeft', order.at(-1), 'changes');
    await press('Home', order[0], 'values');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('no menu of the settings is cut off, in any of its choices', async () => {
    for (const width of [1280, 1000]) {
      const { page, errors } = await open('#text=the+cat+sat', { width, height: 900 });
      await page.waitForFunction(
        () => document.querySelector('ap-playground').shadowRoot.querySelectorAll('#setting-model option').length > 1,
      );
      const cut = await page.evaluate(() => {
        const root = document.querySelector('ap-playground').shadowRoot;
        const selects = [
          root.querySelector('#setting-model'),
          ...root.querySelector('ap-controls').shadowRoot.querySelectorAll('select'),
        ];
        const measure = document.createElement('canvas').getContext('2d');
        const problems = [];
        for (const select of selects) {
          measure.font = getComputedStyle(select).font;
          for (const option of select.options) {
            const needed = measure.measureText(option.text).width + 24; // the text, its padding and the arrow
            if (needed > select.clientWidth)
              problems.push(`${select.name}: "${option.text}" needs ${Math.round(needed)}px of ${select.clientWidth}`);
          }
        }
        return problems;
      });
      assert.deepEqual(cut, [], `at ${width}px`);
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  test('four pictures lay out 2 + 2, not 3 + 1, and the Masks view has a legend for allowed and blocked', async () => {
    for (const view of ['heads', 'masks']) {
      const { page, errors } = await open(`#mode=decoder&text=the+cat+sat+on+the+mat&view=${view}`, {
        width: 1400,
        height: 900,
      });
      const tops = await page
        .locator('ap-heatmap')
        .evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().top)));
      assert.equal(tops.length, 4);
      assert.deepEqual(
        [tops[0] === tops[1], tops[2] === tops[3], tops[1] < tops[2]],
        [true, true, true],
        `${view}: rows at ${tops.join(', ')}`,
      );
      if (view === 'masks') {
        const legend = page.locator('ap-legend[masks]');
        assert.match(
          await legend.locator('[data-key="allowed"]').textContent(),
          /allowed: the query may attend to this key/,
        );
        assert.match(await legend.locator('[data-key="blocked"]').textContent(), /blocked: the score becomes -∞/);
        await page.screenshot({ path: `${SHOTS}/masks-legend.png`, fullPage: true });
      }
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  test('a tooltip stays inside its own heatmap: never over the next one, never cut off', async () => {
    for (const viewport of [
      { width: 1280, height: 900 },
      { width: 390, height: 844 },
    ]) {
      const { page, errors } = await open('#text=the+cat+sat+on+the+mat', viewport);
      for (const [row, col] of [
        [5, 5],
        [5, 0],
        [0, 5],
        [0, 0],
        [3, 2],
      ]) {
        const map = page.locator('ap-heatmap[data-head="0"]');
        const cell = map.locator(`rect[data-row="${row}"][data-col="${col}"]`);
        await cell.scrollIntoViewIfNeeded();
        await cell.hover();
        const tip = map.locator('.tip');
        await tip.waitFor();
        await page.waitForFunction(
          () =>
            document
              .querySelector('ap-playground')
              .shadowRoot.querySelector('ap-heatmap[data-head="0"]')
              .shadowRoot.querySelector('.tip')?.style.visibility === 'visible',
        );
        const tipBox = await box(tip);
        const plot = await map.evaluate((el) => {
          const p = el.shadowRoot.querySelector('.plot');
          const r = p.getBoundingClientRect();
          return {
            left: r.left,
            top: r.top,
            right: r.left + p.clientWidth,
            bottom: r.top + p.clientHeight,
            scrolls: p.scrollHeight > p.clientHeight,
          };
        });
        const where = `${viewport.width}px, cell ${row},${col}: tip ${JSON.stringify(tipBox)} plot ${JSON.stringify(plot)}`;
        assert.ok(
          tipBox.left >= plot.left - 0.5 &&
            tipBox.right <= plot.right + 0.5 &&
            tipBox.top >= plot.top - 0.5 &&
            tipBox.bottom <= plot.bottom + 0.5,
          where,
        );
        assert.equal(plot.scrolls, false, `the tip makes the plot scroll (${where})`);
        for (const other of await page.locator('ap-heatmap:not([data-head="0"])').all())
          assert.ok(!overlaps(tipBox, await box(other)), where);
      }
      assert.deepEqual(errors, []);
      await page.close();
    }
  });

  test("the developer status line is the playground page's: not in an embed unless asked for", async () => {
    const status = async (path) => {
      const { page, errors } = await open(path);
      const count = await page.locator('ap-playground .status[data-heap-bytes]').count();
      assert.deepEqual(errors, []);
      await page.close();
      return count;
    };
    assert.equal(await status('#text=a+b'), 1);
    assert.equal(await status('embed.html?text=a+b&controls=all'), 0);
    assert.equal(await status('embed.html?text=a+b&controls=all,status'), 1);
  });
});
