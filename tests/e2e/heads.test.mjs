// The "What heads do" view (#heads, <ap-heads>) in real Chromium against the production build
// (dist-web/), on the shipped induction checkpoint: a shared link opens the detector grid, whose
// induction column finds the model's induction head (layer 1, head 0) and opens it in the
// Explore views; switching that head off changes the prediction; the logit lens and the
// attribution bars are drawn from the engine's numbers; every figure downloads as PNG, SVG and
// CSV (the CSV holds the numbers shown); a long ranking shows progress and stops on Cancel;
// patching draws both maps, exact and estimated, with progress, and stops on Cancel; a GPT-2
// loaded on the Explore page works here too.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { openPage } from '../support/browser.mjs';
import { ROOT, SHOTS, useSite } from '../support/site.mjs';

const site = useSite('checkpoints/index.json');
/** The induction checkpoint's probe without its last token: at the last position the model predicts '6'. */
const PROMPT = '8 0 9 3 2 1 7 6 8 0 9 3 2 1 7';

// The tiny GPT-2 of tests/reference/fixtures/pretrained, served in the hub's layout ({base}/{repo}/resolve/main/{file}).
const GPT2 = `${ROOT}tests/reference/fixtures/pretrained/gpt2-tiny/`;
const hub = { url: '', server: null };
before(async () => {
  hub.server = createServer((request, response) => {
    const headers = { 'access-control-allow-origin': '*', 'cross-origin-resource-policy': 'cross-origin' };
    const match = /^\/gpt2-tiny\/resolve\/main\/([\w.-]+)$/.exec(new URL(request.url, 'http://x').pathname);
    let body = null;
    try {
      if (match && match[1] !== 'expected.json') body = readFileSync(GPT2 + match[1]);
    } catch {
      body = null;
    }
    response.writeHead(body ? 200 : 404, { ...headers, 'content-type': 'application/octet-stream' });
    response.end(body ?? 'not found');
  });
  await new Promise((resolve) => hub.server.listen(0, '127.0.0.1', resolve));
  hub.url = `http://127.0.0.1:${hub.server.address().port}`;
});
after(() => new Promise((resolve) => hub.server.close(resolve)));

async function open(hash) {
  const { page, errors } = await openPage(site.browser, {
    viewport: { width: 1280, height: 1000 },
    acceptDownloads: true,
  });
  page.on('request', (request) => {
    const url = request.url();
    if (![site.url, hub.url, 'blob:', 'data:'].some((prefix) => url.startsWith(prefix)))
      errors.push(`external request: ${url}`);
  });
  await page.goto(site.url + hash);
  return { page, errors };
}

/** Downloads a figure in a format; returns the file's name and text. */
async function download(page, tool, format) {
  const [file] = await Promise.all([
    page.waitForEvent('download'),
    page.locator(`ap-heads [data-testid="exports-${tool}"] button[data-format="${format}"]`).click(),
  ]);
  return {
    name: file.suggestedFilename(),
    text: readFileSync(await file.path(), format === 'png' ? 'latin1' : 'utf8'),
  };
}

/**
 * An exported SVG drawn in the page: every title, legend and caption line ends inside the picture, clear of its
 * right edge (the margin, 16 px, and more), and no two panels' captions overlap.
 */
async function assertFits(page, svgText, what) {
  const problems = await page.evaluate((text) => {
    const holder = document.createElement('div');
    holder.innerHTML = text; // the view's own export
    document.body.append(holder);
    const svg = holder.querySelector('svg');
    const width = Number(svg.getAttribute('width')),
      left = svg.getBoundingClientRect().left;
    const found = [];
    for (const t of svg.querySelectorAll('.title text, .legend text, g.panel > text')) {
      const right = t.getBoundingClientRect().right - left;
      if (right > width - 24) found.push(`\u201c${t.textContent}\u201d ends at ${Math.round(right)} of ${width}`);
    }
    const captions = [...svg.querySelectorAll('g.panel')].map((g) =>
      [...g.querySelectorAll(':scope > text')].map((t) => [t.textContent, t.getBoundingClientRect()]),
    );
    for (let i = 0; i < captions.length; i++)
      for (let j = i + 1; j < captions.length; j++)
        for (const [a, ra] of captions[i])
          for (const [b, rb] of captions[j])
            if (ra.left < rb.right && rb.left < ra.right && ra.top < rb.bottom && rb.top < ra.bottom)
              found.push(`\u201c${a}\u201d overlaps \u201c${b}\u201d`);
    holder.remove();
    return found;
  }, svgText);
  assert.deepEqual(problems, [], what);
}

