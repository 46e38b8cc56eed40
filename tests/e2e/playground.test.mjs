// The playground in real Chromium, against the production build (dist-web/, made
// by `vite build`). Screenshots of the main views go to test-output/screenshots/.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openPage } from '../support/browser.mjs';
import { SHOTS, useSite } from '../support/site.mjs';

const site = useSite();

async function open(hash = '', viewport = { width: 1280, height: 900 }) {
  // Nothing may come from anywhere but our own server (no CDN): any other request is an error.
  const { page, errors } = await openPage(site.browser, { viewport, acceptDownloads: true }, { onlyFrom: site.url });
  await page.goto(site.url + hash);
  await page
    .locator('ap-heatmap, ap-shape-flow, ap-overview, ap-line-view, table.changes, p.hint, [data-testid="blocked"]')
    .first()
    .waitFor();
  return { page, errors };
}

// Rows (query labels) and columns of a heatmap, read from its cells.
async function grid(page, selector = 'ap-heatmap[data-head="0"]') {
  return page.locator(selector).evaluate((el) => {
    const cells = [...el.shadowRoot.querySelectorAll('rect[data-row]')];
    const rows = 1 + Math.max(...cells.map((c) => Number(c.dataset.row)));
    const cols = 1 + Math.max(...cells.map((c) => Number(c.dataset.col)));
    const blocked = cells
      .filter((c) => c.dataset.blocked === '1')
      .map((c) => [Number(c.dataset.row), Number(c.dataset.col)]);
    const rowLabels = [...el.shadowRoot.querySelectorAll('table th[scope="row"]')].map((th) => th.textContent);
    return { rows, cols, blocked, rowLabels };
  });
}

async function typeText(page, text, field = '#setting-text') {
  await page.locator(field).fill(text);
}

