// The "What changed" view in real Chromium (dist-web/): a pinned baseline stays the
// reference while the person types, the comparison follows the Layer control, view-only
// settings keep the baseline, shape changes are named instead of silently dropped, and
// unpinning goes back to comparing with the previous result.
// Issue 31: each view's why note shows and follows the view; Row by row and What changed bring
// the weights that make their point (item 7: Q rows of different words differ; the edited
// word's own output moves by more than 0.5), and say why when a link gives them other weights;
// the FFN and attention's weights in the comparison (seed 001); Row by row on a phone and on a
// trained model (item 9).
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { SHOTS, useSite } from '../support/site.mjs';

const site = useSite();

/** What the view shows now: which reference, both texts, the layer, the table's rows, any message. */
function readView(page) {
  return page.evaluate(() => {
    const root = document.querySelector('ap-playground').shadowRoot;
    const view = root.querySelector('.view[data-view="changes"]');
    const bar = view?.querySelector('[data-testid="baseline-bar"]');
    const text = (selector) => view?.querySelector(selector)?.textContent.replace(/\s+/g, ' ').trim() ?? null;
    const rows = [...(view?.querySelectorAll('table.changes tbody tr') ?? [])];
    return {
      reference: bar?.dataset.reference ?? null,
      layer: bar ? Number(bar.dataset.layer) : null,
      current: text('[data-testid="current-text"]'),
      baseline: text('[data-testid="baseline-text"]'),
      comparedLayer: text('[data-testid="compared-layer"]'),
      caption: text('#changes-caption'),
      tokens: rows.map((r) => r.querySelector('th').textContent),
      linear: rows.map((r) => r.dataset.linearChanged).join(''),
      value: rows.map((r) => r.dataset.valueChanged).join(''),
      attention: rows.map((r) => r.dataset.attentionChanged).join(''),
      numbers: rows.map((r) => [...r.querySelectorAll('.num')].map((n) => n.textContent).join('/')).join(' '),
      incomparable: text('[data-testid="incomparable"]'),
      settingsDiffer: text('[data-testid="settings-differ"]'),
      qIgnoresWords: text('[data-testid="q-ignores-words"]'),
      editElsewhere: text('[data-testid="edit-elsewhere"]'),
    };
  });
}

/** Waits until the view satisfies `check` (given readView's result); fails with the last state seen. */
async function waitForView(page, check, what) {
  let last = null;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    last = await readView(page);
    if (check(last)) return last;
    await page.waitForTimeout(50);
  }
  assert.fail(`${what}: the view shows ${JSON.stringify(last)}`);
}

const inView = (page, selector) => page.locator(`ap-playground .view[data-view="changes"] ${selector}`);