describe('the What heads do view', () => {
  test('a shared link opens the detectors; the induction column finds head 1.0, which opens in the Explore views', async () => {
    const { page, errors } = await open('#heads&model=induction&sort=induction');
    const rows = page.locator('ap-heads [data-testid="detector-table"] tbody tr');
    await rows.first().waitFor();
    assert.equal(await rows.count(), 4, '2 layers x 2 heads');
    assert.equal(await rows.first().getAttribute('data-head'), '1.0', 'sorted by the induction score, highest first');
    const score = Number(await rows.first().locator('td[data-kind="induction"]').textContent());
    assert.ok(Math.abs(score - 0.589) < 0.005, `induction score ${score} (docs/heads.md: 0.589)`);
    assert.match(await rows.first().locator('td.label').textContent(), /^induction/);
    // No empty band under the tabs: the idle status line sits beside them, and the panel follows the tabs' row.
    const gap = await page.evaluate(() => {
      const root = document.querySelector('ap-heads').shadowRoot;
      const tabs = root.querySelector('[role="tablist"]').getBoundingClientRect();
      const panel = root.querySelector('[role="tabpanel"]').getBoundingClientRect();
      return panel.top - tabs.bottom;
    });
    assert.ok(gap >= 0 && gap <= 20, `the panel starts ${gap} px under the tabs`);
    // The text the tools read is the model's example, and it went into the link.
    assert.equal(await page.locator('ap-heads #text').inputValue(), PROMPT);
    const linked = new URLSearchParams((await page.evaluate(() => location.hash)).replace(/^#heads&?/, ''));
    assert.deepEqual([linked.get('model'), linked.get('sort'), linked.get('text')], ['induction', 'induction', PROMPT]);
    // Three detector heatmaps (layer x head).
    assert.equal(await page.locator('ap-heads ap-heatmap[data-detector]').count(), 3);
    await page.screenshot({ path: `${SHOTS}/heads-detect.png`, fullPage: true });

    // Export: PNG, SVG and CSV download; the CSV holds the scores shown.
    const png = await download(page, 'detect', 'png');
    assert.equal(png.name, 'heads-detect-induction.png');
    assert.equal(png.text.slice(1, 4), 'PNG');
    const svg = await download(page, 'detect', 'svg');
    assert.match(svg.text, /<svg[^>]*>/);
    assert.match(svg.text, /induction score/);
    await assertFits(page, svg.text, 'the detectors\u2019 figure (2 heads: narrow panels)');
    const csv = await download(page, 'detect', 'csv');
    const lines = csv.text.trim().split('\n');
    assert.equal(
      lines[0],
      '"layer","head","previous_score","duplicate_score","induction_score","pattern_label","pattern_score"',
    );
    const head10 = lines.find((l) => l.startsWith('1,0,')).split(',');
    assert.equal(Number(head10[4]).toFixed(3), score.toFixed(3));

    // A head clicked is chosen (in the link too) and opens in the Explore views.
    await rows.first().click();
    await page.locator('ap-heads [data-testid="chosen-head"]').waitFor();
    assert.match(await page.evaluate(() => location.hash), /head=1\.0/);
    await page.locator('ap-heads [data-testid="open-head"]').click();
    await page.locator('ap-playground').waitFor();
    const hash = new URLSearchParams((await page.evaluate(() => location.hash)).slice(1));
    assert.deepEqual(
      [hash.get('model'), hash.get('view'), hash.get('layer'), hash.get('head'), hash.get('text')],
      ['induction', 'head', '1', '0', PROMPT],
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('on a phone: the chosen head reads as selected, and the detector table scrolls on its own', async () => {
    const { page, errors } = await open('#heads&model=induction&head=1.0');
    await page.setViewportSize({ width: 390, height: 844 });
    const chosen = page.locator('ap-heads [data-testid="detector-table"] tr[aria-selected="true"] td').first();
    await chosen.waitFor();
    // The tabs fill the width and wrap: the idle status line below them takes no band (it took 36 px), so the chosen
    // head's line follows the tabs as closely as on a wide screen.
    const band = () =>
      page.evaluate(() => {
        const root = document.querySelector('ap-heads').shadowRoot;
        const tabs = root.querySelector('[role="tablist"]').getBoundingClientRect();
        return {
          gap: root.querySelector('[data-testid="chosen-head"]').getBoundingClientRect().top - tabs.bottom,
          idle: !root.querySelector('[data-testid="progress"]'),
          tabRows: Math.round(tabs.height / root.querySelector('[role="tab"]').getBoundingClientRect().height),
        };
      });
    await page.waitForFunction(
      () => !document.querySelector('ap-heads').shadowRoot.querySelector('[data-testid="progress"]'),
    );
    const shown = await band();
    assert.ok(shown.tabRows >= 2, `the tabs wrap on a phone (${shown.tabRows} rows)`);
    assert.ok(shown.idle && shown.gap >= 0 && shown.gap <= 20, `the chosen head starts ${shown.gap} px under the tabs`);
    const looks = await page.evaluate(() => {
      const root = document.querySelector('ap-heads').shadowRoot;
      const cell = getComputedStyle(root.querySelector('tr[aria-selected="true"] td'));
      const figure = root.querySelector('[data-testid="figure-detect"]');
      const table = root.querySelector('[data-testid="detector-table"]');
      const scroller = table.parentElement;
      scroller.scrollLeft = scroller.scrollWidth;
      scroller.scrollIntoView({ block: 'center' }); // elementFromPoint sees only what is on the screen
      const last = table.querySelector('thead th:last-child').getBoundingClientRect();
      // Scrolled, the heads' column covers the start of the next: what shows just inside its edge, row by row, is the
      // column's own cell (the header's too, above the scrolled headers), on an opaque background.
      const covered = [...table.rows].map((row) => {
        const sticky = row.cells[0];
        const edge = sticky.getBoundingClientRect();
        const under = row.cells[1].getBoundingClientRect();
        const hit = root.elementFromPoint(edge.right - 2, (edge.top + edge.bottom) / 2);
        return {
          passesUnder: under.left < edge.right - 2,
          onTop: sticky.contains(hit),
          background: getComputedStyle(sticky).backgroundColor,
        };
      });
      return {
        colors: [cell.color, cell.backgroundColor],
        figureOverflows: figure.scrollWidth > figure.clientWidth,
        lastShown: last.right <= scroller.getBoundingClientRect().right + 1 && scroller.scrollLeft > 0,
        covered,
      };
    });
    const luminance = (rgb) => {
      const [r, g, b] = rgb
        .match(/[\d.]+/g)
        .slice(0, 3)
        .map((c) => {
          const v = Number(c) / 255;
          return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
        });
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const [text, back] = looks.colors.map(luminance);
    const contrast = (Math.max(text, back) + 0.05) / (Math.min(text, back) + 0.05);
    assert.ok(contrast >= 4.5, `the chosen row's text ${looks.colors.join(' on ')}: contrast ${contrast.toFixed(2)}`);
    assert.equal(looks.figureOverflows, false, 'the figure (its heading, notes and exports) fits the screen');
    assert.ok(looks.lastShown, 'the table scrolls sideways to its last column');
    assert.equal(looks.covered.length, 1 + 4, 'the header row and 2 layers x 2 heads');
    for (const [i, row] of looks.covered.entries()) {
      assert.ok(row.passesUnder, `row ${i}: scrolled, the next column passes under the heads' column`);
      assert.ok(row.onTop, `row ${i}: the heads' column stays on top of what passes under it`);
      assert.match(row.background, /^rgb\(/, `row ${i}: the heads' column is opaque (${row.background})`);
    }
    await page.screenshot({ path: `${SHOTS}/heads-phone.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('ablation: switching off head 1.0 changes the prediction; the ranking puts the circuit first', async () => {
    const { page, errors } = await open('#heads&model=induction&tool=ablate');
    const change = page.locator('ap-heads [data-testid="ablation-change"]');
    await change.waitFor();
    assert.match(await change.textContent(), /stays \u20186\u2019/);
    // The ranked "depends on" list: the induction head and the previous-token head it reads.
    const ranked = page.locator('ap-heads [data-testid="ranking"] li');
    await ranked.first().waitFor();
    assert.deepEqual((await ranked.evaluateAll((items) => items.slice(0, 2).map((li) => li.dataset.part))).sort(), [
      '0.1',
      '1.0',
    ]);
    await page.locator('ap-heads input[data-head="1.0"]').check();
    await page.locator('ap-heads [data-testid="new-top"]').waitFor();
    const before = Number(await change.getAttribute('data-before')),
      after = Number(await change.getAttribute('data-after'));
    assert.ok(before > 0.9 && after < before - 0.3, `p('6') ${before} -> ${after}`);
    assert.match(await page.evaluate(() => location.hash), /ablate=1\.0/);
    // The ranking's CSV holds every head and MLP.
    const csv = await download(page, 'rank', 'csv');
    assert.equal(csv.text.trim().split('\n').length, 1 + 4 + 2);
    await assertFits(page, (await download(page, 'rank', 'svg')).text, 'the ranking\u2019s figure');
    await page.screenshot({ path: `${SHOTS}/heads-ablate.png`, fullPage: true });

    // A shared link reopens the same state: the head switched off, the same change.
    const link = await page.evaluate(() => location.href);
    const again = await site.browser.newPage();
    await again.goto(link);
    await again.locator('ap-heads [data-testid="new-top"]').waitFor();
    assert.equal(await again.locator('ap-heads input[data-head="1.0"]').isChecked(), true);
    assert.equal(
      Number(await again.locator('ap-heads [data-testid="ablation-change"]').getAttribute('data-after')),
      after,
    );
    await again.close();

    // Mean ablation, and an MLP switched off too: the link says so, and the change is shown again.
    await page.locator('ap-heads #ablation').selectOption('mean');
    await page.locator('ap-heads input[data-mlp="1"]').check();
    await page.waitForFunction(() => /ablation=mean/.test(location.hash) && /mlps=1/.test(location.hash));
    await page.waitForFunction(() =>
      document
        .querySelector('ap-heads')
        .shadowRoot.querySelector('[data-testid="figure-rank"] .note')
        ?.textContent.includes('mean ablation'),
    );
    const meanAfter = Number(await change.getAttribute('data-after'));
    assert.ok(meanAfter < before, `mean ablation of head 1.0 and MLP 1: p('6') ${before} -> ${meanAfter}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the logit lens and the attribution bars', async () => {
    const { page, errors } = await open('#heads&model=induction&tool=lens');
    const lens = page.locator('ap-heads [data-testid="figure-lens"]');
    await lens.waitFor();
    // 2 layers x 15 positions of cells; after the last layer, the last position's top token is the prediction '6'.
    assert.equal(await lens.locator('g[data-row]').count(), 2 * 15);
    assert.equal(await lens.locator('g[data-row="1"][data-col="14"] text').textContent(), '6');
    assert.match(
      await lens.locator('[data-testid="lens-final"]').textContent(),
      /\u20186\u2019, layer by layer:\s+L0 0\.\d+, L1 0\.99/,
    );
    const csv = await download(page, 'lens', 'csv');
    const row = csv.text
      .trim()
      .split('\n')
      .find((l) => l.startsWith('1,14,"7",1,'));
    assert.match(row, /^1,14,"7",1,"6",0\.99/);

    await page.locator('ap-heads #tab-attribute').click();
    const bars = page.locator('ap-heads [data-testid="figure-attribute"] g[data-bar]');
    await bars.first().waitFor();
    assert.equal(await bars.count(), 1 + 2 * (2 + 1) + 1, 'embed, each layer\u2019s 2 heads and MLP, biases');
    const values = Object.fromEntries(
      await bars.evaluateAll((gs) => gs.map((g) => [g.dataset.bar, Number(g.dataset.value)])),
    );
    const best = Object.entries(values).sort((a, b) => b[1] - a[1])[0][0];
    assert.equal(best, 'L1H0');
    // Explain a difference of two tokens: the link keeps it.
    await page.locator('ap-heads #against').selectOption({ index: 1 });
    await page.waitForFunction(() => /against=\d+/.test(location.hash));
    await page.locator('ap-heads [data-testid="figure-attribute"] h3').waitFor();
    await page.waitForFunction(() =>
      document
        .querySelector('ap-heads')
        .shadowRoot.querySelector('[data-testid="figure-attribute"] .note')
        ?.textContent.includes(') - logit('),
    );
    await page.screenshot({ path: `${SHOTS}/heads-attribute.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a long ranking shows its progress and stops on Cancel', async () => {
    // A bigger model, handed over from the Train view after 2 steps: 4 layers of 8 heads, so the ranking switches off
    // 32 heads and 4 MLPs one by one, in steps the worker yields between.
    const { page, errors } = await open(
      '#train&task=induction&dModel=128&ffnDim=256&heads=8&layers=4&steps=2&evalEvery=1&stopAt=0',
    );
    await page.locator('ap-train button[data-action="start"]:not([disabled])').click();
    await page.locator('ap-train button[data-action="explore"]:not([disabled])').click();
    await page.waitForFunction(() => location.hash.startsWith('#model=trained'));
    await page.evaluate(() => {
      location.hash = '#heads&model=trained';
    });
    await page.locator('ap-heads [data-testid="detector-table"] tbody tr').first().waitFor();
    assert.equal(await page.locator('ap-heads [data-testid="detector-table"] tbody tr').count(), 32);
    // Cancel as soon as the ranking reports progress (the ablation before it is one forward pass).
    const seen = page.evaluate(
      () =>
        new Promise((resolve) => {
          const root = document.querySelector('ap-heads').shadowRoot;
          const observer = new MutationObserver(() => {
            const progress = root.querySelector('[data-testid="progress"]');
            if (progress && /switching off/.test(root.querySelector('.status').textContent)) {
              observer.disconnect();
              const shown = { value: progress.value, max: progress.max };
              root.querySelector('[data-testid="cancel"]').click();
              resolve(shown);
            }
          });
          observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
        }),
    );
    await page.locator('ap-heads #tab-ablate').click();
    const progress = await seen;
    assert.equal(progress.max, 32 + 4, 'one step per head and per MLP');
    assert.ok(progress.value < 32 + 4);
    await page.screenshot({ path: `${SHOTS}/heads-cancel.png`, fullPage: true });
    assert.equal(await page.locator('ap-heads [data-testid="error"]').textContent(), 'Cancelled.');
    assert.equal(await page.locator('ap-heads [data-testid="ranking"]').count(), 0);
    // The page answered throughout, and the next request runs.
    await page.locator('ap-heads input[data-head="3.7"]').check();
    await page.locator('ap-heads [data-testid="ranking"] li').first().waitFor();
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a pretrained GPT-2 loaded on the Explore page: its heads, its lens, and patching prompts of different lengths', async () => {
    const { page, errors } = await open('');
    await page.locator('ap-playground ap-heatmap').first().waitFor({ timeout: 20_000 });
    await page.locator('button[data-action="open-pretrained"]').click();
    await page.locator('#pretrained-base').fill(hub.url);
    await page.locator('#pretrained-repo').fill('gpt2-tiny');
    await page.locator('button[data-action="load"]').click();
    await page.locator('[data-testid="pretrained-dialog"]').waitFor({ state: 'hidden', timeout: 20_000 });
    // The header's link to the view: the loaded model is in the picker, and the same worker holds it.
    await page.locator('nav a[data-mode="heads"]').click();
    await page.locator('ap-heads #model option[value="pretrained:gpt2-tiny"]').waitFor({ state: 'attached' });
    await page.locator('ap-heads #model').selectOption('pretrained:gpt2-tiny');
    const rows = page.locator('ap-heads [data-testid="detector-table"] tbody tr');
    await page.waitForFunction(
      () =>
        document.querySelector('ap-heads').shadowRoot.querySelectorAll('[data-testid="detector-table"] tbody tr')
          .length === 8,
    );
    assert.equal(await rows.count(), 2 * 4);
    assert.equal(await page.locator('ap-heads #text').inputValue(), 'The cat sat on the mat.');
    await page.locator('ap-heads #tab-lens').click();
    const lens = page.locator('ap-heads [data-testid="figure-lens"]');
    await lens.waitFor();
    // "The cat sat on the mat." is 10 of its tokens (tests/e2e/pretrained.test.mjs): 2 layers x 10 cells.
    assert.equal(await lens.locator('g[data-row]').count(), 2 * 10);
    // Patching: the indirect-object pair; a name that tokenizes into another number of pieces is refused, and says so.
    await page.locator('ap-heads #tab-patch').click();
    assert.equal(
      await page.locator('ap-heads #clean').inputValue(),
      'When Mary and John went to the store, John gave a drink to',
    );
    await page.locator('ap-heads #corrupted').fill('When Mary and John went to the store, Bartholomew gave a drink to');
    const refused = page.locator('ap-heads [data-testid="error-corrupted"]');
    await refused.waitFor();
    assert.match(await refused.textContent(), /the clean one is \d+ tokens, the corrupted one \d+/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('patching identical prompts: the engine\u2019s refusal (a field with no box of its own) is shown', async () => {
    const same = PROMPT.replaceAll(' ', '+');
    const { page, errors } = await open(`#heads&model=induction&tool=patch&clean=${same}&corrupted=${same}`);
    const message = page.locator('ap-heads [data-testid="error"]');
    await message.waitFor({ timeout: 20_000 });
    assert.match(await message.textContent(), /same logit difference/);
    assert.equal(await page.locator('ap-heads [data-testid="figure-patch"]').count(), 0);
    await page.screenshot({ path: `${SHOTS}/heads-patch-same.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('patching: both maps, exact and attribution, with progress and their agreement; Cancel stops it', async () => {
    const { page, errors } = await open('#heads&model=induction&tool=patch');
    // Record every progress the view shows while patching runs.
    const progressSeen = page.evaluate(
      () =>
        new Promise((resolve) => {
          const seen = [];
          const observe = () => {
            const root = document.querySelector('ap-heads')?.shadowRoot;
            if (!root) return void setTimeout(observe, 10);
            const observer = new MutationObserver(() => {
              const progress = root.querySelector('[data-testid="progress"]');
              if (progress) seen.push(root.querySelector('.status').textContent.trim().split('\u2026')[0]);
              if (root.querySelector('[data-testid="figure-patch"]')) {
                observer.disconnect();
                resolve(seen);
              }
            });
            observer.observe(root, { subtree: true, childList: true, attributes: true, characterData: true });
          };
          observe();
        }),
    );
    const figure = page.locator('ap-heads [data-testid="figure-patch"]');
    await figure.waitFor({ timeout: 20_000 });
    const seen = await progressSeen;
    assert.ok(
      seen.some((s) => /exact patching of the residual stream/.test(s)),
      JSON.stringify(seen),
    );
    assert.ok(
      seen.some((s) => /attribution patching of each head/.test(s)),
      JSON.stringify(seen),
    );
    // Both maps, each exact and estimated: residual stream (2 layers x 15 positions) and heads (2 x 2).
    assert.equal(await figure.locator('[data-over="resid"] ap-heatmap').count(), 2);
    assert.equal(await figure.locator('[data-over="heads"] ap-heatmap').count(), 2);
    assert.deepEqual(
      await figure.locator('[data-over="resid"] ap-heatmap').evaluateAll((maps) => maps.map((m) => [m.rows, m.cols])),
      [
        [2, 15],
        [2, 15],
      ],
    );
    // One minus sign in the view: the operator is the numbers' hyphen-minus (the corrupted run's d is negative).
    assert.match(await figure.locator('.note').first().textContent(), /\) - logit\(.*run\u2019s\s+-\d/s);
    const agreement = figure.locator('[data-testid="agreement-heads"]');
    assert.match(await agreement.textContent(), /Agreement: correlation -?\d\.\d{3}/);
    // The CSV: the induction head recovers most of the difference when patched exactly (0.90 on this pair).
    const csv = await download(page, 'patch', 'csv');
    const lines = csv.text.trim().split('\n');
    assert.equal(lines.length, 1 + 2 * 15 + 2 * 2);
    const head10 = lines.find((l) => l.startsWith('"heads",1,"","",0,')).split(',');
    assert.ok(Number(head10[5]) > 0.85, `head 1.0 exact: ${head10[5]}`);
    const heatmaps = await download(page, 'patch', 'svg');
    assert.equal((heatmaps.text.match(/class="panel"/g) ?? []).length, 4);
    await page.screenshot({ path: `${SHOTS}/heads-patch.png`, fullPage: true });

    // A change of prompt runs again; Cancel stops it and says so, and the prompts stay in the link.
    const cancelled = page.evaluate(
      () =>
        new Promise((resolve) => {
          const root = document.querySelector('ap-heads').shadowRoot;
          const observer = new MutationObserver(() => {
            const cancel = root.querySelector('[data-testid="cancel"]');
            if (cancel) {
              observer.disconnect();
              cancel.click();
              resolve(true);
            }
          });
          observer.observe(root, { subtree: true, childList: true });
        }),
    );
    await page.locator('ap-heads #corrupted').fill('8 0 9 3 2 1 7 5 8 0 9 3 2 1 7');
    await cancelled;
    await page.locator('ap-heads [data-testid="error"]').waitFor();
    assert.equal(await page.locator('ap-heads [data-testid="error"]').textContent(), 'Cancelled.');
    assert.match(await page.evaluate(() => location.hash), /corrupted=8\+0\+9\+3\+2\+1\+7\+5/);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
