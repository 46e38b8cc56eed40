// Drawings fit the room they have (issue 31, item 1), in Chromium against the production build:
// at 1400 x 1000 no heatmap, matrix or line view is clipped — its scroll box is no wider inside
// than out (scrollWidth <= clientWidth + 1) and every key label is inside the box's visible
// part — in the Train view (the shipped induction checkpoint), every section of the tutorial
// (training sections after their first heads are drawn), the Values view and a pretrained
// GPT-2 and BERT (the tiny fixtures, served in the hub's layout). At 390 x 844 a heatmap
// scrolls only at the smallest cell size. And the predictions: a control character is shown
// as an escape, and every probability bar starts at the same x, however long its token.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import { openPage } from '../support/browser.mjs';
import { ROOT, SHOTS, useSite } from '../support/site.mjs';

const FIXTURES = `${ROOT}tests/reference/fixtures/pretrained/`;
/** MIN_CELL of web/src/ui/heatmap-layout.ts: the smallest cell a heatmap with numbers draws on screen. */
const MIN_CELL = 18;
/** MIN_BARE_CELL of web/src/ui/heatmap-layout.ts: the smallest cell of a heatmap without numbers. */
const MIN_BARE_CELL = 14;
/** A GPT-2 piece the tiny model ranks first after the example ("Ġcomp"), renamed to a long one. */
const LONG_PIECE = 'Ġcomprehensibilities';

const site = useSite();

// The hub: /{repo}/resolve/main/{file} from the fixtures. gpt2-longpiece is gpt2-tiny with LONG_PIECE for
// "Ġcomp" (and without the merge that made it, so the vocabulary stays consistent).
const hub = { url: '', server: null };
function longPiece(file, body) {
  const text = body.toString('utf8');
  if (file === 'vocab.json') return Buffer.from(text.replace('"Ġcomp"', JSON.stringify(LONG_PIECE)));
  if (file === 'merges.txt') return Buffer.from(text.replace('\nĠcom p\n', '\n'));
  if (file === 'tokenizer.json') {
    const tokenizer = JSON.parse(text);
    const vocab = tokenizer.model.vocab;
    vocab[LONG_PIECE] = vocab['Ġcomp'];
    delete vocab['Ġcomp'];
    tokenizer.model.merges = tokenizer.model.merges.filter((m) => (Array.isArray(m) ? m.join(' ') : m) !== 'Ġcom p');
    return Buffer.from(JSON.stringify(tokenizer));
  }
  return body;
}
before(async () => {
  hub.server = createServer((request, response) => {
    const headers = { 'access-control-allow-origin': '*', 'cross-origin-resource-policy': 'cross-origin' };
    const match = /^\/([\w.-]+)\/resolve\/main\/([\w.-]+)$/.exec(new URL(request.url, 'http://x').pathname);
    const [repo, file] = match ? [match[1], match[2]] : [];
    const dir = repo === 'gpt2-longpiece' ? 'gpt2-tiny' : repo;
    let body = null;
    if (match && readdirSync(FIXTURES).includes(dir) && readdirSync(`${FIXTURES}${dir}`).includes(file))
      body = readFileSync(`${FIXTURES}${dir}/${file}`);
    if (!body || file === 'expected.json') {
      response.writeHead(404, headers);
      response.end('not found');
      return;
    }
    if (repo === 'gpt2-longpiece') body = longPiece(file, body);
    response.writeHead(200, { ...headers, 'content-type': 'application/octet-stream', 'content-length': body.length });
    response.end(body);
  });
  await new Promise((resolve) => hub.server.listen(0, '127.0.0.1', resolve));
  hub.url = `http://127.0.0.1:${hub.server.address().port}`;
});
after(() => new Promise((resolve) => hub.server.close(resolve)));

/**
 * Every drawing under the elements matching `scope` (through shadow roots), measured in the page: its scroll box's
 * widths, its cell size (heatmaps), and each label outside the box's visible part.
 */
