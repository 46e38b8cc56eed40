// Issue 11, items 5 and 6, in real Chromium against the production build: every heatmap
// states its tensor and shape with axis names; the Shapes view draws Q, K and V in
// parallel with the weight shapes, the residual and the norm, and opens a step's values;
// the Values view shows Q, K, V, the context, the merged heads, the output projection,
// the residual stream, LayerNorm and the FFN, with the engine's own numbers, and every
// switch (residual, activation, norm placement) changes something visible.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { loadAttention } from '../../dist/node.js';
import { openPage } from '../support/browser.mjs';
import { SHOTS, useSite } from '../support/site.mjs';

const site = useSite();
const engine = await loadAttention();
// The engine's default weights are random; the page opens on positional heads, so links compared with engine.run say preset=random.

async function open(hash) {
  const { page, errors } = await openPage(
    site.browser,
    { viewport: { width: 1280, height: 900 } },
    { onlyFrom: site.url },
  );
  await page.goto(site.url + hash);
  await page.locator('ap-heatmap, ap-shape-flow').first().waitFor();
  return { page, errors };
}

/** The heatmaps on screen: caption, head, tensor, and their values (rows x cols) from the drawn cells. */
async function heatmaps(page, selector = 'ap-heatmap') {
  return page.locator(selector).evaluateAll((els) =>
    els.map((el) => {
      const cells = [...el.shadowRoot.querySelectorAll('rect[data-row]')];
      const rows = 1 + Math.max(...cells.map((c) => Number(c.dataset.row)));
      const cols = 1 + Math.max(...cells.map((c) => Number(c.dataset.col)));
      const values = Array.from({ length: rows * cols }, () => NaN);
      for (const c of cells) values[Number(c.dataset.row) * cols + Number(c.dataset.col)] = Number(c.dataset.value);
      return {
        caption: el.getAttribute('caption'),
        head: el.dataset.head ?? null,
        tensor: el.dataset.tensor ?? null,
        rows,
        cols,
        values,
      };
    }),
  );
}

/** Waits until the Values view shows `tensor` (a full stage name) and returns its heatmaps. */
async function valuesOf(page, tensor, check = () => true) {
  await page.waitForFunction(
    ({ tensor }) => {
      const view = document.querySelector('ap-playground').shadowRoot.querySelector('ap-tensor-view');
      return view?.shadowRoot.querySelector(`ap-heatmap[data-tensor="${tensor}"]`);
    },
    { tensor },
  );
  let maps = [];
  for (let i = 0; i < 50; i++) {
    maps = await heatmaps(page, `ap-heatmap[data-tensor="${tensor}"]`);
    if (check(maps)) return maps;
    await page.waitForTimeout(100);
  }
  return maps;
}

function closeTo(actual, expected, what, tolerance = 1e-5) {
  assert.equal(actual.length, expected.length, `${what}: ${actual.length} values, expected ${expected.length}`);
  for (let i = 0; i < expected.length; i++)
    assert.ok(
      Math.abs(actual[i] - expected[i]) <= tolerance * (1 + Math.abs(expected[i])),
      `${what}[${i}]: ${actual[i]} vs ${expected[i]}`,
    );
}

const same = (a, b) => a.length === b.length && a.every((v, i) => v === b[i]);

