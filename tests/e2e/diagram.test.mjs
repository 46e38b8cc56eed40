// Issue 31, "A picture first" and "A visual design": the block diagram above the view is the way to
// every view (its boxes are tabs of one tab list, the views that are no step of the block in a row
// beside it), by mouse and by keyboard, with the step on screen selected; its arrows carry the shapes
// of the trace on screen and it follows the block and the model's settings; on a phone a heatmap is
// on the first screen; the dark theme follows the system, toggles and persists, and body text keeps
// a contrast of at least 4.5 : 1 in both themes. Screenshots of every view at 1400 x 1000 and
// 390 x 844, light and dark: test-output/screenshots/view-<view>-<width>-<theme>.png.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { openPage } from '../support/browser.mjs';
import { SHOTS, useSite } from '../support/site.mjs';

const site = useSite();

/** The views of the settings table (web/src/settings/settings.ts VIEWS), in its order. */
const VIEWS = [
  'heads',
  'head',
  'lines',
  'masks',
  'shapes',
  'rows',
  'split',
  'positions',
  'steps',
  'values',
  'overview',
  'changes',
];
/** What each view draws once it is done. */
const DRAWN = {
  heads: 'ap-heatmap',
  head: 'ap-heatmap',
  lines: 'ap-line-view',
  masks: 'ap-heatmap[data-mask]',
  shapes: 'ap-shape-flow',
  rows: 'ap-row-wise',
  split: 'ap-head-split',
  positions: 'ap-positions',
  steps: 'ap-head-walk',
  values: 'ap-tensor-view',
  overview: 'ap-overview',
  changes: 'table.changes, p.hint',
};

async function open(hash = '', { viewport = { width: 1400, height: 1000 }, colorScheme = 'light' } = {}) {
  const { page, errors } = await openPage(site.browser, { viewport, colorScheme }, { onlyFrom: site.url });
  await page.goto(site.url + hash);
  await page.locator('.diagram [role="tab"]').first().waitFor();
  return { page, errors };
}

/** The diagram's tabs and the tab panel, as the page has them now. */
const look = (page) =>
  page.evaluate(() => {
    const root = document.querySelector('ap-playground').shadowRoot;
    const tabs = [...root.querySelectorAll('.diagram [role="tab"]')];
    const panel = root.querySelector('[role="tabpanel"]');
    return {
      tabs: tabs.map((t) => ({
        id: t.id,
        step: t.dataset.step,
        view: t.dataset.view ?? null,
        text: t.textContent.trim(),
      })),
      selected: tabs.filter((t) => t.getAttribute('aria-selected') === 'true').map((t) => t.dataset.step),
      inTabOrder: tabs.filter((t) => t.tabIndex === 0).map((t) => t.dataset.step),
      focused: root.activeElement?.dataset.step ?? null,
      controls: [...new Set(tabs.map((t) => t.getAttribute('aria-controls')))],
      panelId: panel?.id,
      labelledBy: panel?.getAttribute('aria-labelledby'),
      selectedId: tabs.find((t) => t.getAttribute('aria-selected') === 'true')?.id,
      view: root.querySelector('.view')?.dataset.view,
      stage: root.querySelector('#setting-stage')?.value ?? null,
      tensor: root.querySelector('ap-tensor-view')?.tensor ?? null,
    };
  });

const viewIs = (page, view) =>
  page.waitForFunction(
    (v) => document.querySelector('ap-playground').shadowRoot.querySelector('.view')?.dataset.view === v,
    view,
  );

const settled = (page) =>
  page.waitForFunction(
    () => document.querySelector('ap-playground').shadowRoot.querySelector('.view')?.dataset.stale === '0',
  );

/** The diagram's steps (data-step) in order. */
const steps = async (page) => (await look(page)).tabs.map((t) => t.step);