describe('what changed', () => {
  test('a pinned baseline survives typing, layers, view settings and same-shape settings; unpin compares with the previous result', async () => {
    const { page, errors } = await site.open('#text=the+cat+sat&view=changes&preset=random'); // random weights: Q reads the word, not only its position
    let view = await waitForView(page, (v) => v.reference === 'none', 'first result, nothing to compare with');

    // Pin "the cat sat", then type "the dog sat" keystroke by keystroke.
    await inView(page, 'button[data-action="pin"]').click();
    await waitForView(page, (v) => v.reference === 'pinned' && v.baseline === 'the cat sat', 'pinned');
    await page.locator('#setting-text').fill('');
    await page.locator('#setting-text').pressSequentially('the dog sat', { delay: 30 });
    view = await waitForView(page, (v) => v.current === 'the dog sat' && v.caption !== null, 'typed "the dog sat"');
    assert.equal(view.reference, 'pinned');
    assert.equal(view.baseline, 'the cat sat');
    assert.match(view.caption, /“cat” → “dog” at position 1\./);
    assert.match(view.caption, /layer 0:/);
    assert.deepEqual(view.tokens, ['the', 'dog', 'sat']);
    assert.equal(view.linear, '010', 'layer 0: the linear layer moves the edited row only');

    // More keystrokes: still against "the cat sat", not against the keystroke before.
    await page.locator('#setting-text').press('End');
    await page.keyboard.press('Backspace');
    await page.keyboard.press('Backspace');
    await page.keyboard.type('it', { delay: 30 });
    view = await waitForView(page, (v) => v.current === 'the dog sit' && v.caption !== null, 'typed "the dog sit"');
    assert.equal(view.baseline, 'the cat sat');
    assert.match(view.caption, /“cat” → “dog” at position 1, “sat” → “sit” at position 2\./);
    assert.equal(view.linear, '011');
    // A word more: the token counts differ, and the view says so (the baseline stays pinned).
    await page.keyboard.type(' on', { delay: 30 });
    view = await waitForView(page, (v) => v.current === 'the dog sit on' && v.incomparable !== null, 'four tokens');
    assert.match(view.incomparable, /it has 3 tokens, this result 4 tokens/);
    assert.equal(view.reference, 'pinned');
    assert.equal(view.baseline, 'the cat sat');
    for (let i = 0; i < 3; i++) await page.keyboard.press('Backspace');
    const layer0 = await waitForView(
      page,
      (v) => v.current === 'the dog sit' && v.caption !== null,
      'back to three tokens',
    );

    // The Layer control: the comparison is of that layer's rows.
    await page.locator('#setting-layer').fill('1');
    const layer1 = (view = await waitForView(page, (v) => v.layer === 1 && v.caption !== null, 'layer 1'));
    assert.match(view.comparedLayer, /^layer 1\b/);
    assert.match(view.caption, /layer 1:/);
    assert.equal(view.baseline, 'the cat sat');
    assert.notEqual(view.numbers, layer0.numbers, 'layer 1 moves by other amounts than layer 0');
    // Layer 1's input already mixed the tokens in layer 0: even its linear layer moves the unedited first row.
    assert.equal(view.linear, '111');
    await page.screenshot({ path: `${SHOTS}/what-changed-layer1.png`, fullPage: true });

    // A view-only setting (the stage, on another tab) keeps the baseline and the layer.
    await page.locator('button[data-view="heads"]').click();
    await page.locator('#setting-stage').selectOption('scores');
    await page.locator('button[data-view="changes"]').click();
    view = await waitForView(page, (v) => v.caption !== null, 'back on What changed');
    assert.equal(view.reference, 'pinned');
    assert.equal(view.baseline, 'the cat sat');
    assert.equal(view.layer, 1);
    assert.equal(view.numbers, layer1.numbers);

    // Shapes change (2 heads instead of 4): said explicitly; back to 4 heads: compared again.
    await page.locator('#setting-heads').fill('2');
    view = await waitForView(page, (v) => v.incomparable !== null, 'two heads');
    assert.match(view.incomparable, /it has 4 heads, this result 2 heads/);
    assert.equal(view.reference, 'pinned');
    await page.screenshot({ path: `${SHOTS}/what-changed-incomparable.png`, fullPage: true });
    await page.locator('#setting-heads').fill('4');
    view = await waitForView(page, (v) => v.caption !== null, 'four heads again');
    assert.equal(view.baseline, 'the cat sat');
    assert.equal(view.numbers, layer1.numbers);

    // Another seed keeps the shapes: still compared, and the view says the weights differ too.
    await page.locator('#setting-seed').fill('7');
    view = await waitForView(page, (v) => v.settingsDiffer !== null, 'another seed');
    assert.match(view.settingsDiffer, /seed/);
    assert.equal(view.baseline, 'the cat sat');

    // Unpin: back to comparing with the previous result.
    await inView(page, 'button[data-action="unpin"]').click();
    await page.locator('#setting-text').fill('the dog sat');
    view = await waitForView(page, (v) => v.current === 'the dog sat' && v.caption !== null, 'unpinned, then edited');
    assert.equal(view.reference, 'previous');
    assert.equal(view.baseline, 'the dog sit');
    assert.match(view.caption, /Edited: “sit” → “sat” at position 2\./);
    assert.equal(await inView(page, 'button[data-action="unpin"]').count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('on the first view\u2019s positional heads (a link), the view says they hide its point; Q ignores the word; an edit in another sentence is named', async () => {
    const { page, errors } = await site.open('#view=changes'); // the page's defaults: Positional heads, two sentences
    await waitForView(page, (v) => v.reference === 'none', 'first result');
    // A link keeps the weights it names (here the page's): the view says why they hide its point, one click from better.
    assert.match(
      (await page.locator('[data-testid="lesson-hidden"]').textContent()).replace(/\s+/g, ' '),
      /These weights \(Positional heads\) hide this view’s point: they attend by position whatever the words are/,
    );
    const [first, second] = (await page.locator('#setting-text').inputValue()).split('\n');
    await page.locator('#setting-text').fill(`${first.replace('cat', 'dog')}\n${second}`);
    let view = await waitForView(page, (v) => v.caption !== null, 'cat → dog');
    assert.match(view.caption, /“cat” → “dog” at position 1\./);
    // W_q of the positional preset reads positions only: no row of Q moves, not even the edited one; V moves that row only.
    assert.equal(view.linear, '000000');
    assert.equal(view.value, '010000');
    assert.match(
      view.qIgnoresWords,
      /Q did not move, not even in the edited row: this model’s W_q reads only the positions/,
    );

    // Edit the second sentence while the first is shown: the view says where the edit is instead of "nothing moved".
    await page.locator('#setting-text').fill(`${first.replace('cat', 'dog')}\n${second.replace('barked', 'slept')}`);
    view = await waitForView(page, (v) => v.editElsewhere !== null, 'an edit in sentence 2');
    assert.match(view.editElsewhere, /Sentence 1, the one shown, is the same in both: the edit is in sentence 2\./);
    await page.locator('#setting-sequence').selectOption('1');
    view = await waitForView(page, (v) => v.caption !== null, 'sentence 2 shown');
    assert.match(view.caption, /“barked” → “slept” at position 2\./);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('typed text is shown as text, never as markup', async () => {
    const { page, errors } = await site.open('#text=the+cat+sat&view=changes&preset=random'); // random weights: Q reads the word, not only its position
    await waitForView(page, (v) => v.reference === 'none', 'first result');
    await inView(page, 'button[data-action="pin"]').click();
    await page.locator('#setting-text').fill('the <b>dog</b> sat');
    const view = await waitForView(page, (v) => v.current === 'the <b>dog</b> sat', 'markup typed');
    assert.equal(view.baseline, 'the cat sat');
    assert.equal(await inView(page, '[data-testid="baseline-bar"] b').count(), 0);
    assert.deepEqual(errors, []);
    await page.close();
  });
});

/** The playground view's why note and the Weights setting. */
const noteAndWeights = async (page) => ({
  ...(await page.evaluate(() => {
    const root = document.querySelector('ap-playground').shadowRoot;
    const note = root.querySelector('[data-testid="why-note"]');
    return {
      view: note?.dataset.view ?? null,
      note: note?.textContent.replace(/\s+/g, ' ').trim() ?? null,
      hidden: root.querySelector('[data-testid="lesson-hidden"]') !== null,
    };
  })),
  preset: await page.locator('#setting-preset').inputValue(),
});

async function until(page, read, ok, what) {
  let last;
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    last = await read();
    if (ok(last)) return last;
    await page.waitForTimeout(50);
  }
  assert.fail(`${what}: last seen ${JSON.stringify(last)}`);
}

describe('why notes and the lessons\u2019 weights', () => {
  test('every view shows its own note, which changes with the view', async () => {
    const { page, errors } = await site.open();
    await page.locator('ap-heatmap').first().waitFor();
    const views = await page.locator('button[data-view]').evaluateAll((bs) => bs.map((b) => b.dataset.view));
    assert.equal(views.length, 12);
    const seen = new Set();
    for (const view of views) {
      await page.locator(`button[data-view="${view}"]`).click();
      const v = await until(
        page,
        () => noteAndWeights(page),
        (x) => x.view === view,
        `the note of ${view}`,
      );
      assert.ok(v.note.length > 40, `${view}: ${v.note}`);
      assert.ok(!seen.has(v.note), `${view} repeats another view\u2019s note`);
      seen.add(v.note);
    }
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('Row by row brings random weights: different words get different Q rows, K is not zero, the repeated word\u2019s Q rows are equal', async () => {
    const { page, errors } = await site.open();
    await page.locator('ap-heatmap').first().waitFor();
    assert.equal((await noteAndWeights(page)).preset, 'positional');
    await page.locator('button[data-view="rows"]').click();
    let v = await until(
      page,
      () => noteAndWeights(page),
      (x) => x.view === 'rows',
      'Row by row',
    );
    assert.equal(v.preset, 'random', 'switching to Row by row switches the weights');
    assert.match(v.note, /Weights: Random \(Xavier\) here, since with “Positional heads” their W_q and W_k read only/);
    assert.match(new URL(page.url()).hash, /preset=random/, 'the link says so too');
    await page.locator('input[name="positional"]').uncheck();
    const read = () =>
      page.locator('ap-row-wise').evaluate((el) => {
        const root = el.shadowRoot;
        const matrix = (name) => {
          const m = root.querySelector(`figure[data-matrix="${name}"] ap-matrix`);
          return m ? { rows: m.rows, cols: m.cols, values: Array.from(m.values) } : null;
        };
        return {
          q: matrix('q_proj'),
          k: matrix('k_proj'),
          verdict: root.querySelector('[data-verdict]')?.dataset.verdict,
        };
      });
    const r = await until(page, read, (x) => x.verdict === 'row-wise', 'equal input rows for "the"');
    const row = (m, i) => m.values.slice(i * m.cols, (i + 1) * m.cols);
    const maxDiff = (a, b) => Math.max(...a.map((x, f) => Math.abs(x - b[f])));
    // "the cat sat on the mat": rows 0 and 4 are "the"; every other pair holds two different words.
    assert.equal(maxDiff(row(r.q, 0), row(r.q, 4)), 0);
    for (let a = 0; a < 6; a++)
      for (let b = a + 1; b < 6; b++)
        if (!(a === 0 && b === 4)) assert.ok(maxDiff(row(r.q, a), row(r.q, b)) > 0.1, `Q rows ${a} and ${b}`);
    assert.ok(Math.max(...r.k.values.map(Math.abs)) > 0.1, 'K is not all zeros');
    // Back to Positional heads by hand: the view says why they hide its point, and its button brings random weights back.
    await page.locator('#setting-preset').selectOption('positional');
    v = await until(
      page,
      () => noteAndWeights(page),
      (x) => x.hidden,
      'the hidden-point warning',
    );
    assert.match(
      (await page.locator('[data-testid="lesson-hidden"]').textContent()).replace(/\s+/g, ' '),
      /every Q row is the same and K is all zeros/,
    );
    await page.locator('button[data-action="lesson-weights"]').click();
    v = await until(
      page,
      () => noteAndWeights(page),
      (x) => x.preset === 'random' && !x.hidden,
      'random again',
    );
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the lessons\u2019 weights are a visit: back on softmax the positional heads and the link return, End included', async () => {
    const { page, errors } = await site.open();
    await page.locator('ap-heatmap').first().waitFor();
    const hash = () => new URL(page.url()).hash;
    const before = hash();
    assert.equal((await noteAndWeights(page)).preset, 'positional');
    assert.doesNotMatch(before, /preset=/);
    const stepIs = (step) =>
      page.waitForFunction(
        (s) =>
          document.querySelector('ap-playground').shadowRoot.querySelector('[role="tab"][aria-selected="true"]')
            ?.dataset.step === s,
        step,
      );
    // By mouse: Row by row, What changed (random weights), then softmax: Positional heads again, and the link as before.
    await page.locator('ap-playground button[data-view="rows"]').click();
    await until(
      page,
      () => noteAndWeights(page),
      (x) => x.view === 'rows' && x.preset === 'random',
      'Row by row',
    );
    await page.locator('ap-playground button[data-view="changes"]').click();
    await until(
      page,
      () => noteAndWeights(page),
      (x) => x.view === 'changes' && x.preset === 'random',
      'What changed',
    );
    assert.match(hash(), /preset=random/);
    await page.locator('ap-playground button[data-step="weights"]').click();
    await stepIs('weights');
    await until(
      page,
      () => noteAndWeights(page),
      (x) => x.preset === 'positional',
      'softmax: positional again',
    );
    await page.waitForFunction(() => !location.hash.includes('preset='));
    // By keyboard: End lands on What changed (random), Home goes back to the first step (positional again).
    await page.locator('ap-playground button[data-step="weights"]').focus();
    await page.keyboard.press('End');
    await until(
      page,
      () => noteAndWeights(page),
      (x) => x.view === 'changes' && x.preset === 'random',
      'End',
    );
    await page.keyboard.press('Home');
    await until(
      page,
      () => noteAndWeights(page),
      (x) => x.view !== 'changes' && x.preset === 'positional',
      'Home',
    );
    // Weights the person picks on a lesson view stay theirs when they leave it.
    await page.locator('ap-playground button[data-view="changes"]').click();
    await until(
      page,
      () => noteAndWeights(page),
      (x) => x.view === 'changes' && x.preset === 'random',
      'again',
    );
    await page.locator('#setting-preset').selectOption('identity');
    await page.locator('ap-playground button[data-step="weights"]').click();
    await stepIs('weights');
    await page.waitForTimeout(200);
    assert.equal((await noteAndWeights(page)).preset, 'identity');
    assert.match(hash(), /preset=identity/);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('What changed brings random weights: the edited word\u2019s own output moves by more than 0.5, the weights and the FFN move', async () => {
    const { page, errors } = await site.open();
    await page.locator('ap-heatmap').first().waitFor();
    await page.locator('button[data-view="changes"]').click();
    await until(
      page,
      () => noteAndWeights(page),
      (x) => x.view === 'changes' && x.preset === 'random',
      'What changed',
    );
    // Only the weights changed so far: the view says so instead of a table of rows no edit moved.
    await page.locator('[data-testid="settings-only"]').waitFor();
    await page.locator('#setting-text').fill('the dog sat on the mat\na dog barked');
    const read = () =>
      page.evaluate(() => {
        const view = document.querySelector('ap-playground').shadowRoot.querySelector('.view[data-view="changes"]');
        const rows = [...(view?.querySelectorAll('table.changes tbody tr') ?? [])];
        return {
          own: Number(view?.querySelector('[data-testid="own-output"]')?.dataset.value ?? NaN),
          weights: rows.map((r) => r.dataset.weightsChanged).join(''),
          ffn: rows.map((r) => Number(r.dataset.ffn)),
          settings: view?.querySelector('[data-testid="settings-differ"]') !== null,
        };
      });
    const v = await until(page, read, (x) => x.ffn.length === 6, 'cat -> dog compared');
    assert.equal(v.settings, false, 'the same weights on both sides');
    assert.ok(v.own > 0.5, `the edited word\u2019s own attention output moved ${v.own}`);
    assert.equal(v.weights, '111111');
    assert.ok(v.ffn[1] > 3 * Math.max(...v.ffn.filter((_, i) => i !== 1)), `FFN rows ${v.ffn}`);
    // Each number stays on its bar's line (walk item 13: they wrapped under the bars in the V and FFN-input columns).
    const wrapped = await page.evaluate(() =>
      [
        ...document
          .querySelector('ap-playground')
          .shadowRoot.querySelectorAll('.view[data-view="changes"] table.changes td .bar'),
      ]
        .map((bar) => {
          const num = bar.nextElementSibling.getBoundingClientRect();
          const b = bar.getBoundingClientRect();
          return {
            text: bar.nextElementSibling.textContent,
            dy: Math.abs(num.top + num.height / 2 - (b.top + b.height / 2)),
          };
        })
        .filter((x) => x.dy > 4),
    );
    assert.deepEqual(wrapped, [], 'numbers under their bars');
    await page.screenshot({ path: `${SHOTS}/what-changed-ffn.png`, fullPage: true });
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('Row by row on a phone wraps every caption inside the screen; on a trained model it advises only what that model allows', async () => {
    const { page, errors } = await site.open('#view=rows&preset=random', {
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
    });
    const view = page.locator('ap-row-wise');
    await view.locator('[data-verdict]').waitFor();
    // No text of the view is cut: every caption, note and formula fits its box, and the view fits the screen.
    const cut = await view.evaluate((el) => {
      const root = el.shadowRoot;
      const texts = [...root.querySelectorAll('p, figcaption, caption, .table-caption')];
      const box = el.getBoundingClientRect();
      return {
        cut: texts
          .filter((t) => t.scrollWidth > t.clientWidth + 1 || t.getBoundingClientRect().right > window.innerWidth + 1)
          .map((t) => t.textContent.slice(0, 60)),
        right: box.right,
        width: window.innerWidth,
      };
    });
    assert.deepEqual(cut.cut, []);
    assert.ok(cut.right <= cut.width + 1, `the view ends at ${cut.right} of ${cut.width}`);
    await page.screenshot({ path: `${SHOTS}/rows-phone.png`, fullPage: true });

    // A trained model's positions are part of it: no advice to untick positional encoding.
    await page.goto(`${site.url}#model=reverse&view=rows`);
    await page.reload();
    const verdict = view.locator('[data-verdict="input-differs"]');
    await verdict.waitFor();
    const text = await verdict.textContent();
    assert.doesNotMatch(text, /^\s*Untick|\. Untick/);
    assert.match(text, /This model was built with its positions and cannot drop them/);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
