// Issue 11, item 3, in real Chromium on the built tutorial: the sections that answer the
// learners' questions of seeds 000 (is a linear layer applied row by row?), 003 (one
// head's walk Q·Kᵀ → ÷ √d_k → mask → softmax → · V, and which d_k) and 004 (Q cut into the
// heads' column blocks) answer them with numbers, and the numbers follow what is typed.
// The tests redo the arithmetic themselves from the numbers on screen (÷ √d_k, softmax,
// −∞ for blocked keys), so a view that printed wrong numbers would fail here.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage } from '../support/browser.mjs';
import { SHOTS, useSite } from '../support/site.mjs';

const site = useSite('tutorial.html');

async function openTutorial() {
  const { page, errors } = await openPage(
    site.browser,
    { viewport: { width: 1100, height: 900 } },
    { onlyFrom: site.url },
  );
  await page.goto(site.url + 'tutorial.html');
  return { page, errors };
}

/** Polls `read` until `ok` holds for its result (the view re-renders once the engine answers); returns the last result. */
async function until(page, read, ok, what) {
  let last;
  for (let i = 0; i < 100; i++) {
    last = await read();
    if (ok(last)) return last;
    await page.waitForTimeout(100);
  }
  assert.fail(`${what}: last seen ${JSON.stringify(last)}`);
}

describe('#linear: a linear layer is applied row by row', () => {
  test('equal input rows give equal Q, K, V rows; attention output differs; positional encoding makes the rows differ', async () => {
    const { page, errors } = await openTutorial();
    const section = page.locator('#linear');
    await section.scrollIntoViewIfNeeded();
    const view = section.locator('ap-row-wise');
    const pairs = () =>
      view.locator('table[data-testid="row-pairs"] tbody tr').evaluateAll((rows) =>
        rows.map((r) => ({
          pair: r.dataset.pair,
          word: r.querySelector('th').textContent,
          ...Object.fromEntries(
            [...r.querySelectorAll('td[data-kind]')].map((td) => [td.dataset.kind, Number(td.dataset.value)]),
          ),
        })),
      );
    let rows = await until(page, pairs, (r) => r.length === 1, 'one repeated word');
    assert.equal(rows[0].word, 'the');
    assert.equal(rows[0].pair, '0-4');
    assert.deepEqual([rows[0].input, rows[0].q_proj, rows[0].k_proj, rows[0].v_proj], [0, 0, 0, 0]);
    assert.ok(rows[0].output > 1e-3, `attention output rows should differ, max |Δ| ${rows[0].output}`);
    assert.equal(await view.locator('[data-verdict]').getAttribute('data-verdict'), 'row-wise');
    assert.match(
      (await view.locator('[data-testid="rows-formula"]').textContent()).replace(/\s+/g, ' '),
      /W: E × E = 64 × 64.*\(S, E\) = \(6, 64\) comes out \(S, E\) = \(6, 64\)/s,
    );

    // Positional encoding on: the two "the" rows of the input differ, and so do their Q rows.
    await section.locator('input[name="positional"]').check();
    rows = await until(page, pairs, (r) => r.length === 1 && r[0].input > 0, 'input rows differ with positions');
    assert.ok(rows[0].q_proj > 1e-4, `Q rows should differ, max |Δ| ${rows[0].q_proj}`);
    assert.equal(await view.locator('[data-verdict]').getAttribute('data-verdict'), 'input-differs');

    // Positions off again, another text: each repeated word gets its row, each with equal projections.
    await section.locator('input[name="positional"]').uncheck();
    await section.locator('#setting-text').fill('a dog saw a cat and a dog');
    rows = await until(
      page,
      pairs,
      (r) => r.length === 4 && r.every((p) => p.input === 0),
      'the pairs of "a dog saw a cat and a dog"',
    );
    assert.deepEqual(
      rows.map((r) => `${r.word} ${r.pair}`),
      ['a 0-3', 'a 0-6', 'dog 1-7', 'a 3-6'],
    );
    for (const r of rows) assert.deepEqual([r.q_proj, r.k_proj, r.v_proj], [0, 0, 0], `${r.word} ${r.pair}`);
    await section.screenshot({ path: `${SHOTS}/tutorial-linear.png` });
    assert.deepEqual(errors, []);
    await page.close();
  });
});