const measure = (page, scope = 'body') =>
  page.evaluate((selector) => {
    const found = [];
    const walk = (root) => {
      for (const el of root.querySelectorAll('*')) {
        if (/^AP-(HEATMAP|MATRIX|LINE-VIEW)$/.test(el.tagName)) found.push(el);
        if (el.shadowRoot) walk(el.shadowRoot);
      }
    };
    for (const el of document.querySelectorAll(selector)) {
      if (/^AP-(HEATMAP|MATRIX|LINE-VIEW)$/.test(el.tagName)) found.push(el);
      walk(el.shadowRoot ?? el);
    }
    return found
      .filter((el) => el.getClientRects().length > 0) // drawn (not in a closed fold)
      .map((el) => {
        const root = el.shadowRoot;
        const box = root.querySelector('.plot') ?? root.querySelector('.scroll') ?? el;
        const r = box.getBoundingClientRect();
        const visible = { left: r.left + box.clientLeft, right: r.left + box.clientLeft + box.clientWidth };
        const labels =
          el.tagName === 'AP-HEATMAP'
            ? root.querySelectorAll('text[data-col-label], text[data-row-label], text[data-axis]')
            : root.querySelectorAll('svg text');
        const outside = [...labels]
          .filter((t) => {
            const b = t.getBoundingClientRect();
            return b.left < visible.left - 1 || b.right > visible.right + 1;
          })
          .map((t) => t.textContent);
        return {
          what: `${el.tagName.toLowerCase()} ${el.getAttribute('caption') ?? el.getAttribute('label') ?? ''}`.trim(),
          scrollWidth: box.scrollWidth,
          clientWidth: box.clientWidth,
          scrollHeight: box.scrollHeight,
          clientHeight: box.clientHeight,
          cell: Number(root.querySelector('svg[data-cell]')?.dataset.cell ?? 0),
          column: Number(root.querySelector('svg[data-column]')?.dataset.column ?? 0),
          numbers: !!el.showNumbers,
          labels: labels.length,
          // The key labels' left edges, in drawing order (a heatmap labels every n-th key below MIN_CELL).
          keyLefts: [...root.querySelectorAll('text[data-col-label]')].map((t) => t.getBoundingClientRect().left),
          outside,
          left: Math.round(el.getBoundingClientRect().left),
        };
      });
  }, scope);

function assertFits(drawings, where) {
  assert.ok(drawings.length > 0, `${where}: no drawings found`);
  for (const d of drawings) {
    assert.ok(d.scrollWidth <= d.clientWidth + 1, `${where}: ${d.what} scrolls (${d.scrollWidth} > ${d.clientWidth})`);
    assert.ok(d.labels > 0, `${where}: ${d.what} has no labels`);
    // A heatmap with cells above the smallest is whole in its box, down to its last row too.
    if (d.cell > (d.numbers ? MIN_CELL : MIN_BARE_CELL))
      assert.ok(d.scrollHeight <= d.clientHeight + 1, `${where}: ${d.what} scrolls down at ${d.cell} px cells`);
    assert.deepEqual(d.outside, [], `${where}: ${d.what}: labels outside the visible box`);
  }
}

const wide = { viewport: { width: 1400, height: 1000 } };
const phone = { viewport: { width: 390, height: 844 } };