describe('the playground', () => {
  test('typing updates one heatmap per head and the shape flow', async () => {
    const { page, errors } = await open();
    assert.equal(await page.locator('ap-heatmap').count(), 4);
    await typeText(page, 'the quick brown fox jumps');
    await page.waitForFunction(
      () =>
        document
          .querySelector('ap-playground')
          .shadowRoot.querySelector('ap-heatmap')
          .shadowRoot.querySelectorAll('table th[scope="row"]').length === 5,
    );
    assert.deepEqual((await grid(page)).rowLabels, ['the', 'quick', 'brown', 'fox', 'jumps']);
    // Four heads lay out as two rows of two, not 3 + 1.
    const tops = await page
      .locator('ap-heatmap')
      .evaluateAll((els) => els.map((e) => Math.round(e.getBoundingClientRect().top)));
    assert.equal(new Set(tops).size, 2, `rows at ${tops.join(', ')}`);
    assert.equal(tops[0], tops[1]);
    await page.screenshot({ path: `${SHOTS}/heads.png`, fullPage: true });

    await page.locator('#setting-heads').fill('2');
    await page.waitForFunction(
      () => document.querySelector('ap-playground').shadowRoot.querySelectorAll('ap-heatmap').length === 2,
    );
    assert.match(await page.locator('[data-testid="dk"]').textContent(), /64 \/ 2 = 32/);

    await page.locator('button[data-view="shapes"]').click();
    const flow = page.locator('ap-shape-flow[data-stack="encoder"]');
    await flow.waitFor();
    const text = (await flow.evaluate((el) => el.shadowRoot.textContent)).replace(/\s+/g, ' ');
    assert.match(text, /input \(B=1, S=5, E=64\)/);
    assert.match(text, /self_attn\.q_split \(B=1, Sq=5, H=2, d_k=32\)/);
    assert.match(text, /self_attn\.q_heads \(B=1, H=2, Sq=5, d_k=32\)/);
    assert.match(text, /self_attn\.weights \(B=1, H=2, Sq=5, Sk=5\)/);
    assert.match(text, /self_attn\.merged \(B=1, Sq=5, E=64\)/);
    await typeText(page, 'one two three');
    await page.waitForFunction(() =>
      /S=3, E=64/.test(
        document.querySelector('ap-playground').shadowRoot.querySelector('ap-shape-flow').shadowRoot.textContent,
      ),
    );
    await page.screenshot({ path: `${SHOTS}/shapes.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a batch pads the shorter sentence and its padded keys are blocked', async () => {
    const { page, errors } = await open('#text=the+cat+sat+on+the+mat%0Aa+dog&sequence=1');
    const g = await grid(page);
    assert.equal(g.rows, 6);
    assert.deepEqual(g.rowLabels, ['a', 'dog', '<pad>', '<pad>', '<pad>', '<pad>']);
    for (let i = 0; i < 6; i++)
      for (let j = 0; j < 6; j++)
        assert.equal(
          g.blocked.some(([r, c]) => r === i && c === j),
          j >= 2,
          `cell ${i},${j}`,
        );
    await page.locator('button[data-view="masks"]').click();
    const padding = await grid(page, 'ap-heatmap[data-mask="padding"]');
    assert.equal(padding.blocked.length, 6 * 4);
    // Every sentence's padding at once, and a picker that names the padded sentence.
    const batch = await grid(page, 'ap-heatmap[data-mask="batch-padding"]');
    assert.deepEqual([batch.rows, batch.cols], [2, 6]);
    assert.deepEqual(batch.blocked, [
      [1, 2],
      [1, 3],
      [1, 4],
      [1, 5],
    ]);
    const options = await page.locator('#setting-sequence option').allTextContents();
    assert.deepEqual(options, ['1: the cat sat on the mat', '2: a dog (+4 padding)']);
    await page.locator('#setting-sequence').selectOption('0');
    await page.waitForFunction(() => location.hash.includes('sequence') === false);
    await page.screenshot({ path: `${SHOTS}/masks-padding.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the stages differ: raw scores unmasked, then scaled paler on one colour scale, then masked', async () => {
    const { page, errors } = await open('#mode=decoder&text=one+two+three+four&view=head&stage=scores');
    const look = async () => ({
      legend: await page.locator('ap-legend').first().textContent(),
      blocked: (await grid(page)).blocked.length,
      fill: await page
        .locator('ap-heatmap')
        .first()
        .evaluate((el) => el.shadowRoot.querySelector('rect[data-row="3"][data-col="0"]').getAttribute('fill')),
    });
    const scores = await look();
    assert.equal(scores.blocked, 0, 'no mask is applied at the raw scores');
    await page.locator('#setting-stage').selectOption('scaled');
    await page.waitForFunction(() => location.hash.includes('stage=scaled'));
    const scaled = await look();
    assert.equal(scaled.blocked, 0);
    assert.equal(scaled.legend, scores.legend, 'one colour scale for scores, scaled and masked');
    assert.notEqual(scaled.fill, scores.fill, 'dividing by √d_k changes the colour');
    await page.locator('#setting-stage').selectOption('masked');
    await page.waitForFunction(() => location.hash.includes('stage=masked'));
    const masked = await look();
    assert.equal(masked.blocked, 6, 'the causal mask hatches the 6 future cells');
    assert.equal(masked.legend, scores.legend);
    assert.equal(masked.fill, scaled.fill, 'an allowed cell keeps its scaled value');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('decoder mode shows the causal triangle', async () => {
    const { page, errors } = await open('#mode=decoder&text=one+two+three+four');
    const g = await grid(page);
    assert.equal(g.rows, 4);
    for (let i = 0; i < 4; i++)
      for (let j = 0; j < 4; j++)
        assert.equal(
          g.blocked.some(([r, c]) => r === i && c === j),
          j > i,
          `cell ${i},${j}`,
        );
    await page.locator('button[data-view="masks"]').click();
    assert.equal((await grid(page, 'ap-heatmap[data-mask="causal"]')).blocked.length, 6);
    await page.screenshot({ path: `${SHOTS}/masks-causal.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('cross mode shows a Sq x Sk matrix with labelled axes', async () => {
    const { page, errors } = await open('#mode=cross&text=the+cat+sat&source=le+chat+est+assis+sur+le+tapis');
    const g = await grid(page);
    assert.equal(g.rows, 3);
    assert.equal(g.cols, 7);
    const labels = await page
      .locator('ap-heatmap[data-head="0"]')
      .evaluate((el) => el.shadowRoot.querySelector('svg').textContent);
    assert.match(labels, /query \(target\)/);
    assert.match(labels, /key \(source\)/);
    await page.screenshot({ path: `${SHOTS}/cross.png`, fullPage: true });
    // Unpaired lines are explained in place, not crashed on.
    await typeText(page, 'the cat sat\na dog');
    await page.locator('[data-setting="source"] .error').waitFor();
    assert.match(await page.locator('[data-setting="source"] .error').textContent(), /2 sentences and 1 source lines/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('hovering or moving to a cell explains it', async () => {
    const { page, errors } = await open('#text=the+cat+sat');
    await page.locator('ap-heatmap[data-head="1"] rect[data-row="2"][data-col="0"]').hover();
    const tip = page.locator('ap-heatmap[data-head="1"] .tip');
    await tip.waitFor();
    const text = await tip.textContent();
    assert.match(text, /query “sat” \(2\) → key “the” \(0\), head 1/);
    assert.match(text, /scaled +-?[\d.]+ \/ √16 = -?[\d.]+/);
    assert.match(text, /row sum 1\.000/);
    // Keyboard: focus the heatmap, arrows move the explained cell.
    await page.locator('ap-heatmap[data-head="0"] svg').focus();
    await page.keyboard.press('ArrowRight');
    await page.keyboard.press('ArrowRight');
    assert.match(await page.locator('ap-heatmap[data-head="0"] .tip').textContent(), /→ key “sat” \(2\)/);
    // Screen readers get the numbers as a table.
    assert.equal(await page.locator('ap-heatmap[data-head="0"] table tbody tr').count(), 3);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the URL hash restores the same view', async () => {
    const { page, errors } = await open();
    await typeText(page, 'shared links work');
    await page.locator('#setting-mode').selectOption('decoder');
    await page.locator('#setting-seed').fill('42');
    await page.locator('#setting-scale').uncheck();
    await page.locator('button[data-view="head"]').click();
    await page.locator('#setting-head').fill('2');
    await page.locator('#setting-stage').selectOption('scores');
    await page.waitForFunction(() => location.hash.includes('stage=scores'));
    const url = page.url();
    const before = await page.locator('ap-heatmap').evaluate((el) => el.shadowRoot.querySelector('table').textContent);
    const second = await open(url.slice(site.url.length));
    assert.equal(await second.page.locator('#setting-text').inputValue(), 'shared links work');
    assert.equal(await second.page.locator('#setting-mode').inputValue(), 'decoder');
    assert.equal(await second.page.locator('#setting-seed').inputValue(), '42');
    assert.equal(await second.page.locator('#setting-scale').isChecked(), false);
    assert.equal(await second.page.locator('button[aria-selected="true"]').getAttribute('data-view'), 'head');
    assert.equal(await second.page.locator('ap-heatmap').getAttribute('data-head'), '2');
    const after = await second.page
      .locator('ap-heatmap')
      .evaluate((el) => el.shadowRoot.querySelector('table').textContent);
    assert.equal(after, before);
    assert.deepEqual([...errors, ...second.errors], []);
    await page.close();
    await second.page.close();
  });

  test('an invalid shared link says why nothing shows, and fixing the setting shows the view', async () => {
    const { page, errors } = await open('#heads=3');
    const blocked = page.locator('[data-testid="blocked"]');
    await blocked.waitFor();
    assert.match(await blocked.textContent(), /heads \(3\) must divide d_model \(64\)/);
    assert.equal(await page.locator('text=Waiting for the first result').count(), 0);
    await page.locator('#setting-heads').fill('4');
    await page.locator('ap-heatmap').first().waitFor();
    assert.equal(await page.locator('ap-heatmap').count(), 4);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('script-like text stays inert text', async () => {
    const { page, errors } = await open();
    let dialogs = 0;
    page.on('dialog', async (d) => {
      dialogs++;
      await d.dismiss();
    });
    await typeText(page, '<img src=x onerror=alert(1)> <script>alert(2)</script>');
    await page.waitForFunction(() =>
      document
        .querySelector('ap-playground')
        .shadowRoot.querySelector('ap-heatmap')
        .shadowRoot.textContent.includes('onerror'),
    );
    await page.waitForTimeout(300);
    assert.equal(dialogs, 0);
    const injected = await page.evaluate(() => {
      const all = [];
      const walk = (root) =>
        root.querySelectorAll('*').forEach((el) => {
          all.push(el.tagName);
          if (el.shadowRoot) walk(el.shadowRoot);
        });
      walk(document);
      return all.filter((t) => t === 'IMG' || (t === 'SCRIPT' && false));
    });
    assert.deepEqual(injected, []);
    const labels = (await grid(page)).rowLabels;
    assert.ok(labels.includes('onerror') && labels.includes('<') && labels.includes('script'), labels.join(' '));
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('exports a valid PNG, SVG and trace JSON', async () => {
    const { page, errors } = await open('#text=the+cat+sat');
    const save = async (label) => {
      const [download] = await Promise.all([
        page.waitForEvent('download'),
        page.locator(`.exports button:text("${label}")`).click(),
      ]);
      return readFileSync(await download.path());
    };
    const png = await save('PNG');
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
    assert.ok(png.length > 1000);
    const svg = (await save('SVG')).toString('utf8');
    assert.match(svg, /^<\?xml/);
    assert.match(svg, /<svg[^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.equal((svg.match(/<rect[^>]*data-row/g) ?? []).length, 4 * 9); // 'All heads': every head's 3 x 3 heatmap
    const parsed = await page.evaluate((text) => {
      const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
      return doc.querySelector('parsererror') ? 'error' : doc.documentElement.tagName;
    }, svg);
    assert.equal(parsed, 'svg');
    const json = JSON.parse((await save('Trace JSON')).toString('utf8'));
    assert.deepEqual(json.tokens, [['the', 'cat', 'sat']]);
    const weights = json.stages.find((s) => s.name === 'encoder.self_attn.weights' && s.layer === 0);
    assert.deepEqual(weights.shape, [1, 4, 3, 3]);
    assert.equal(weights.data.length, 36);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('layers x heads, the line view and what changed', async () => {
    // Random weights: every word attends to every other, so attention moves every row.
    const { page, errors } = await open('#text=the+cat+sat+on+the+mat&view=overview&preset=random');
    assert.equal(await page.locator('ap-overview canvas').count(), 2 * 4);
    await page.screenshot({ path: `${SHOTS}/overview.png`, fullPage: true });
    await page.locator('ap-overview button[aria-label="layer 1, head 3: open"]').click();
    await page.waitForFunction(() => location.hash.includes('view=head'));
    assert.equal(await page.locator('ap-heatmap').getAttribute('data-head'), '3');
    assert.ok((await page.locator('ap-line-view line').count()) > 0);

    await page.locator('button[data-view="lines"]').click();
    assert.equal(await page.locator('ap-line-view').count(), 4);
    await page.screenshot({ path: `${SHOTS}/lines.png`, fullPage: true });

    await page.locator('button[data-view="changes"]').click();
    // The view compares the selected layer (1, from the thumbnail): layer 0 is where only the edited row's Q moves.
    await page.locator('#setting-layer').fill('0');
    await typeText(page, 'the dog sat on the mat');
    const rows = page.locator('table.changes tbody tr');
    await rows.first().waitFor();
    const changed = await rows.evaluateAll((trs) =>
      trs.map((tr) => [tr.dataset.linearChanged, tr.dataset.attentionChanged]),
    );
    assert.deepEqual(
      changed.map(([linear]) => linear),
      ['0', '1', '0', '0', '0', '0'],
    );
    assert.deepEqual(
      changed.map(([, attention]) => attention),
      ['1', '1', '1', '1', '1', '1'],
    );
    await page.screenshot({ path: `${SHOTS}/changes.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('invalid combinations are explained in place and the page keeps working', async () => {
    const { page, errors } = await open('#text=a+b+c');
    await page.locator('#setting-heads').fill('3');
    const message = page.locator('[data-setting="heads"] .error');
    await message.waitFor();
    // The engine's rule, declared once in C++ and shown at the setting it names.
    assert.match(await message.textContent(), /heads \(3\) must divide d_model \(64\)/);
    assert.equal(await page.locator('ap-heatmap').count(), 4); // the last good view stays
    await page.locator('#setting-dModel').fill('');
    assert.match(await page.locator('[data-setting="dModel"] .error').textContent(), /must be a whole number/);
    await page.locator('#setting-dModel').fill('64');
    await page.locator('#setting-heads').fill('2');
    await page.waitForFunction(
      () => document.querySelector('ap-playground').shadowRoot.querySelectorAll('ap-heatmap').length === 2,
    );
    assert.equal(await message.count(), 0);
    await page.locator('#setting-layers').fill('40');
    assert.match(await page.locator('[data-setting="layers"] .error').textContent(), /between 1 and 12/);
    await typeText(page, 'still blocked'); // a value that does not parse blocks every run until it is fixed
    await page.waitForTimeout(800);
    assert.match(await page.locator('[data-setting="layers"] .error').textContent(), /between 1 and 12/);
    assert.equal(await page.locator('.view').getAttribute('data-stale'), '1');
    await page.locator('#setting-layers').fill('2');
    await typeText(page, '   ');
    assert.match(await page.locator('[data-setting="text"] .error').textContent(), /Type a sentence/);
    await typeText(page, 'w '.repeat(200));
    await page.locator('.engine-error').waitFor();
    assert.match(await page.locator('.engine-error').textContent(), /more than 128 tokens/);
    await typeText(page, 'back to normal');
    await page.locator('.engine-error').waitFor({ state: 'detached' });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('works at phone width', async () => {
    const { page, errors } = await open('', { width: 390, height: 844 });
    await typeText(page, 'small screens work too');
    await page.waitForFunction(
      () =>
        document
          .querySelector('ap-playground')
          .shadowRoot.querySelector('ap-heatmap')
          .shadowRoot.querySelectorAll('table th[scope="row"]').length === 4,
    );
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `page is ${overflow}px wider than the phone`);
    await page.screenshot({ path: `${SHOTS}/phone.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