/** The Step by step view's numbers: each step's engine row and recomputed row, its check, d_k and the divisor. */
async function walk(view) {
  return view.evaluate((el) => {
    const root = el.shadowRoot;
    const dk = root.querySelector('[data-testid="dk"]');
    const steps = {};
    for (const table of root.querySelectorAll('table[data-row-of]')) {
      const read = (kind) =>
        [...table.querySelectorAll(`td[data-kind="${kind}"]`)].map((td) => Number(td.dataset.value));
      const check = table.querySelector('td[data-agrees]');
      steps[table.dataset.rowOf] = {
        engine: read('engine'),
        recomputed: read('recomputed'),
        agrees: check.dataset.agrees === '1',
      };
    }
    return {
      dk: Number(dk.dataset.dk),
      divisor: Number(dk.dataset.divisor),
      dkText: dk.textContent.replace(/\s+/g, ' '),
      row: Number(root.querySelector('[data-testid="walk-row"]').value),
      shapes: [...root.querySelectorAll('[data-testid="shape"]')].map((p) => p.textContent.trim()),
      steps,
    };
  });
}

/** Checks the walk's arithmetic from its printed numbers: ÷ divisor, −∞ where `blocked`, softmax, weights summing to 1. */
function checkWalk(w, blocked) {
  for (const [name, step] of Object.entries(w.steps))
    assert.ok(step.agrees, `${name}: engine and recomputed rows disagree`);
  const { scores, scaled, masked, weights } = w.steps;
  scores.engine.forEach((s, j) => assert.ok(Math.abs(scaled.engine[j] - s / w.divisor) < 1e-5, `scaled[${j}]`));
  masked.engine.forEach((m, j) => assert.equal(m === -Infinity, blocked[j], `masked[${j}] = ${m}`));
  masked.engine.forEach((m, j) => {
    if (!blocked[j]) assert.equal(m, scaled.engine[j]);
  });
  const top = Math.max(...masked.engine);
  const exps = masked.engine.map((m) => Math.exp(m - top));
  const sum = exps.reduce((a, b) => a + b, 0);
  exps.forEach((e, j) => assert.ok(Math.abs(weights.engine[j] - e / sum) < 1e-5, `weights[${j}]`));
  blocked.forEach((b, j) => {
    if (b) assert.equal(weights.engine[j], 0, `blocked weight ${j}`);
  });
  assert.ok(Math.abs(weights.engine.reduce((a, b) => a + b, 0) - 1) < 1e-5, 'weights sum to 1');
}

describe('#walk: one head, step by step', () => {
  test('shows Q·Kᵀ → ÷ √d_k → mask → softmax → · V with shapes, d_k = d_model / H, each step checked', async () => {
    const { page, errors } = await openTutorial();
    const section = page.locator('#walk');
    await section.scrollIntoViewIfNeeded();
    const view = section.locator('ap-head-walk');
    let w = await until(
      page,
      () => walk(view),
      (x) => Object.keys(x.steps).length === 5,
      'the five steps',
    );
    assert.equal(w.dk, 16);
    assert.equal(w.divisor, 4);
    assert.match(w.dkText, /d_k = d_model \/ H = 64 \/ 4 = 16/);
    assert.match(w.dkText, /not the sentence length \(6 tokens, padded to 6\)/);
    assert.deepEqual(w.shapes.slice(0, 2), [
      'Q (Sq, d_k) = (6, 16); K and V (Sk, d_k) = (6, 16)',
      '(Sq, d_k) · (d_k, Sk) → (Sq, Sk) = (6, 16) · (16, 6) → (6, 6)',
    ]);
    assert.equal(w.shapes.at(-1), '(Sq, Sk) · (Sk, d_k) → (Sq, d_k) = (6, 6) · (6, 16) → (6, 16)');
    assert.equal(w.row, 5); // the last word: it sees every key in this decoder
    checkWalk(w, [false, false, false, false, false, false]);

    // Follow "sat" (row 2): the causal mask blocks keys 3..5.
    await view.locator('[data-testid="walk-row"]').selectOption('2');
    w = await until(
      page,
      () => walk(view),
      (x) => x.row === 2,
      'row 2 followed',
    );
    checkWalk(w, [false, false, false, true, true, true]);

    // The second sentence, "a dog barked", padded to 6: its row 2 sees keys 0..2; 3..5 are padding.
    await section.locator('#setting-sequence').selectOption('1');
    w = await until(
      page,
      () => walk(view),
      (x) => x.dkText.includes('3 tokens, padded to 6'),
      'the padded sentence',
    );
    checkWalk(w, [false, false, false, true, true, true]);

    // 8 heads of d_k = 8: the divisor follows the head size, not the length.
    await section.locator('#setting-heads').fill('8');
    w = await until(
      page,
      () => walk(view),
      (x) => x.dk === 8,
      'd_k = 8',
    );
    assert.ok(Math.abs(w.divisor - Math.sqrt(8)) < 1e-12);
    assert.match(w.dkText, /64 \/ 8 = 8/);
    assert.equal(w.shapes[1], '(Sq, d_k) · (d_k, Sk) → (Sq, Sk) = (6, 8) · (8, 6) → (6, 6)');
    checkWalk(w, [false, false, false, true, true, true]);
    await section.screenshot({ path: `${SHOTS}/tutorial-walk.png` });
    assert.deepEqual(errors, []);
    await page.close();
  });
});