describe('drawings fit the room they have', () => {
  test('the Train view at 1400 px: the induction checkpoint\u2019s heads, every key column in view, two heads a row', async () => {
    const { page, errors } = await openPage(site.browser, wide, { onlyFrom: site.url });
    await page.goto(`${site.url}#train`);
    await page.locator('ap-train [data-checkpoint="induction"]').click();
    await page.waitForFunction(
      () =>
        document.querySelector('ap-train').shadowRoot.querySelector('[data-checkpoint="induction"]')?.ariaPressed ===
          'true' && document.querySelector('ap-train').shadowRoot.querySelectorAll('ap-heatmap').length > 0,
      null,
      { timeout: 30_000 },
    );
    await page.locator('ap-train button[data-action="all-heads"]').click(); // every head, not only the folded view's
    await page.waitForTimeout(300); // the heatmaps measure their boxes (ResizeObserver) and draw again
    const drawings = await measure(page, 'ap-train');
    assertFits(drawings, 'Train view');
    const heatmaps = drawings.filter((d) => d.what.startsWith('ap-heatmap'));
    assert.ok(heatmaps.length >= 4, `${heatmaps.length} heads`);
    for (const d of heatmaps) assert.ok(d.cell >= 22, `${d.what}: cells of ${d.cell} px`);
    // The room beside a head is used: at least two heads share a row.
    assert.ok(new Set(heatmaps.map((d) => d.left)).size >= 2, 'one head per row with room for two');
    await page.locator('ap-train ap-heatmap').first().scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/fit-train-1400.png` });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the Values view at 1400 px: Q per head, every feature column in view', async () => {
    const { page, errors } = await openPage(site.browser, wide, { onlyFrom: site.url });
    // d_k = 16 features per head, 4 heads: "Q per head 12 of 16" before the fix.
    await page.goto(`${site.url}#view=values&dModel=64&heads=4&tensor=self_attn.q_heads`);
    await page.locator('ap-tensor-view ap-heatmap').first().waitFor({ timeout: 20_000 });
    await page.waitForTimeout(300);
    const drawings = await measure(page, 'ap-playground');
    assertFits(drawings, 'Values view');
    assert.equal(drawings.filter((d) => d.what.includes('q_heads')).length, 4);
    assert.ok(drawings.every((d) => d.labels >= 16 + 6));
    await page.screenshot({ path: `${SHOTS}/fit-values-1400.png` });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the Values view at 1400 px: every tensor of a d_model 64 layer, all 64 feature columns in view', async () => {
    const { page, errors } = await openPage(site.browser, wide, { onlyFrom: site.url });
    await page.goto(`${site.url}#view=values&dModel=64&heads=4&tensor=input`);
    const view = page.locator('ap-tensor-view');
    await view.locator('ap-heatmap').first().waitFor({ timeout: 20_000 });
    const tensors = await view
      .locator('.picker button[data-tensor]')
      .evaluateAll((b) => b.map((x) => x.dataset.tensor));
    // x, Q K V per head, the context, merge·W_o, +x, norm, the FFN, +x, norm (names from flow-model.ts).
    assert.ok(tensors.length >= 8, tensors.join(', '));
    let wide64 = 0;
    for (const tensor of tensors) {
      await view.locator(`.picker button[data-tensor="${tensor}"]`).click();
      await page.waitForFunction((t) => {
        const el = document.querySelector('ap-playground').shadowRoot.querySelector('ap-tensor-view');
        return el?.shadowRoot.querySelector(`button[data-tensor="${t}"]`)?.ariaPressed === 'true';
      }, tensor);
      await page.waitForTimeout(300); // the heatmaps measure their boxes (ResizeObserver) and draw again
      const drawings = (await measure(page, 'ap-playground')).filter((d) => d.what.startsWith('ap-heatmap'));
      assertFits(drawings, `Values view, ${tensor}`);
      for (const d of drawings) {
        // Labelled keys never collide: at least MIN_CELL apart (every n-th column labelled below it).
        for (let k = 1; k < d.keyLefts.length; k++)
          assert.ok(
            d.keyLefts[k] - d.keyLefts[k - 1] >= MIN_CELL - 0.5,
            `${tensor}: key labels ${k - 1}, ${k} collide`,
          );
        if (d.keyLefts.length >= 32) wide64++;
      }
      if (tensor === 'input') await page.screenshot({ path: `${SHOTS}/fit-values-x-1400.png` });
    }
    // x, merge·W_o, the residuals, the norms and the FFN's output are 64 features wide (the walk-through's clipped ones).
    assert.ok(wide64 >= 5, `${wide64} tensors 64 features wide`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  for (const [name, viewport] of [
    ['1400', wide],
    ['390', phone],
  ])
    test(`the tutorial's tables at ${name} px: #linear's repeated words, #heads' token tables and #context's FFN columns in view`, async () => {
      const { page, errors } = await openPage(site.browser, viewport, { onlyFrom: site.url });
      await page.goto(`${site.url}tutorial.html`);
      // #linear: the repeated word's row differences, the attention output's column last (the number the text explains).
      await page.locator('section#linear attention-playground').scrollIntoViewIfNeeded();
      const pairs = page.locator('section#linear table[data-testid="row-pairs"]');
      await pairs.locator('td[data-kind="output"]').first().waitFor({ timeout: 30_000 });
      const linear = await pairs.evaluate((t) => {
        const box = t.closest('.scroll');
        const r = box.getBoundingClientRect();
        const output = t.querySelector('td[data-kind="output"]').getBoundingClientRect();
        return { scrollWidth: box.scrollWidth, clientWidth: box.clientWidth, right: output.right, boxRight: r.right };
      });
      assert.ok(
        linear.scrollWidth <= linear.clientWidth + 1,
        `#linear table scrolls (${linear.scrollWidth} > ${linear.clientWidth})`,
      );
      assert.ok(linear.right <= linear.boxRight + 1, 'the attention output column is out of view');
      const heads = page.locator('section#heads');
      await heads.scrollIntoViewIfNeeded();
      await heads.locator('table[data-token-table="merge"] td[data-kind="head"]').first().waitFor({ timeout: 30_000 });
      const tables = await heads.locator('table[data-token-table]').evaluateAll((all) =>
        all.map((t) => {
          const box = t.closest('.scroll');
          return {
            scrollWidth: box.scrollWidth,
            clientWidth: box.clientWidth,
            numbers: t.querySelectorAll('td[data-kind]').length,
            heads: t.querySelectorAll('th[scope="rowgroup"]').length,
          };
        }),
      );
      assert.equal(tables.length, 2);
      for (const t of tables) {
        assert.ok(
          t.scrollWidth <= t.clientWidth + 1,
          `#heads token table scrolls (${t.scrollWidth} > ${t.clientWidth})`,
        );
        assert.equal(t.heads, 4);
        assert.equal(t.numbers, 4 * 3 * 2);
      }
      await heads.locator('table[data-token-table="split"]').scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SHOTS}/fit-tutorial-heads-${name}.png` });

      const context = page.locator('section#context');
      await context.scrollIntoViewIfNeeded();
      const table = context.locator('table.changes');
      await table.locator('tbody tr').first().waitFor({ timeout: 30_000 });
      const ffn = await table.evaluate((t) => {
        const box = t.parentElement;
        const r = box.getBoundingClientRect();
        const cells = [...t.querySelectorAll('td[data-label^="FFN"]')];
        return {
          scrollWidth: box.scrollWidth,
          clientWidth: box.clientWidth,
          cells: cells.length,
          rows: t.querySelectorAll('tbody tr').length,
          // Each FFN cell's bar and number inside the box's visible part (not scrolled out at the right).
          outside: cells
            .flatMap((td) => [...td.querySelectorAll('.bar, .num')])
            .filter((e) => {
              const b = e.getBoundingClientRect();
              return b.left < r.left - 1 || b.right > r.left + box.clientWidth + 1;
            }).length,
          labels: cells.map((td) => getComputedStyle(td, '::before').content),
        };
      });
      assert.ok(ffn.rows >= 6, `${ffn.rows} rows`);
      assert.equal(ffn.cells, 2 * ffn.rows, 'an FFN input and an FFN output cell a row');
      assert.ok(
        ffn.scrollWidth <= ffn.clientWidth + 1,
        `#context table scrolls (${ffn.scrollWidth} > ${ffn.clientWidth})`,
      );
      assert.equal(ffn.outside, 0, 'FFN bars or numbers out of view');
      // Stacked on a phone, each cell names its column; in the wide table the header does.
      if (viewport === phone)
        assert.ok(
          ffn.labels.every((c) => /FFN/.test(c)),
          ffn.labels.join(' | '),
        );
      await table.scrollIntoViewIfNeeded();
      await page.screenshot({ path: `${SHOTS}/fit-tutorial-context-${name}.png` });
      assert.deepEqual(errors, []);
      await page.close();
    });

  test('every section of the tutorial at 1400 px, the training ones once their heads are drawn', async () => {
    const { page, errors } = await openPage(site.browser, wide, { onlyFrom: site.url });
    await page.goto(`${site.url}tutorial.html`);
    const sections = await page.locator('main section[id], body section[id]').evaluateAll((s) => s.map((x) => x.id));
    assert.ok(sections.length >= 10, `${sections.length} sections`);
    let measured = 0;
    const drawn = [];
    for (const id of sections) {
      const section = page.locator(`section#${id}`);
      await section.scrollIntoViewIfNeeded();
      const start = section.locator('ap-train button[data-action="start"]:not([disabled])');
      if (
        (await section.locator('ap-train').count()) > 0 &&
        (await section.locator('ap-train ap-heatmap').count()) === 0
      ) {
        // A training section draws its heads once the first held-out probe is in: start, wait for them, pause.
        await start.first().click();
        await section.locator('ap-train ap-heatmap').first().waitFor({ timeout: 120_000 });
        const pause = section.locator('ap-train button[data-action="pause"]');
        if (await pause.count()) await pause.first().click();
      } else if ((await section.locator('attention-playground').count()) > 0) {
        // Each element starts once (nearly) on screen: a section taller than the window shows them one by one.
        for (const element of await section.locator('attention-playground').all())
          await element.scrollIntoViewIfNeeded();
        await page.waitForFunction(
          (sid) =>
            [...document.querySelectorAll(`section#${sid} attention-playground`)].every((el) => {
              const inner = el.shadowRoot?.querySelector('ap-playground, ap-train');
              if (!inner) {
                // An element starts once on screen: open a folded figure, and scroll to it in a tall section.
                const folded = el.closest('details:not([open])');
                if (folded) folded.open = true;
                el.scrollIntoView({ block: 'center' });
              }
              return inner && !inner.shadowRoot?.querySelector('.view.stale');
            }),
          id,
          { timeout: 30_000 },
        );
      }
      await page.mouse.move(0, 0); // no tooltip open
      await page.waitForTimeout(400);
      // The page settles: a drawing that is still taking its new width (the next animation frame, a paused run's
      // last slice) gets up to 3 s; one that never fits fails with its last measurement.
      let drawings = await measure(page, `section#${id}`);
      for (let tries = 0; tries < 10 && drawings.some((d) => d.scrollWidth > d.clientWidth + 1); tries++) {
        await page.waitForTimeout(300);
        drawings = await measure(page, `section#${id}`);
      }
      if (drawings.length) {
        assertFits(drawings, `tutorial #${id}`);
        drawn.push(id);
      }
      measured += drawings.length;
    }
    // Every section that draws heatmaps, matrices or lines (What changed is a table) was measured.
    for (const id of ['linear', 'walk', 'scale', 'masks', 'heads', 'cross', 'residual', 'activation', 'scale-training'])
      assert.ok(drawn.includes(id), `section ${id}: nothing drawn (drawn: ${drawn.join(', ')})`);
    assert.ok(drawn.includes('induction') && drawn.includes('trained-heads'), drawn.join(', '));
    assert.ok(measured >= 40, `${measured} drawings measured`);
    await page.locator('section#induction').scrollIntoViewIfNeeded();
    await page.screenshot({ path: `${SHOTS}/fit-tutorial-induction-1400.png` });
    assert.deepEqual(errors, []);
    await page.close();
  });

  for (const repo of ['gpt2-tiny', 'bert-tiny'])
    test(`a pretrained ${repo} loaded from the hub at 1400 px: every head whole`, async () => {
      const { page, errors } = await openPage(site.browser, wide);
      await page.goto(site.url);
      await page.locator('ap-heatmap').first().waitFor({ timeout: 20_000 });
      await page.locator('button[data-action="open-pretrained"]').click();
      await page.locator('#pretrained-base').fill(hub.url);
      await page.locator('#pretrained-repo').fill(repo);
      await page.locator('button[data-action="load"]').click();
      await page.locator('[data-testid="pretrained-note"]').waitFor({ timeout: 20_000 });
      // A longer text, so the heads have more keys than the default grid columns held.
      await page
        .locator('#setting-text')
        .fill(
          repo.startsWith('bert')
            ? 'the cat sat on the mat and the dog lay by the door'
            : 'The cat sat on the mat and the dog lay by the door.',
        );
      await page.waitForFunction(
        () => {
          const map = document.querySelector('ap-playground').shadowRoot.querySelector('.view:not(.stale) ap-heatmap');
          return map && map.cols >= 12;
        },
        null,
        { timeout: 20_000 },
      );
      await page.waitForTimeout(300);
      assertFits(await measure(page, 'ap-playground'), repo);
      await page.screenshot({ path: `${SHOTS}/fit-${repo}-1400.png`, fullPage: true });
      assert.deepEqual(errors, []);
      await page.close();
    });

  test('the embedded Train view (embed.html, the induction checkpoint) at 1400 px: every head whole', async () => {
    const { page, errors } = await openPage(site.browser, wide, { onlyFrom: site.url });
    await page.goto(`${site.url}embed.html?checkpoint=induction`);
    await page.locator('ap-train ap-heatmap').first().waitFor({ timeout: 30_000 });
    await page.locator('ap-train button[data-action="all-heads"]').click(); // every head, not only the folded view's
    await page.waitForTimeout(300);
    const drawings = await measure(page, 'body');
    assertFits(drawings, 'embed');
    assert.ok(drawings.filter((d) => d.what.startsWith('ap-heatmap')).length >= 4);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('on a phone (390 px) the Row by row matrices narrow their columns rather than scroll', async () => {
    const { page, errors } = await openPage(site.browser, phone, { onlyFrom: site.url });
    await page.goto(`${site.url}#view=rows`);
    await page.locator('ap-row-wise').waitFor({ timeout: 20_000 });
    await page.waitForFunction(
      () =>
        document
          .querySelector('ap-playground')
          .shadowRoot.querySelector('ap-row-wise')
          ?.shadowRoot.querySelectorAll('ap-matrix').length >= 4,
    );
    await page.waitForTimeout(300);
    const matrices = await measure(page, 'ap-playground');
    assert.ok(matrices.length >= 4);
    assertFits(matrices, 'phone Row by row');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('on a phone (390 px) a heatmap scrolls only when even the smallest cells (narrowest columns) cannot fit', async () => {
    const { page, errors } = await openPage(site.browser, phone, { onlyFrom: site.url });
    const words = (n) => Array.from({ length: n }, (_, i) => `w${i}`).join('+');
    for (const [n, scrolls] of [
      [8, false],
      [12, false],
      [30, false], // columns narrower than the rows, every other key labelled
      [120, true],
    ]) {
      await page.goto(`${site.url}#view=heads&text=${words(n)}`);
      await page.waitForFunction(
        (count) => document.querySelector('ap-playground').shadowRoot.querySelector('ap-heatmap')?.cols === count,
        n,
        { timeout: 20_000 },
      );
      await page.waitForTimeout(300);
      const drawings = (await measure(page, 'ap-playground')).filter((d) => d.what.startsWith('ap-heatmap'));
      assert.ok(drawings.length > 0);
      for (const d of drawings) {
        const scrolled = d.scrollWidth > d.clientWidth + 1;
        assert.equal(scrolled, scrolls, `${n} tokens: ${d.what} ${scrolled ? 'scrolls' : 'fits'} (cell ${d.cell})`);
        // A box that scrolls does so at MIN_CELL (smaller cells or narrower columns would not have fitted either); one
        // that fits has every label in view.
        if (scrolled) assert.deepEqual([d.cell, d.column], [MIN_CELL, MIN_CELL]);
        else assert.deepEqual(d.outside, []);
      }
      await page.screenshot({ path: `${SHOTS}/fit-phone-${n}-tokens.png` });
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('predictions: a control character shows as an escape, and every bar starts at the same x', async () => {
    const { page, errors } = await openPage(site.browser, wide);
    await page.goto(site.url);
    await page.locator('ap-heatmap').first().waitFor({ timeout: 20_000 });
    await page.locator('button[data-action="open-pretrained"]').click();
    await page.locator('#pretrained-base').fill(hub.url);
    await page.locator('#pretrained-repo').fill('gpt2-longpiece');
    await page.locator('button[data-action="load"]').click();
    const items = page.locator('[data-testid="predictions"] figure[data-kind="next"] li');
    await items.first().waitFor({ timeout: 20_000 });
    const rows = await items.evaluateAll((lis) =>
      lis.map((li) => {
        const token = li.querySelector('.token');
        return {
          token: token.textContent,
          title: token.getAttribute('title'),
          tokenRight: token.getBoundingClientRect().right,
          tokenFits: token.scrollWidth <= token.clientWidth + 1,
          barLeft: li.querySelector('.bar').getBoundingClientRect().left,
          barTop: li.querySelector('.bar').getBoundingClientRect().top,
          liTop: li.getBoundingClientRect().top,
          liBottom: li.getBoundingClientRect().bottom,
        };
      }),
    );
    assert.equal(rows.length, 5);
    // The tiny model's top guesses after "The cat sat on the mat.": the long piece, then "\u000b" (a vertical tab).
    assert.equal(rows[0].title, `\u00b7${LONG_PIECE.slice(1)}`);
    assert.equal(rows[0].tokenFits, false, 'the long token is cut (its whole text is the title)');
    const tab = rows.find((r) => r.token === '\\v');
    assert.ok(tab, `no "\\v" among ${JSON.stringify(rows.map((r) => r.token))}`);
    for (const r of rows) {
      assert.ok(!/\p{Cc}/u.test(r.token), `a control character drawn raw: ${JSON.stringify(r.token)}`);
      assert.ok(Math.abs(r.barLeft - rows[0].barLeft) < 0.5, `bars start at ${rows.map((x) => x.barLeft)}`);
      assert.ok(r.barTop >= r.liTop && r.barTop <= r.liBottom, 'a bar in its own row');
      assert.ok(r.tokenRight <= r.barLeft, 'the token ends before its bar');
    }
    await page.locator('[data-testid="predictions"]').screenshot({ path: `${SHOTS}/fit-predictions.png` });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