describe('item 5: shapes outside the Shapes tab', () => {
  test('every heatmap caption states its tensor, axis names and sizes, matching the settings', async () => {
    const { page, errors } = await open('#text=the+cat+sat+on+the+mat%0Aa+dog&dModel=64&heads=4&sequence=1');
    const maps = await heatmaps(page);
    assert.equal(maps.length, 4);
    maps.forEach((m, h) =>
      assert.equal(
        m.caption,
        `self_attn.weights (B, H, Sq, Sk) = (2, 4, 6, 6) · d_k = 16 · sentence 2 · head ${h} · layer 0`,
      ),
    );
    // Other settings, other numbers: 2 heads of d_model 32 give d_k = 16; three sentences.
    await page.locator('#setting-heads').fill('2');
    await page.locator('#setting-dModel').fill('32');
    await page.waitForFunction(
      () => document.querySelector('ap-playground').shadowRoot.querySelectorAll('ap-heatmap').length === 2,
    );
    await page.locator('#setting-text').fill('one two\nthree\nfour five six seven');
    await page.waitForFunction(() =>
      /\(3, 2, 4, 4\)/.test(
        document.querySelector('ap-playground').shadowRoot.querySelector('ap-heatmap').getAttribute('caption'),
      ),
    );
    assert.match(
      (await heatmaps(page))[1].caption,
      /^self_attn\.weights \(B, H, Sq, Sk\) = \(3, 2, 4, 4\) · d_k = 16 · sentence \d · head 1 · layer 0$/,
    );
    // The Masks view's panels name their tensors too.
    await page.locator('button[data-view="masks"]').click();
    await page.locator('ap-heatmap[data-mask="combined"]').waitFor();
    assert.match(
      await page.locator('ap-heatmap[data-mask="combined"]').getAttribute('caption'),
      /mask \(B, Sq, Sk\) = \(3, 4, 4\)/,
    );
    assert.match(
      await page.locator('ap-heatmap[data-mask="batch-padding"]').getAttribute('caption'),
      /mask\.padding \(B, Sk\) = \(3, 4\)/,
    );
    // The Layers x heads thumbnails and the line views say which tensor they draw.
    await page.locator('button[data-view="overview"]').click();
    assert.match(
      await page.locator('[data-testid="overview-caption"]').textContent(),
      /self_attn\.weights \(B, H, Sq, Sk\) = \(3, 2, 4, 4\)/,
    );
    await page.locator('button[data-view="lines"]').click();
    assert.match(
      await page.locator('ap-line-view[data-head="1"]').getAttribute('caption'),
      /^self_attn\.weights \(B, H, Sq, Sk\) = \(3, 2, 4, 4\) · sentence \d · head 1 · layer 0$/,
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the Shapes view draws Q, K, V in parallel with W_q split into heads, the residual and the norm; a step opens its values', async () => {
    const { page, errors } = await open('#view=shapes&text=the+cat+sat&dModel=32&heads=4');
    const flow = page.locator('ap-shape-flow[data-stack="encoder"]');
    await flow.waitFor();
    const rows = await flow.evaluate((el) =>
      [...el.shadowRoot.querySelectorAll('li.row')].map((li) => ({
        kind: li.dataset.kind,
        steps: [...li.querySelectorAll('button.step')].map((b) => b.dataset.stage),
        text: li.textContent.replace(/\s+/g, ' '),
      })),
    );
    assert.deepEqual(
      rows.slice(0, 2).map((r) => [r.kind, r.steps]),
      [
        ['parallel', ['embeddings', 'positions']],
        ['input', ['input']],
      ],
    );
    const parallel = rows.find((r) => r.kind === 'parallel' && r.steps.includes('self_attn.q_proj'));
    assert.deepEqual(parallel.steps, ['self_attn.q_proj', 'self_attn.k_proj', 'self_attn.v_proj']);
    assert.match(parallel.text, /W_q, W_k, W_v each E × E = 32 × 32/);
    assert.match(rows.find((r) => r.steps.includes('self_attn.q_split')).text, /H = 4 blocks of d_k = 8/);
    assert.equal(await flow.locator('[data-testid="wq-blocks"] span').count(), 4);
    assert.deepEqual(
      rows.filter((r) => r.kind === 'residual').map((r) => r.steps[0]),
      ['residual1', 'residual2'],
    );
    const norms = rows.filter((r) => r.kind === 'norm');
    assert.deepEqual(
      norms.map((r) => r.steps[0]),
      ['norm1', 'norm2'],
    );
    assert.match(norms[0].text, /post-LN/);
    // The residual adds right after the attention's output projection, then the norm.
    const at = rows.findIndex((r) => r.steps.includes('self_attn.output'));
    assert.deepEqual([rows[at + 1].kind, rows[at + 2].kind], ['residual', 'norm']);
    assert.match(rows.find((r) => r.steps.includes('ffn.activated')).text, /activation: relu/);
    await page.screenshot({ path: `${SHOTS}/shapes-flow.png`, fullPage: true });
    // The switches show here too: GELU names itself; residual off puts "no residual" where the adds were.
    await page.locator('#setting-activation').selectOption('gelu');
    await page.waitForFunction(() =>
      /activation: gelu/.test(
        document.querySelector('ap-playground').shadowRoot.querySelector('ap-shape-flow').shadowRoot.textContent,
      ),
    );
    await page.locator('#setting-residual').uncheck();
    await page.waitForFunction(
      () =>
        document
          .querySelector('ap-playground')
          .shadowRoot.querySelector('ap-shape-flow')
          .shadowRoot.querySelectorAll('li[data-kind="no-residual"]').length === 2,
    );
    assert.equal(await flow.locator('li[data-kind="residual"]').count(), 0);
    await page.locator('#setting-residual').check();
    await page.waitForFunction(
      () =>
        document
          .querySelector('ap-playground')
          .shadowRoot.querySelector('ap-shape-flow')
          .shadowRoot.querySelectorAll('li[data-kind="residual"]').length === 2,
    );

    // Clicking v_heads opens its values: one (Sq, d_k) heatmap per head.
    await flow.locator('button.step[data-stage="self_attn.v_heads"]').click();
    const maps = await valuesOf(page, 'encoder.self_attn.v_heads');
    assert.deepEqual(
      maps.map((m) => [m.head, m.rows, m.cols]),
      [
        ['0', 3, 8],
        ['1', 3, 8],
        ['2', 3, 8],
        ['3', 3, 8],
      ],
    );
    assert.match(page.url(), /view=values/);
    assert.match(page.url(), /tensor=self_attn\.v_heads/);
    // And a scores step opens the heatmaps at that stage.
    await page.locator('button[data-view="shapes"]').click();
    await flow.locator('button.step[data-stage="self_attn.scaled"]').click();
    await page.waitForFunction(() => /\bstage=scaled\b/.test(location.hash) && !/view=/.test(location.hash));
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('item 6: the stages that were invisible', () => {
  const config = { dModel: 32, heads: 4, layers: 2 };
  const texts = ['the cat sat on the mat', 'a dog barked'];

  test('Q, K, V per head, the context, the merged heads and the output projection show the engine\u2019s numbers', async () => {
    const trace = engine.run({ texts, mode: 'encoder', config });
    const stage = (name, layer = 1) => trace.stages.find((s) => s.name === name && s.layer === layer);
    const { page, errors } = await open('#view=values&dModel=32&heads=4&layers=2&layer=1&sequence=1&preset=random');
    for (const tensor of ['q_heads', 'k_heads', 'v_heads', 'context']) {
      await page.locator(`ap-tensor-view button[data-tensor="self_attn.${tensor}"]`).click();
      const maps = await valuesOf(page, `encoder.self_attn.${tensor}`);
      const s = stage(`encoder.self_attn.${tensor}`);
      assert.equal(maps.length, 4, tensor);
      maps.forEach((m, h) => {
        assert.equal(
          m.caption,
          `self_attn.${tensor} (B, H, ${tensor === 'q_heads' || tensor === 'context' ? 'Sq' : 'Sk'}, d_k) = (2, 4, 6, 8) · sentence 2 · head ${h} · layer 1`,
        );
        // Sentence 2 (b = 1), head h: (S, d_k) = (6, 8), padding rows included.
        const offset = (1 * 4 + h) * 6 * 8;
        closeTo(m.values, Array.from(s.data.subarray(offset, offset + 48)), `${tensor} head ${h}`);
      });
    }
    // Screen readers hear what the rows and columns are: tokens down, features across.
    assert.match(
      await page
        .locator('ap-heatmap[data-tensor="encoder.self_attn.context"][data-head="0"]')
        .evaluate((el) => el.shadowRoot.querySelector('table caption').textContent),
      /rows are Sq tokens, columns are d_k features$/,
    );
    for (const tensor of ['merged', 'output']) {
      await page.locator(`ap-tensor-view button[data-tensor="self_attn.${tensor}"]`).click();
      const [m] = await valuesOf(page, `encoder.self_attn.${tensor}`);
      assert.equal(m.caption, `self_attn.${tensor} (B, Sq, E) = (2, 6, 32) · sentence 2 · layer 1`);
      closeTo(m.values, Array.from(stage(`encoder.self_attn.${tensor}`).data.subarray(6 * 32, 12 * 32)), tensor);
    }
    await page.screenshot({ path: `${SHOTS}/values-output.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('residual off, another activation, pre-LN: each changes the values shown', async () => {
    const { page, errors } = await open('#view=values&tensor=norm1&text=the+cat+sat&dModel=32&heads=4&preset=random');
    const values = async (tensor, check) => (await valuesOf(page, `encoder.${tensor}`, check))[0].values;
    // Post-LN: norm1 = LayerNorm(x + attention(x)); each token has mean 0 and std 1 (the stats table says so).
    const withResidual = await values('norm1');
    const expected = engine.run({ texts: ['the cat sat'], config: { dModel: 32, heads: 4 } });
    closeTo(withResidual, Array.from(expected.stages.find((s) => s.name === 'encoder.norm1').data), 'norm1');
    const stats = await page
      .locator('ap-tensor-view table.stats tbody tr')
      .evaluateAll((trs) => trs.map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.textContent))));
    assert.equal(stats.length, 3);
    for (const [mean, std] of stats) {
      assert.ok(Math.abs(mean) < 1e-3, `mean ${mean}`);
      assert.ok(Math.abs(std - 1) < 1e-2, `std ${std}`);
    }

    // Residual connections off: residual1 is gone (said so), and norm1 = LayerNorm(attention(x)) has other numbers.
    await page.locator('#setting-residual').uncheck();
    const without = await values('norm1', (maps) => maps.length > 0 && !same(maps[0].values, withResidual));
    assert.ok(!same(without, withResidual), 'norm1 did not change with residual off');
    const off = engine.run({ texts: ['the cat sat'], config: { dModel: 32, heads: 4, residual: false } });
    closeTo(without, Array.from(off.stages.find((s) => s.name === 'encoder.norm1').data), 'norm1 without residual');
    assert.ok((await page.locator('ap-tensor-view [data-absent="residual"]').count()) >= 1);
    await page.locator('ap-tensor-view button[data-tensor="self_attn.output"]').waitFor();
    await page.evaluate(() => {
      location.hash = location.hash.replace(/tensor=[^&]*/, 'tensor=residual1');
    });
    await page.locator('ap-tensor-view [data-testid="tensor-absent"]').waitFor();
    assert.match(
      await page.locator('ap-tensor-view [data-testid="tensor-absent"]').textContent(),
      /residual connections are off/,
    );

    // The FFN activation: ReLU leaves no negative value in ffn.activated; GELU does.
    await page.locator('#setting-residual').check();
    await page.locator('ap-tensor-view button[data-tensor="ffn.activated"]').click();
    const relu = await values('ffn.activated');
    assert.ok(
      relu.every((v) => v >= 0),
      'ReLU output has a negative value',
    );
    await page.locator('#setting-activation').selectOption('gelu');
    const gelu = await values('ffn.activated', (maps) => maps.length > 0 && maps[0].values.some((v) => v < 0));
    assert.ok(
      gelu.some((v) => v < 0),
      'GELU output has no negative value',
    );

    // Pre-LN: norm1 comes first (it reads the layer input) and its button moves before Q, K, V.
    const order = async () =>
      page.locator('ap-tensor-view button[data-tensor]').evaluateAll((bs) => bs.map((b) => b.dataset.tensor));
    assert.ok((await order()).indexOf('norm1') > (await order()).indexOf('self_attn.output'));
    await page.locator('#setting-norm').selectOption('pre');
    await page.waitForFunction(() => {
      const view = document.querySelector('ap-playground').shadowRoot.querySelector('ap-tensor-view');
      const names = [...view.shadowRoot.querySelectorAll('button[data-tensor]')].map((b) => b.dataset.tensor);
      return names.indexOf('norm1') >= 0 && names.indexOf('norm1') < names.indexOf('self_attn.q_proj');
    });
    await page.locator('ap-tensor-view button[data-tensor="norm1"]').click();
    const pre = await values('norm1', (maps) => maps.length > 0 && !same(maps[0].values, withResidual));
    const preTrace = engine.run({
      texts: ['the cat sat'],
      config: { dModel: 32, heads: 4, norm: 'pre', activation: 'gelu' },
    });
    closeTo(pre, Array.from(preTrace.stages.find((s) => s.name === 'encoder.norm1').data), 'pre-LN norm1');
    // Positional encoding off: the layer's input (embeddings + positions) has other numbers.
    await page.locator('ap-tensor-view button[data-tensor="input"]').click();
    const withPositions = await values('input');
    await page.locator('#setting-positional').uncheck();
    const withoutPositions = await values('input', (maps) => maps.length > 0 && !same(maps[0].values, withPositions));
    assert.ok(!same(withoutPositions, withPositions), 'the layer input did not change without positions');
    assert.equal(await page.locator('ap-tensor-view button[data-tensor="positions"]').count(), 0);
    await page.locator('#setting-positional').check();
    await page.locator('ap-tensor-view button[data-tensor="norm1"]').click();
    await valuesOf(page, 'encoder.norm1');
    await page.screenshot({ path: `${SHOTS}/values-norm.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('cross-attention: a step of the decoder opens its block, its keys labelled by the source tokens', async () => {
    const { page, errors } = await open(
      '#view=shapes&mode=cross&text=a+b&source=x+y+z&dModel=32&heads=4&preset=random',
    );
    const flow = page.locator('ap-shape-flow[data-stack="decoder"]');
    await flow.waitFor();
    await flow.locator('button.step[data-stage="cross_attn.k_heads"]').click();
    const maps = await valuesOf(page, 'decoder.cross_attn.k_heads');
    assert.equal(maps[0].caption, 'cross_attn.k_heads (B, H, Sk, d_k) = (1, 4, 3, 8) · head 0 · layer 0');
    assert.match(page.url(), /block=decoder\.cross_attn/);
    const rowLabels = await page
      .locator('ap-heatmap[data-tensor="decoder.cross_attn.k_heads"][data-head="0"]')
      .evaluate((el) => [...el.shadowRoot.querySelectorAll('table th[scope="row"]')].map((th) => th.textContent));
    assert.deepEqual(rowLabels, ['x', 'y', 'z']);
    const trace = engine.run({ texts: ['a b'], mode: 'cross', source: ['x y z'], config: { dModel: 32, heads: 4 } });
    const k = trace.stages.find((s) => s.name === 'decoder.cross_attn.k_heads');
    closeTo(maps[2].values, Array.from(k.data.subarray(2 * 3 * 8, 3 * 3 * 8)), 'cross K head 2');
    assert.deepEqual(errors, []);
    await page.close();
  });
});

describe('step by step names the masks the block has', () => {
  test('an encoder blocks padding only; a decoder padding and the future', async () => {
    const maskStep = async (hash) => {
      const { page, errors } = await openPage(
        site.browser,
        { viewport: { width: 1280, height: 900 } },
        { onlyFrom: site.url },
      );
      await page.goto(site.url + hash);
      const text = await page.waitForFunction(
        () => {
          const walk = document.querySelector('ap-playground').shadowRoot.querySelector('ap-head-walk');
          const found = walk?.shadowRoot.textContent
            .replace(/\s+/g, ' ')
            .match(/the scaled score, or -∞ where the key is padding( \(no causal mask here\)| or in the future)?/);
          return found?.[0] ?? false;
        },
        null,
        { timeout: 20_000 },
      );
      const value = await text.jsonValue();
      assert.deepEqual(errors, []);
      await page.close();
      return value;
    };
    assert.equal(
      await maskStep('#view=steps&sequence=1'),
      'the scaled score, or -∞ where the key is padding (no causal mask here)',
    );
    assert.equal(
      await maskStep('#view=steps&sequence=1&mode=decoder'),
      'the scaled score, or -∞ where the key is padding or in the future',
    );
  });
});