/** The Head split view's differences and its token table, for one side ('split' or 'merge'). */
async function split(view, side) {
  return view.evaluate((el, side) => {
    const root = el.shadowRoot.querySelector(`[data-testid="${side}"]`);
    const cells = (kind) =>
      [...root.querySelectorAll(`table td[data-kind="${kind}"]`)].map((td) => Number(td.dataset.value));
    return {
      caption: root.querySelector('figcaption').textContent,
      differences: [...root.querySelectorAll('[data-max-difference]')].map((s) => Number(s.dataset.maxDifference)),
      full: cells('full'),
      head: cells('head'),
      shapes: el.shadowRoot.querySelector('[data-testid="split-shapes"]').textContent.replace(/\s+/g, ' '),
    };
  }, side);
}

describe('#heads: one projection cut into column blocks, one per head', () => {
  test('each head\u2019s Q is its block of d_k columns of Q, to the last digit; the merge likewise; heads and K follow', async () => {
    const { page, errors } = await openTutorial();
    const section = page.locator('#heads');
    await section.scrollIntoViewIfNeeded();
    const view = section.locator('ap-head-split');
    let s = await until(
      page,
      () => split(view, 'split'),
      (x) => x.differences.length === 4,
      'four heads',
    );
    assert.match(s.caption, /^q_proj \(S, E\) = \(6, 64\): one matrix, H = 4 blocks of d_k = 16 columns/);
    assert.deepEqual(s.differences, [0, 0, 0, 0]);
    assert.equal(s.full.length, 12);
    assert.deepEqual(s.head, s.full);
    assert.ok(s.full.some((x) => x !== 0));
    assert.match(
      s.shapes,
      /\(B, S, E\) = \(1, 6, 64\) → \(B, S, H, d_k\) = \(1, 6, 4, 16\) → \(B, H, S, d_k\) = \(1, 4, 6, 16\)/,
    );
    const merge = await split(view, 'merge');
    assert.deepEqual(merge.differences, [0, 0, 0, 0]);
    assert.deepEqual(merge.head, merge.full);

    await view.locator('button[data-projection="k"]').click();
    s = await until(
      page,
      () => split(view, 'split'),
      (x) => x.caption.startsWith('k_proj'),
      'K',
    );
    assert.deepEqual(s.differences, [0, 0, 0, 0]);

    await section.locator('#setting-heads').fill('2');
    s = await until(
      page,
      () => split(view, 'split'),
      (x) => x.differences.length === 2,
      'two heads',
    );
    assert.match(s.caption, /H = 2 blocks of d_k = 32 columns/);
    assert.deepEqual(s.differences, [0, 0]);
    assert.deepEqual(s.head, s.full);
    await section.screenshot({ path: `${SHOTS}/tutorial-heads.png` });
    assert.deepEqual(errors, []);
    await page.close();
  });
});