describe('the block diagram', () => {
  test('every view has one control marked with it, and a click opens it with the aria state right', async () => {
    const { page, errors } = await open('#text=the+cat+sat+on+the+mat%0Aa+dog+barked');
    let state = await look(page);
    const homes = state.tabs.filter((t) => t.view).map((t) => t.view);
    assert.deepEqual([...homes].sort(), [...VIEWS].sort(), 'each view once');
    assert.deepEqual(state.selected, ['weights'], 'the first view: softmax weights, on the softmax box');
    assert.deepEqual(state.inTabOrder, ['weights']);
    assert.deepEqual(state.controls, [state.panelId]);
    assert.equal(state.labelledBy, state.selectedId);
    for (const view of VIEWS) {
      await page.locator(`button[data-view="${view}"]`).click();
      await viewIs(page, view);
      await page.locator(`ap-playground .view[data-view="${view}"] :is(${DRAWN[view]})`).first().waitFor();
      state = await look(page);
      const control = state.tabs.find((t) => t.view === view);
      assert.deepEqual([state.selected, state.inTabOrder], [[control.step], [control.step]], view);
      assert.equal(state.labelledBy, control.id, `${view}: the panel is labelled by its control`);
      assert.equal(state.view, view);
    }
    // The boxes of the per-head steps open the heatmaps at their stage, and the mask box the Masks view.
    for (const [step, view, stage] of [
      ['scores', 'heads', 'scores'],
      ['scaled', 'heads', 'scaled'],
      ['mask', 'masks', null],
      ['weights', 'heads', 'weights'],
    ]) {
      await page.locator(`ap-playground button[data-step="${step}"]`).click();
      await viewIs(page, view);
      state = await look(page);
      assert.deepEqual(state.selected, [step], step);
      if (stage) assert.equal(state.stage, stage, step);
    }
    // A step shown in the Values view: its box is the one selected, and the Values view shows its tensor.
    await page.locator('ap-playground button[data-step="ffn"]').click();
    await viewIs(page, 'values');
    await page.locator('ap-tensor-view').waitFor();
    state = await look(page);
    assert.deepEqual([state.selected, state.tensor], [['ffn'], 'ffn.hidden']);
    // Picking the masked stage from the menu highlights the mask step.
    await page.locator('ap-playground button[data-step="weights"]').click();
    await page.locator('#setting-stage').selectOption('masked');
    await page.waitForFunction(() => location.hash.includes('stage=masked'));
    assert.deepEqual((await look(page)).selected, ['mask']);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the keyboard reaches every view: Tab lands on the step on screen, the arrows move and open', async () => {
    const { page, errors } = await open('#text=the+cat+sat+on+the+mat%0Aa+dog+barked');
    // Tab from the text box: the first control after it in the Tab order is the selected step (one tab stop).
    await page.locator('#setting-text').focus();
    for (let i = 0; i < 40 && !(await look(page)).focused; i++) await page.keyboard.press('Tab');
    let state = await look(page);
    assert.equal(state.focused, 'weights', 'Tab enters the tab list at the selected box');
    const order = await steps(page);
    const seen = new Set();
    // Walk right through every control and once round: each step focused, selected and shown.
    for (let i = 1; i <= order.length; i++) {
      const expected = order[(order.indexOf('weights') + i) % order.length];
      await page.keyboard.press('ArrowRight');
      await page.waitForFunction(
        (step) =>
          document.querySelector('ap-playground').shadowRoot.querySelector('[role="tab"][aria-selected="true"]')
            ?.dataset.step === step,
        expected,
      );
      state = await look(page);
      assert.deepEqual([state.focused, state.selected, state.inTabOrder], [expected, [expected], [expected]], expected);
      assert.equal(state.labelledBy, state.selectedId);
      seen.add(state.view);
    }
    assert.deepEqual([...seen].sort(), [...VIEWS].sort(), 'the arrows reach every view');
    // Home and End; left wraps from the first to the last.
    await page.keyboard.press('Home');
    await page.waitForFunction(
      (step) => document.querySelector('ap-playground').shadowRoot.activeElement?.dataset.step === step,
      order[0],
    );
    await page.keyboard.press('ArrowLeft');
    await page.waitForFunction(
      (step) => document.querySelector('ap-playground').shadowRoot.activeElement?.dataset.step === step,
      order.at(-1),
    );
    assert.deepEqual((await look(page)).selected, [order.at(-1)]);
    // Enter on a focused box opens it too (a button): back to softmax by arrows, then Enter.
    await page.locator('ap-playground button[data-step="scores"]').focus();
    await page.keyboard.press('Enter');
    await viewIs(page, 'heads');
    assert.deepEqual([(await look(page)).selected, (await look(page)).stage], [['scores'], 'scores']);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the arrows carry the trace’s shapes, and follow d_model and heads', async () => {
    const { page, errors } = await open('#text=the+cat+sat+on+the+mat%0Aa+dog+barked');
    /** Each shaped arrow (the box before it, its axes and sizes) beside the recorded stage that box stands for. */
    const arrows = () =>
      page.evaluate(() => {
        const el = document.querySelector('ap-playground');
        const trace = el.trace;
        const find = (name) =>
          trace.stages.find((s) => s.name === name && s.layer === (name.endsWith('.input') ? -1 : 0));
        const stageOf = {
          x: 'encoder.input',
          qkv: 'encoder.self_attn.q_proj',
          split: 'encoder.self_attn.q_heads',
          scores: 'encoder.self_attn.scores',
          weights: 'encoder.self_attn.weights',
          context: 'encoder.self_attn.context',
          output: 'encoder.self_attn.output',
          residual1: 'encoder.residual1',
          ffn: 'encoder.ffn.output',
          residual2: 'encoder.residual2',
        };
        return [...el.shadowRoot.querySelectorAll('.diagram .arrow.shaped')].map((arrow) => {
          const step = arrow
            .closest('.unit')
            .querySelector(':scope > [role="tab"], .per-head-steps > .unit:last-child > [role="tab"]').dataset.step;
          const stage = find(stageOf[step]);
          return {
            step,
            shown: [arrow.dataset.axes, arrow.dataset.dims, arrow.querySelector('.dims').textContent],
            trace: stage && [stage.axes.join(','), stage.shape.join(','), stage.shape.join('×')],
          };
        });
      });
    const sizes = () =>
      page.evaluate(() =>
        Object.fromEntries(
          [
            ...document
              .querySelector('ap-playground')
              .shadowRoot.querySelectorAll('[data-testid="diagram-sizes"] [data-axis]'),
          ].map((s) => [s.dataset.axis, s.textContent.replace(/\s+/g, ' ').trim()]),
        ),
      );
    let shown = await arrows();
    assert.ok(shown.length >= 6, `${shown.length} shaped arrows`);
    for (const a of shown) assert.deepEqual(a.shown, a.trace, a.step);
    assert.deepEqual(
      shown.find((a) => a.step === 'split').shown,
      ['B,H,Sq,d_k', '2,4,6,16', '2×4×6×16'],
      'Q per head: (B, H, Sq, d_k) = (2, 4, 6, 16)',
    );
    assert.equal((await sizes()).E, 'E = 64');
    // d_model 32 and 2 heads: d_k = 16 still, H = 2, E = 32 on every arrow that carries them.
    await page.locator('#setting-dModel').fill('32');
    await page.locator('#setting-heads').fill('2');
    await page.waitForFunction(
      () =>
        document
          .querySelector('ap-playground')
          .shadowRoot.querySelector('.diagram [data-step="split"]')
          ?.closest('.unit')
          .querySelector('.arrow')?.dataset.dims === '2,2,6,16',
    );
    await settled(page);
    shown = await arrows();
    for (const a of shown) assert.deepEqual(a.shown, a.trace, a.step);
    assert.deepEqual(shown.find((a) => a.step === 'x').shown, ['B,S,E', '2,6,32', '2×6×32']);
    assert.deepEqual(shown.find((a) => a.step === 'scores').shown, ['B,H,Sq,Sk', '2,2,6,6', '2×2×6×6']);
    const now = await sizes();
    assert.deepEqual([now.E, now.H, now.d_k, now.F], ['E = 32', 'H = 2', 'dk = 16', 'F = 128']);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the diagram follows the block and the settings: mask, scaling, residuals, norm order, cross-attention', async () => {
    const cases = [
      // One sentence, encoder: nothing is blocked, so there is no mask box and the Masks view sits beside the diagram.
      ['#text=the+cat+sat', (s) => !s.includes('mask'), 'no mask box without a mask'],
      ['#text=the+cat+sat&mode=decoder', (s) => s.includes('mask'), 'the causal mask'],
      ['#text=the+cat+sat&scale=0', (s) => !s.includes('scaled') && s.includes('scores'), 'no ÷√d_k without scaling'],
      ['#text=the+cat+sat&residual=0', (s) => !s.some((x) => x.startsWith('residual')), 'no + x without residuals'],
      [
        '#text=the+cat+sat&norm=pre',
        (s) => s.indexOf('norm1') < s.indexOf('qkv') && s.indexOf('norm2') < s.indexOf('ffn'),
        'pre-LN: each norm before its sub-layer',
      ],
      [
        '#text=the+cat+sat',
        (s) => s.indexOf('norm1') > s.indexOf('residual1') && s.indexOf('norm2') > s.indexOf('residual2'),
        'post-LN: each norm after its add',
      ],
    ];
    for (const [hash, holds, what] of cases) {
      const { page, errors } = await open(hash);
      await settled(page);
      const order = await steps(page);
      assert.ok(holds(order), `${what}: ${order.join(' ')}`);
      if (what.startsWith('no mask'))
        assert.equal(await page.locator('button[data-view="masks"]').getAttribute('class'), 'extra');
      assert.deepEqual(errors, []);
      await page.close();
    }
    // Cross-attention: the caption names the block, the mask is padding only (no causal mask) and the steps switch it.
    const { page, errors } = await open(
      '#mode=cross&text=the+cat+sat%0Aa+dog&source=le+chat%0Aun+chien+a+aboy%C3%A9&block=decoder.cross_attn',
    );
    await settled(page);
    assert.match(
      await page.locator('[data-testid="diagram-sizes"]').textContent(),
      /Decoder layer 0 · cross-attention/,
    );
    assert.match(await page.locator('[data-testid="diagram-sizes"]').textContent(), /Sk = 4/);
    // K and V come from the source: a second input, the encoder's last output (B, Sk, E) from the trace, drawn into
    // W_q W_k W_v; the queries from x (the arrow into the box along the row).
    const source = await page.evaluate(() => {
      const el = document.querySelector('ap-playground');
      const outputs = el.trace.stages.filter((st) => st.name === 'encoder.output');
      const memory = outputs.reduce((a, st) => (!a || st.layer > a.layer ? st : a), null);
      const feed = el.shadowRoot.querySelector('.has-source .feed');
      const tab = el.shadowRoot.querySelector('[data-step="source"]').getBoundingClientRect();
      const qkv = el.shadowRoot.querySelector('[data-step="qkv"]').getBoundingClientRect();
      return {
        feed: feed && [feed.dataset.axes, feed.dataset.dims, feed.textContent.replace(/\s+/g, ' ').trim()],
        memory: memory.shape.join(','),
        above: tab.bottom <= qkv.top && tab.left < qkv.right && tab.right > qkv.left,
      };
    });
    assert.deepEqual(source.feed.slice(0, 2), ['B,Sk,E', source.memory]);
    assert.match(source.feed[2], /K, V/);
    assert.ok(source.above, 'the source is drawn above W_q W_k W_v');
    let order = await steps(page);
    assert.ok(order.indexOf('self-attention') < order.indexOf('source'), order.join(' '));
    assert.ok(order.indexOf('source') < order.indexOf('qkv'), order.join(' '));
    await page.locator('ap-playground button[data-step="split"]').click();
    await viewIs(page, 'split');
    assert.equal(await page.locator('#setting-block').inputValue(), 'decoder.cross_attn');
    // The decoder's self-attention sub-layer is one box before it; a click draws that block, with cross-attention
    // folded into one box after its add and norm.
    order = await steps(page);
    assert.ok(order.indexOf('self-attention') < order.indexOf('qkv'), order.join(' '));
    await page.locator('ap-playground button[data-step="self-attention"]').click();
    await viewIs(page, 'heads');
    await page
      .locator('[data-testid="diagram-sizes"]')
      .filter({ hasText: /Decoder layer 0 · self-attention/ })
      .waitFor();
    assert.equal(await page.locator('#setting-block').inputValue(), 'decoder.self_attn');
    order = await steps(page);
    assert.ok(order.indexOf('norm1') < order.indexOf('cross-attention'), order.join(' '));
    assert.ok(order.indexOf('cross-attention') < order.indexOf('ffn'), order.join(' '));
    assert.ok(order.includes('mask'), 'the causal mask of the decoder’s self-attention');
    assert.ok(!order.includes('source'), 'self-attention reads only x: no source');
    // The source box opens the encoder's output in the Values view.
    await page.locator('ap-playground button[data-step="cross-attention"]').click();
    await page.locator('ap-playground button[data-step="source"]').click();
    await viewIs(page, 'values');
    assert.equal(await page.locator('#setting-block').inputValue(), 'encoder.self_attn');
    assert.equal((await look(page)).tensor, 'output');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('one notation (dₖ), a wrapped row drawn as a connection, and the diagram before the settings in the Tab order', async () => {
    for (const width of [1400, 1024]) {
      const { page, errors } = await open('#text=the+cat+sat+on+the+mat%0Aa+dog+barked', {
        viewport: { width, height: 1000 },
      });
      await settled(page);
      const drawn = await page.evaluate(() => {
        const root = document.querySelector('ap-playground').shadowRoot;
        const units = [...root.querySelectorAll('.diagram .flow > .unit')];
        const rows = [];
        for (const unit of units) {
          const r = unit.getBoundingClientRect();
          const prev = rows.at(-1);
          if (!prev || r.top >= prev.bottom - 2) rows.push({ first: unit, last: unit, bottom: r.bottom });
          else Object.assign(prev, { last: unit, bottom: Math.max(prev.bottom, r.bottom) });
        }
        return {
          rows: rows.length,
          // every row after the first starts with a box marked as coming in, and the row before ends in a turning arrow
          starts: rows.slice(1).map((row) => row.first.hasAttribute('data-wrapped')),
          ends: rows.slice(0, -1).map((row) => !!row.last.querySelector(':scope > .arrow[data-wraps]')),
          marked: units.filter((u) => u.hasAttribute('data-wrapped')).length,
          incoming: rows.slice(1).map((row) => getComputedStyle(row.first, '::before').content),
          axes: [...root.querySelectorAll('.diagram .arrow .axes')].map((a) => a.textContent),
          subscripts: [...root.querySelectorAll('.diagram .arrow .axes sub')].map((a) => a.textContent),
        };
      });
      assert.ok(drawn.rows >= 2, `${width}: the diagram wraps (${drawn.rows} rows)`);
      assert.deepEqual(drawn.starts, Array(drawn.rows - 1).fill(true), `${width}: each new row marked`);
      assert.deepEqual(drawn.ends, Array(drawn.rows - 1).fill(true), `${width}: each row’s end turns down`);
      assert.equal(drawn.marked, drawn.rows - 1, `${width}: only the rows' first boxes`);
      assert.ok(
        drawn.incoming.every((c) => c.includes('↳')),
        `${width}: ${drawn.incoming}`,
      );
      assert.ok(
        drawn.axes.every((a) => !a.includes('_')),
        `no d_k on the arrows: ${drawn.axes}`,
      );
      assert.ok(drawn.subscripts.includes('k'), 'dₖ written with a subscript, as in the ÷√dₖ box');
      assert.deepEqual(errors, []);
      await page.close();
    }
    // The Tab order: from the text box, the diagram's step comes before any of the model's settings (the aside).
    const { page, errors } = await open('#text=the+cat+sat');
    await settled(page);
    // Wider than a phone, the why note is at the top of the view, on the first screen, above the pictures.
    const [why, map] = await page.evaluate(() => {
      const root = document.querySelector('ap-playground').shadowRoot;
      return ['[data-testid="why-note"]', 'ap-heatmap'].map((q) => root.querySelector(q).getBoundingClientRect().top);
    });
    assert.ok(why < map && why < 1000, `the why note at ${why}px, the first heatmap at ${map}px`);
    await page.locator('#setting-text').focus();
    const visited = [];
    for (let i = 0; i < 60; i++) {
      await page.keyboard.press('Tab');
      const where = await page.evaluate(() => {
        let el = document.activeElement;
        const path = [];
        while (el?.shadowRoot?.activeElement) {
          path.push(el);
          el = el.shadowRoot.activeElement;
        }
        const root = document.querySelector('ap-playground').shadowRoot;
        const inAside = [el, ...path].some((e) => root.querySelector('aside')?.contains(e));
        return el?.getAttribute('role') === 'tab' && el.closest('.diagram')
          ? 'diagram'
          : inAside
            ? 'settings'
            : 'other';
      });
      visited.push(where);
      if (where === 'settings') break;
    }
    assert.ok(visited.includes('diagram'), `the diagram is in the Tab order: ${visited.join(' ')}`);
    assert.ok(visited.includes('settings'), `the settings come later: ${visited.join(' ')}`);
    assert.ok(visited.indexOf('diagram') < visited.indexOf('settings'), visited.join(' '));
    assert.ok(visited.indexOf('diagram') <= 1, `the diagram right after the text box: ${visited.join(' ')}`);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('on a phone a heatmap starts on the first screen, the diagram one row that scrolls, the settings after the view', async () => {
    const { page, errors } = await open('', { viewport: { width: 390, height: 844 } });
    await page.locator('ap-heatmap').first().waitFor();
    await settled(page);
    const layout = await page.evaluate(() => {
      const root = document.querySelector('ap-playground').shadowRoot;
      const map = root.querySelector('ap-heatmap').getBoundingClientRect();
      const flow = root.querySelector('.diagram .flow');
      const selected = root.querySelector('.diagram [aria-selected="true"]').getBoundingClientRect();
      const frame = flow.getBoundingClientRect();
      return {
        heatmapTop: map.top,
        flowHeight: frame.height,
        selectedInSight: selected.left >= frame.left - 1 && selected.right <= frame.right + 1,
        drawerTop: root.querySelector('[data-testid="settings-drawer"]').getBoundingClientRect().top,
        whyTop: root.querySelector('[data-testid="why-note"]').getBoundingClientRect().top,
        introHeight: document.querySelector('#intro').getBoundingClientRect().height,
        introLine: parseFloat(getComputedStyle(document.querySelector('#intro')).lineHeight),
        overflow: document.documentElement.scrollWidth - window.innerWidth,
      };
    });
    assert.ok(layout.heatmapTop < 844, `the first heatmap starts at ${layout.heatmapTop}px`);
    assert.ok(layout.flowHeight < 80, `the diagram is one row (${layout.flowHeight}px)`);
    assert.ok(layout.selectedInSight, 'the selected step is scrolled into sight');
    assert.ok(layout.drawerTop > layout.heatmapTop, 'the settings drawer comes after the view');
    assert.ok(layout.whyTop > layout.heatmapTop, 'the why note under the view, the heatmap above it');
    assert.ok(
      layout.introHeight > 0 && layout.introHeight < 1.6 * layout.introLine,
      `a one-line intro (${layout.introHeight}px)`,
    );
    assert.ok(layout.overflow <= 1, `the page is ${layout.overflow}px wider than the phone`);
    assert.deepEqual(errors, []);
    await page.close();
  });
});

/**
 * Every visible piece of text of the page (its own HTML and the shadow roots, not the SVG pictures) with its colour and
 * the background it sits on, and their contrast ratio (WCAG 2).
 */
const contrasts = (page) =>
  page.evaluate(() => {
    const parse = (c) => {
      const m = /rgba?\(([\d.]+),? ([\d.]+),? ([\d.]+)(?:,? \/? ?([\d.]+))?\)/.exec(c);
      return m ? [Number(m[1]), Number(m[2]), Number(m[3]), m[4] === undefined ? 1 : Number(m[4])] : null;
    };
    const lum = ([r, g, b]) => {
      const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
      return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
    };
    const parent = (el) => el.parentElement ?? el.getRootNode().host ?? null;
    const background = (el) => {
      for (let e = el; e; e = parent(e)) {
        const c = parse(getComputedStyle(e).backgroundColor);
        if (c && c[3] > 0.5) return c;
      }
      return parse(getComputedStyle(document.documentElement).backgroundColor) ?? [255, 255, 255, 1];
    };
    const dimmed = (el) => {
      for (let e = el; e; e = parent(e)) if (Number(getComputedStyle(e).opacity) < 1) return true;
      return false;
    };
    const out = [];
    const walk = (root) => {
      for (const el of root.querySelectorAll('*')) {
        if (el.shadowRoot) walk(el.shadowRoot);
        if (el.closest('svg') || ['SCRIPT', 'STYLE', 'OPTION'].includes(el.tagName)) continue;
        const text = [...el.childNodes]
          .filter((n) => n.nodeType === 3)
          .map((n) => n.textContent.trim())
          .join(' ')
          .trim();
        if (!text) continue;
        const r = el.getBoundingClientRect();
        if (r.width === 0 || r.height === 0 || el.closest('[disabled]') || el.matches(':disabled') || dimmed(el))
          continue;
        const fg = parse(getComputedStyle(el).color);
        const bg = background(el);
        const [a, b] = [lum(fg), lum(bg)].sort((x, y) => y - x);
        out.push({
          text: text.slice(0, 40),
          tag: el.localName,
          cls: String(el.className),
          ratio: (a + 0.05) / (b + 0.05),
        });
      }
    };
    walk(document);
    return out;
  });

describe('the themes', () => {
  test('the dark theme follows the system, toggles, persists, and body text has a contrast of 4.5 or more in both', async () => {
    const { page, errors } = await open('#text=the+cat+sat+on+the+mat%0Aa+dog+barked', { colorScheme: 'light' });
    await page.locator('ap-heatmap').first().waitFor();
    await settled(page);
    const theme = () =>
      page.evaluate(() => ({
        scheme: document.documentElement.dataset.theme,
        pressed: document.querySelector('#theme').getAttribute('aria-pressed'),
        body: getComputedStyle(document.body).backgroundColor,
        text: getComputedStyle(document.querySelector('ap-playground')).color,
      }));
    const light = await theme();
    assert.deepEqual([light.scheme, light.pressed, light.body], ['light', 'false', 'rgb(255, 255, 255)']);
    const check = async (name) => {
      const all = await contrasts(page);
      assert.ok(all.length > 60, `${name}: ${all.length} pieces of text measured`);
      for (const text of ['Attention Playground', 'Sentences (one per line = a batch)', 'softmax', 'Values', 'd_model'])
        assert.ok(
          all.some((c) => c.text === text),
          `${name}: "${text}" measured`,
        );
      const low = all.filter((c) => c.ratio < 4.5);
      assert.deepEqual(low, [], `${name}: text below 4.5 : 1`);
    };
    await check('light');
    await page.locator('#theme').click();
    const dark = await theme();
    assert.deepEqual([dark.scheme, dark.pressed], ['dark', 'true']);
    assert.notEqual(dark.body, light.body);
    assert.notEqual(dark.text, light.text);
    await check('dark');
    // Kept for the next visit.
    await page.reload();
    await page.locator('ap-heatmap').first().waitFor();
    assert.deepEqual(
      [(await theme()).scheme, (await theme()).pressed, (await theme()).body],
      ['dark', 'true', dark.body],
    );
    // And back.
    await page.locator('#theme').click();
    assert.equal((await theme()).body, light.body);
    await page.reload();
    await page.locator('ap-heatmap').first().waitFor();
    assert.equal((await theme()).scheme, 'light');
    assert.deepEqual(errors, []);
    await page.close();
    // With no choice made, the system's preference decides.
    const system = await open('#text=a+b', { colorScheme: 'dark' });
    assert.equal(await system.page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    assert.equal(await system.page.evaluate(() => getComputedStyle(document.body).backgroundColor), dark.body);
    await system.page.close();
  });

  test('in the dark theme the pictures are on dark paper with light labels, and an exported SVG stays light', async () => {
    // Random weights: the cells take every colour of the scale, and the numbers on them are printed.
    const { page, errors } = await open('#text=the+cat+sat+on+the+mat%0Aa+dog+barked&preset=random', {
      colorScheme: 'dark',
    });
    await page.locator('ap-heatmap').first().waitFor();
    await settled(page);
    const measured = await page.evaluate(() => {
      const parse = (c) => (/rgba?\(([\d.]+),? ([\d.]+),? ([\d.]+)/.exec(c) ?? []).slice(1, 4).map(Number);
      const lum = ([r, g, b]) => {
        const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
        return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
      };
      const ratio = (x, y) => {
        const [a, b] = [lum(x), lum(y)].sort((p, q) => q - p);
        return (a + 0.05) / (b + 0.05);
      };
      const host = document.querySelector('ap-playground').shadowRoot.querySelector('ap-heatmap');
      const paper = parse(getComputedStyle(host).backgroundColor);
      const svg = host.shadowRoot.querySelector('svg');
      const labels = [...svg.querySelectorAll('[data-row-label], [data-col-label], [data-axis]')];
      const cellNumbers = [...svg.querySelectorAll('text[pointer-events="none"]')];
      return {
        paper,
        paperLum: lum(paper),
        svgPaper: parse(getComputedStyle(svg.querySelector('.pic-paper')).fill),
        labels: labels.length,
        lowest: Math.min(...labels.map((t) => ratio(parse(getComputedStyle(t).fill), paper))),
        // the numbers on the cells: text chosen by the cell's own colour (which stays the same in both themes)
        numbers: cellNumbers.map((t) => {
          const rect = t.previousElementSibling;
          return ratio(parse(getComputedStyle(t).fill), parse(getComputedStyle(rect).fill));
        }),
      };
    });
    assert.ok(measured.paperLum < 0.05, `the heatmap's paper is dark: rgb(${measured.paper})`);
    assert.deepEqual(measured.svgPaper, measured.paper, 'the drawing’s paper is the host’s');
    assert.ok(measured.labels > 10, `${measured.labels} labels`);
    assert.ok(measured.lowest >= 4.5, `the labels' contrast on the paper: ${measured.lowest.toFixed(2)}`);
    assert.ok(measured.numbers.length >= 36, `${measured.numbers.length} numbers on cells`);
    const low = measured.numbers.filter((r) => r < 4.5);
    assert.deepEqual(low, [], 'the numbers on the cells read at 4.5 : 1 or more');
    // The exported picture is a light paper figure, whatever the theme on screen.
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('ap-playground .exports button:text-is("SVG")').click(),
    ]);
    const { readFileSync } = await import('node:fs');
    const text = readFileSync(await file.path(), 'utf8');
    assert.match(text, /<rect width="100%" height="100%" fill="#fff"/, 'the figure’s background is white');
    assert.match(text, /fill="#111"[^>]*data-row-label="0"/, 'the labels in near-black');
    assert.ok(!text.includes('var(--'), 'no theme variables in the file');
    assert.ok(!/class="pic-paper"[^>]*fill="(?!#fff)/.test(text), 'the panels’ paper is white');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('the tutorial is on the tokens and follows the stored theme and the system', async () => {
    // The choice made on the main page holds on the tutorial (one stored choice).
    const { page, errors } = await open('#text=a+b', { colorScheme: 'light' });
    await page.locator('#theme').click();
    await page.goto(site.url + 'tutorial.html');
    await page.locator('attention-playground').first().waitFor();
    const look = () =>
      page.evaluate(() => ({
        theme: document.documentElement.dataset.theme,
        pressed: document.querySelector('#theme')?.getAttribute('aria-pressed'),
        body: getComputedStyle(document.body).backgroundColor,
        font: getComputedStyle(document.body).fontFamily,
        link: getComputedStyle(document.querySelector('nav a')).color,
        bg: getComputedStyle(document.documentElement).getPropertyValue('--ap-bg').trim(),
      }));
    const dark = await look();
    assert.deepEqual([dark.theme, dark.pressed], ['dark', 'true']);
    assert.notEqual(dark.body, 'rgb(255, 255, 255)');
    assert.ok(!/serif/.test(dark.font.replace('sans-serif', '')), `no serif body: ${dark.font}`);
    assert.ok(dark.bg.length > 0, 'the tokens are on the page');
    // Its button switches it back, for both pages.
    await page.locator('#theme').click();
    const light = await look();
    assert.deepEqual([light.theme, light.body], ['light', 'rgb(255, 255, 255)']);
    assert.notEqual(light.link, 'rgb(0, 0, 238)', 'links in the accent colour, not the browser’s blue');
    await page.goto(site.url);
    await page.locator('.diagram [role="tab"]').first().waitFor();
    assert.equal(await page.evaluate(() => document.documentElement.dataset.theme), 'light');
    assert.deepEqual(errors, []);
    await page.close();
    // No choice made: the system's dark setting.
    const system = await openPage(site.browser, { viewport: { width: 1400, height: 1000 }, colorScheme: 'dark' });
    await system.page.goto(site.url + 'tutorial.html');
    await system.page.locator('attention-playground').first().waitFor();
    assert.equal(await system.page.evaluate(() => document.documentElement.dataset.theme), 'dark');
    await system.page.close();
  });

  test('sliders pair with the number boxes of short ranges, and either sets the value', async () => {
    const { page, errors } = await open('#text=the+cat+sat');
    await page.locator('ap-heatmap').first().waitFor();
    const has = (id) => page.locator(`#${id}`).count();
    // Heads (1..64), layers (1..12) and the layer to view slide; a seed (0..2³²−1) and d_model (1..1024) do not.
    assert.deepEqual(
      [
        await has('setting-heads-slider'),
        await has('setting-layers-slider'),
        await has('setting-layer-slider'),
        await has('setting-seed-slider'),
        await has('setting-dModel-slider'),
      ],
      [1, 1, 1, 0, 0],
    );
    assert.equal(await page.locator('#setting-heads-slider').getAttribute('max'), '64');
    await page.locator('#setting-heads-slider').fill('2');
    await page.waitForFunction(
      () => document.querySelector('ap-playground').shadowRoot.querySelectorAll('ap-heatmap').length === 2,
    );
    assert.equal(await page.locator('#setting-heads').inputValue(), '2');
    await page.locator('#setting-heads').fill('8');
    await page.waitForFunction(
      () => document.querySelector('ap-playground').shadowRoot.querySelectorAll('ap-heatmap').length === 8,
    );
    assert.equal(await page.locator('#setting-heads-slider').inputValue(), '8');
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('screenshots of every view at 1400 x 1000 and 390 x 844, light and dark', async () => {
    for (const colorScheme of ['light', 'dark'])
      for (const viewport of [
        { width: 1400, height: 1000 },
        { width: 390, height: 844 },
      ]) {
        const { page, errors } = await openPage(site.browser, { viewport, colorScheme }, { onlyFrom: site.url });
        for (const view of VIEWS) {
          await page.goto(`${site.url}#view=${view}`);
          await page.locator(`ap-playground .view[data-view="${view}"] :is(${DRAWN[view]})`).first().waitFor();
          await settled(page);
          // The lesson views draw inside their own shadow roots after the first frame: wait for content there.
          await page.waitForFunction((selector) => {
            const el = document.querySelector('ap-playground').shadowRoot.querySelector(selector);
            return !el?.shadowRoot || el.shadowRoot.childElementCount > 0;
          }, DRAWN[view].split(',')[0]);
          await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
          await page.screenshot({ path: `${SHOTS}/view-${view}-${viewport.width}-${colorScheme}.png` });
        }
        assert.deepEqual(errors, [], `${viewport.width} ${colorScheme}`);
        await page.close();
      }
  });
});
