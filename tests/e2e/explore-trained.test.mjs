// The Explore page on a trained model, in real Chromium against the production build
// (dist-web/): a link with #model=reverse opens the shipped checkpoint on its probe
// example, every view draws its trace, bad tokens are explained with the last view kept
// (marked stale), the picker switches models and back to the untrained one, and an
// unknown model in a link gets a message instead of a wait.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SHOTS, useSite } from '../support/site.mjs';

/** The reverse checkpoint's probe example (its record's last snapshot). */
const REVERSE_EXAMPLE = '3 7 1 1 1 0 5 6 | 6 5 0 1 1 1 7 3';

const site = useSite('checkpoints/index.json');

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

/** Row labels of the first heatmap of the view (its accessible table). */
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
        const map = document.querySelector('ap-playground').shadowRoot.querySelector('ap-heatmap');
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

/** No message of any kind on the page: no error, no engine error, no 'nothing to show'. */
async function assertNoMessage(page, view) {
  const messages = await inPlayground(page, (root) =>
    [...root.querySelectorAll('.error, .engine-error, [data-testid="blocked"]')].map((e) => e.textContent.trim()),
  );
  assert.deepEqual(messages, [], `${view}: messages shown`);
}

describe('the Explore page on a trained model', () => {
  test('a link opens the shipped reverse model on its example, and every view draws its trace', async () => {
    const { page, errors } = await site.open('#model=reverse');
    const tokens = REVERSE_EXAMPLE.split(' ');
    await waitForRows(page, tokens);
    assert.equal(await page.locator('#setting-model').inputValue(), 'reverse');
    assert.equal(await page.locator('#setting-text').inputValue(), REVERSE_EXAMPLE);
    assert.match(
      await page.locator('[data-setting="text"] label').textContent(),
      /tokens of the model\u2019s task, separated by spaces/,
    );
    assert.equal(
      new URL(page.url()).hash,
      `#model=reverse&text=${REVERSE_EXAMPLE.replaceAll(' ', '+').replaceAll('|', '%7C')}`,
    );
    // Its training fixed the model settings: shown, and the playground's controls are gone.
    const fixed = await inPlayground(page, (root) =>
      Object.fromEntries([...root.querySelectorAll('[data-fixed]')].map((dd) => [dd.dataset.fixed, dd.textContent])),
    );
    assert.deepEqual(
      {
        task: fixed.task,
        length: fixed.length,
        dModel: fixed.dModel,
        heads: fixed.heads,
        layers: fixed.layers,
        ffnDim: fixed.ffnDim,
      },
      { task: 'Reverse', length: '8', dModel: '32', heads: '4', layers: '2', ffnDim: '64' },
    );
    // a 0 that stands for a default reads as what it resolves to (H, E / H), not as 0
    assert.deepEqual(
      { kvHeads: fixed.kvHeads, headDim: fixed.headDim, window: fixed.window },
      { kvHeads: 'default (4)', headDim: 'default (8)', window: 'none' },
    );
    assert.equal(await page.locator('ap-controls').count(), 0);
    assert.equal(await page.locator('#setting-mode').count(), 0);

    // All heads: one 17 x 17 heatmap per head of the model.
    assert.equal(await page.locator('ap-heatmap').count(), 4);
    const size = await inPlayground(page, (root) => {
      const cells = [...root.querySelector('ap-heatmap').shadowRoot.querySelectorAll('rect[data-row]')];
      return [
        1 + Math.max(...cells.map((c) => Number(c.dataset.row))),
        1 + Math.max(...cells.map((c) => Number(c.dataset.col))),
      ];
    });
    assert.deepEqual(size, [17, 17]);
    await assertNoMessage(page, 'heads');
    await page.screenshot({ path: `${SHOTS}/trained-heads.png`, fullPage: true });

    const views = {
      head: 'ap-line-view',
      lines: 'ap-line-view[data-head="3"]',
      masks: 'ap-heatmap[data-mask="causal"]',
      shapes: 'ap-shape-flow[data-stack="decoder"]',
      overview: 'ap-overview',
      changes: 'p.hint',
    };
    for (const [view, selector] of Object.entries(views)) {
      await page.locator(`button[data-view="${view}"]`).click();
      await page
        .locator(`ap-playground .view[data-view="${view}"] :is(${selector})`)
        .first()
        .waitFor({ timeout: 10_000 });
      await assertNoMessage(page, view);
    }
    // The shapes of its layer: the checkpoint's sizes (E = 32, H = 4, d_k = 8, FFN 64), pre-LN (norm1 before attention).
    await page.locator('button[data-view="shapes"]').click();
    const flow = (await page.locator('ap-shape-flow').evaluate((el) => el.shadowRoot.textContent)).replace(/\s+/g, ' ');
    assert.match(flow, /input \(B=1, S=17, E=32\)/);
    assert.match(flow, /norm1 \(B=1, S=17, E=32\).*self_attn\.q_proj/);
    assert.match(flow, /self_attn\.q_heads \(B=1, H=4, Sq=17, d_k=8\)/);
    assert.match(flow, /self_attn\.weights \(B=1, H=4, Sq=17, Sk=17\)/);
    assert.match(flow, /ffn\.hidden \(B=1, S=17, F=64\)/);
    // Layers x heads: both layers' four heads.
    await page.locator('button[data-view="overview"]').click();
    assert.deepEqual(
      await page.locator('ap-overview').evaluate((el) => [el.layers, el.heads, el.thumbnails.length]),
      [2, 4, 8],
    );

    // What changed: one token edited; the causal model's earlier rows cannot see it.
    await page.locator('button[data-view="changes"]').click();
    const edited = [...tokens];
    edited[3] = '2';
    await page.locator('#setting-text').fill(edited.join(' '));
    const rows = page.locator('table.changes tbody tr');
    await rows.first().waitFor();
    const changed = await rows.evaluateAll((trs) =>
      trs.map((tr) => [tr.dataset.linearChanged, tr.dataset.attentionChanged]),
    );
    assert.deepEqual(changed.map(([linear]) => linear).join(''), '00010000000000000');
    assert.deepEqual(changed.map(([, attention]) => attention).join(''), '00011111111111111');
    await assertNoMessage(page, 'changes');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('bad tokens are explained at the text box and the last view stays, marked stale', async () => {
    const { page, errors } = await site.open('#model=reverse&text=1+2+%7C+2+1');
    await waitForRows(page, ['1', '2', '|', '2', '1']);
    const stale = () => page.locator('ap-playground .view').getAttribute('data-stale');
    assert.equal(await stale(), '0');
    await page.locator('#setting-text').fill('1 x |');
    const message = page.locator('[data-setting="text"] .error');
    await message.waitFor();
    assert.match(
      await message.textContent(),
      /^'x' is not a token of this task \(its tokens: 0 1 2 3 4 5 6 7 8 9 \|\)/,
    );
    assert.equal(await stale(), '1');
    assert.ok(await page.locator('.stale-note').isVisible());
    assert.deepEqual(await firstRows(page), ['1', '2', '|', '2', '1']); // the last good view
    await page.locator('#setting-text').fill('1 '.repeat(18));
    await page.waitForFunction(() =>
      /at most 17/.test(
        document.querySelector('ap-playground').shadowRoot.querySelector('[data-setting="text"] .error')?.textContent ??
          '',
      ),
    );
    await page.locator('#setting-text').fill('4 5 |');
    await waitForRows(page, ['4', '5', '|']);
    assert.equal(await message.count(), 0);
    assert.equal(await stale(), '0');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the picker switches to another trained model and back to the untrained one', async () => {
    const { page, errors } = await site.open('#text=the+cat+sat');
    await waitForRows(page, ['the', 'cat', 'sat']);
    const options = await page
      .locator('#setting-model option')
      .evaluateAll((os) => os.map((o) => [o.value, o.textContent]));
    assert.deepEqual(options, [
      ['', 'Untrained playground model'],
      ['sort', 'Sort 8 symbols'],
      ['reverse', 'Reverse 8 symbols'],
      ['induction', 'Induction: repeat a random sequence'],
    ]);
    await page.locator('#setting-model').selectOption('sort');
    await page.waitForFunction(
      () =>
        document.querySelector('ap-playground').shadowRoot.querySelector('[data-fixed="dModel"]')?.textContent === '48',
    );
    const example = await page.locator('#setting-text').inputValue();
    assert.equal(example, '2 1 9 9 7 2 0 1 | 0 1 1 2 2 7 9 9'); // the sort checkpoint's probe example
    await waitForRows(page, example.split(' '));
    assert.match(new URL(page.url()).hash, /^#model=sort&text=/);
    await page.screenshot({ path: `${SHOTS}/trained-sort.png`, fullPage: true });

    await page.locator('#setting-model').selectOption('');
    await waitForRows(page, ['the', 'cat', 'sat']); // its own text back
    assert.equal(await page.locator('#setting-dModel').inputValue(), '64');
    assert.equal(await page.locator('[data-testid="fixed-settings"]').count(), 0);
    assert.equal(new URL(page.url()).hash, '#text=the+cat+sat');
    await assertNoMessage(page, 'untrained');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('picking a model starts on its own text\u2019s first sentence: no stale sentence number from the old text', async () => {
    const { page, errors } = await site.open('#text=the+cat+sat%0Aa+dog&sequence=1&view=masks');
    await page.locator('[data-testid="out-of-range"]').waitFor({ state: 'detached' });
    assert.equal(await page.locator('#setting-sequence').inputValue(), '1');
    await page.locator('#setting-model').selectOption('reverse');
    await page.waitForFunction(() =>
      document.querySelector('ap-playground').shadowRoot.querySelector('[data-fixed="dModel"]'),
    );
    await page.waitForFunction(
      () => document.querySelector('ap-playground').shadowRoot.querySelector('.view')?.dataset.stale === '0',
    );
    assert.equal(await page.locator('[data-testid="out-of-range"]').count(), 0, 'no "Sentence 2 does not exist"');
    assert.doesNotMatch(new URL(page.url()).hash, /sequence=/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('a link to a model that is not here says so instead of waiting', async () => {
    const { page, errors } = await site.open('#model=nosuch');
    const message = page.locator('[data-testid="model-error"]');
    await message.waitFor({ timeout: 10_000 });
    assert.equal(
      await message.textContent(),
      'There is no model \u2018nosuch\u2019 here; the trained models are \u2018sort\u2019, ' +
        '\u2018reverse\u2019, \u2018induction\u2019, \u2018trained\u2019 (yours, from the Train view).',
    );
    assert.equal(await page.getByText('Waiting for the first result').count(), 0);
    assert.equal(await page.locator('#setting-model').inputValue(), 'nosuch');

    await page.goto(`${site.url}#model=trained`); // a new page: nothing was handed over in it
    await page.reload();
    await page.locator('[data-testid="model-error"]').waitFor({ timeout: 10_000 });
    assert.match(
      await page.locator('[data-testid="model-error"]').textContent(),
      /No model was handed over from the Train view in this tab/,
    );
    assert.deepEqual(errors, []);
    await page.close();
  });
});
