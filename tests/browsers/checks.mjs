/* global deepQuery -- defined in the page by HELPERS below; these functions run there */
// The checks every browser engine must pass, stated once; firefox.test.mjs and
// webkit.test.mjs run them through a small driver each (see `browserChecks`):
// the playground renders and typing changes it; the pretrained dialog opens in view with
// focus inside and closes back to its button, and Cache Storage opens; every element of the tutorial starts;
// the one-file element runs from <script defer>, served and from file://; the npm
// package (dist/) runs from a plain page with both builds; and no page has console,
// page or worker errors. Errors are recorded by the page itself (CAPTURE, first in every
// page), the same in every engine; drivers that see more (Firefox's console) add theirs.
// Functions passed to page.evaluate run in the page (they cross as source text).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { serveDirectory } from '../support/static-server.mjs';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
// Generous: on a loaded 2-core machine the tutorial (13 elements, 10 training workers) took 80 s in WebKit; it has
// 25 elements and 25 training workers since the modern-block sections.
const LIMIT = { timeout: 300_000 };

// Records uncaught errors and rejections, failed script/resource loads, console.error and
// errors of workers the page starts, into window.__pageErrors.
export const CAPTURE = `<script>(() => {
  if (window.__pageErrors) return;
  const errors = window.__pageErrors = [];
  const text = (v) => v instanceof Error ? v.name + ': ' + v.message : String(v);
  addEventListener('error', (e) => errors.push(e.target !== window && e.target
    ? 'failed to load ' + (e.target.src || e.target.href || e.target.tagName)
    : 'uncaught ' + (e.error ? text(e.error) : e.message)), true);
  addEventListener('unhandledrejection', (e) => errors.push('unhandled rejection: ' + text(e.reason)));
  const consoleError = console.error;
  console.error = function (...args) { errors.push('console.error: ' + args.map(text).join(' ')); return consoleError.apply(this, args); };
  const NativeWorker = window.Worker;
  if (NativeWorker) window.Worker = class Worker extends NativeWorker {
    constructor(...args) {
      super(...args);
      this.addEventListener('error', (e) => errors.push('worker error: ' + (e.message || 'the worker failed to start')));
      this.addEventListener('messageerror', () => errors.push('worker message error'));
    }
  };
})();</script>`;

// Defines deepQuery(root, selector) in the page: every match in root and in every shadow root below it.
const HELPERS = `<script>window.deepQuery = function deepQuery(root, selector) {
  return [...root.querySelectorAll(selector),
    ...[...root.querySelectorAll('*')].flatMap((e) => e.shadowRoot ? deepQuery(e.shadowRoot, selector) : [])];
};</script>`;

/** What goes first into every page's <head>. */
export const HEAD = CAPTURE + HELPERS;

/** The build a page reports: the playground's status line ("simd engine · 1.2 ms · …"). */
function playgroundStatus() {
  return deepQuery(document, 'ap-playground').map((p) => p.status);
}

/** Row labels (tokens) of every heatmap on the page. */
function heatmapRows() {
  return deepQuery(document, 'ap-heatmap').map((h) =>
    [...h.shadowRoot.querySelectorAll('table th[scope="row"]')].map((th) => th.textContent),
  );
}

/**
 * Declares the checks for one engine. `driver.launch()` resolves to a browser with:
 *   version; open(url) -> page; close().
 * and each page: evaluate(fn, arg) (fn's source runs in the page with arg; JSON values back),
 *   typeInto(fn, text) (real keystrokes into the element fn returns, replacing its value),
 *   driverErrors() (errors the driver itself saw; [] if none), close().
 * `simd`: whether the engine has wasm SIMD (WebKit runs once with JSC_useWasmSIMD=0);
 * `threads`: whether it has SharedArrayBuffer on a cross-origin isolated page, so the site
 * ('auto' build, isolated) loads the threaded engine; `tutorial`: whether to run the
 * tutorial's check (its thirteen elements and ten training workers are the slow part).
 */
export function browserChecks(name, driver, { simd = true, threads = true, tutorial = true } = {}) {
  const pageBuild = simd ? 'simd' : 'scalar'; // 'auto' on a page that is not isolated
  const siteBuild = simd && threads ? 'simd-threads' : pageBuild;

  describe(`${name}${simd ? '' : ' without wasm SIMD'}`, () => {
    let browser, site, files, work;

    before(async () => {
      for (const file of [
        'dist-web/index.html',
        'dist-web/tutorial.html',
        'dist-web/attention-playground.js',
        'dist/index.js',
      ])
        assert.ok(existsSync(join(ROOT, file)), `${file} missing: run \`npm run build\` first`);
      work = mkdtempSync(join(tmpdir(), `attention-${name}-`));
      // The site as deployed (cross-origin isolated); a plain folder for the one-file element
      // and the package's page (dist/ linked in), served without isolation.
      site = await serveDirectory(join(ROOT, 'dist-web'), { isolated: true, headHtml: HEAD });
      mkdirSync(join(work, 'pages'));
      copyFileSync(join(ROOT, 'dist-web/attention-playground.js'), join(work, 'pages/attention-playground.js'));
      symlinkSync(join(ROOT, 'dist'), join(work, 'pages/dist'));
      writeFileSync(join(work, 'pages/element.html'), ELEMENT_PAGE);
      writeFileSync(join(work, 'pages/package.html'), PACKAGE_PAGE);
      files = await serveDirectory(join(work, 'pages'));
      browser = await driver.launch();
      console.log(`${name}${simd ? '' : ' without wasm SIMD'}: ${browser.version}`);
    });
    after(async () => {
      await browser?.close();
      await site?.close();
      await files?.close();
      if (work) rmSync(work, { recursive: true, force: true });
    });

    // Opens a page, runs the check, then asserts that nothing went wrong in it (a failed
    // check also names the page's errors: they often say why).
    // A browser whose page process died (WebKitGTK under xvfb at times ends the session with
    // "page crash or hang") is started again and the check run once more, so one crash of
    // the browser neither fails the check alone nor every check after it; a page that
    // crashes it twice fails.
    async function onPage(url, check) {
      try {
        return await onPageOnce(url, check);
      } catch (error) {
        if (!/invalid session id|page crash|session deleted/i.test(String(error?.message))) throw error;
        console.log(`${name}: the browser's session ended (${error.message.split('\n')[0]}); starting it again, once`);
        await browser.close().catch(() => {});
        browser = await driver.launch();
        return onPageOnce(url, check);
      }
    }

    async function onPageOnce(url, check) {
      const page = await browser.open(url);
      const errors = async () => [
        ...(await page.evaluate(() => window.__pageErrors ?? ['the error recorder did not run'])),
        ...page.driverErrors(),
      ];
      try {
        try {
          await check(page);
        } catch (error) {
          const seen = await errors().catch(() => []);
          if (seen.length)
            throw new Error(`${error.message}\nerrors on the page: ${seen.join(' | ')}`, { cause: error });
          throw error;
        }
        assert.deepEqual(await errors(), [], 'console, page or worker errors');
      } finally {
        await page.close();
      }
    }

    test('the playground renders one heatmap per head, and typing in the text changes them', LIMIT, async () => {
      await onPage(site.url, async (page) => {
        await waitFor(
          page,
          () =>
            deepQuery(document, 'ap-heatmap').length === 4 &&
            /engine/.test(deepQuery(document, 'ap-playground')[0].status),
          'four heatmaps and an engine status',
        );
        assert.equal(await page.evaluate(() => crossOriginIsolated), true, 'the site is served cross-origin isolated');
        assert.match((await page.evaluate(playgroundStatus))[0], new RegExp(`^${siteBuild} engine · `));
        const before = await page.evaluate(heatmapRows);
        await page.typeInto(() => deepQuery(document, '#setting-text')[0], 'the quick brown fox jumps');
        const typed = ['the', 'quick', 'brown', 'fox', 'jumps'];
        await waitFor(
          page,
          heatmapRows,
          'heatmaps of the typed text',
          (rows) => rows.length === 4 && rows.every((r) => JSON.stringify(r) === JSON.stringify(typed)),
        );
        assert.notDeepEqual(before[0], typed);
      });
    });

    test(
      'the pretrained dialog opens in view with focus inside and closes back to its button; Cache Storage opens',
      LIMIT,
      async () => {
        await onPage(site.url, async (page) => {
          await waitFor(
            page,
            () => deepQuery(document, '[data-action="open-pretrained"], [data-action="try-real"]').length,
            'the dialog\'s button and "Try a real model"',
            (n) => n === 2,
          );
          const opened = await waitFor(
            page,
            () => {
              const button = deepQuery(document, '[data-action="open-pretrained"]')[0];
              const root = button.getRootNode();
              const dialog = root.querySelector('dialog');
              if (!dialog.open) {
                button.click();
                return null;
              }
              const box = dialog.getBoundingClientRect();
              return {
                inView: box.left >= 0 && box.top >= 0 && box.right <= innerWidth && box.bottom <= innerHeight,
                focusInside: dialog.contains(root.activeElement),
                expanded: button.getAttribute('aria-expanded'),
              };
            },
            'the dialog to open',
            (v) => v !== null,
          );
          assert.deepEqual(opened, { inView: true, focusInside: true, expanded: 'true' });
          const closed = await waitFor(
            page,
            () => {
              const button = deepQuery(document, '[data-action="open-pretrained"]')[0];
              const root = button.getRootNode();
              const dialog = root.querySelector('dialog');
              if (dialog.open) {
                root.querySelector('[data-action="close"]').click();
                return null;
              }
              return { focusOnButton: root.activeElement === button, expanded: button.getAttribute('aria-expanded') };
            },
            'the dialog to close',
            (v) => v !== null && v.expanded === 'false',
          );
          assert.deepEqual(closed, { focusOnButton: true, expanded: 'false' });
          // The real model is kept in Cache Storage: it must open on this (secure, isolated) page.
          const cache = await waitFor(
            page,
            () => {
              if (window.__cacheOpens === undefined) {
                window.__cacheOpens = null;
                caches.open('attention-playground-models').then(
                  () => (window.__cacheOpens = 'opens'),
                  (e) => (window.__cacheOpens = String(e)),
                );
              }
              return window.__cacheOpens;
            },
            'Cache Storage to open',
            (v) => v !== null,
          );
          assert.equal(cache, 'opens');
        });
      },
    );

    if (tutorial)
      test('every element of the tutorial starts', LIMIT, async () => {
        await onPage(site.url + 'tutorial.html', async (page) => {
          const count = await page.evaluate(() => document.querySelectorAll('attention-playground').length);
          assert.ok(count >= 10, `${count} elements in the tutorial`);
          // Each starts once scrolled into view (and stays started): scroll to each in turn (again
          // while it is not showing a view: elements above grow as they start) and wait until it
          // shows one, as a reader scrolling down would. (Starting all ~11 at once, each with its
          // worker, hung now and then in Firefox on a heavily loaded machine: see the closing note.)
          for (let i = 0; i < count; i++)
            await waitFor(
              page,
              (i) => {
                const el = document.querySelectorAll('attention-playground')[i];
                const root = el.shadowRoot;
                if (
                  root?.querySelector('ap-playground, ap-train') &&
                  (deepQuery(
                    root,
                    'ap-heatmap, ap-shape-flow, table.changes, ap-line-view, ap-matrix, [data-testid="positions-view"]',
                  ).length > 0 ||
                    deepQuery(root, '[role="alert"], .error').length > 0)
                )
                  return true;
                const folded = el.closest('details:not([open])');
                if (folded) folded.open = true; // as a reader opens a folded figure to see it
                el.scrollIntoView({ block: 'center' });
                return false;
              },
              `tutorial element ${i} to start once on screen`,
              Boolean,
              i,
              60_000,
            );
          // Started: it shows a view (heatmap, shapes, changes, the matrices of Row by row, Head split, Step by step),
          // no "Waiting…"; or it failed with an alert.
          const states = await waitFor(
            page,
            () =>
              [...document.querySelectorAll('attention-playground')].map((el) => {
                const text = deepQuery(el.shadowRoot, '*')
                  .map((e) =>
                    [...e.childNodes]
                      .filter((n) => n.nodeType === 3)
                      .map((n) => n.data)
                      .join(''),
                  )
                  .join(' ');
                return {
                  id: el.closest('section')?.id,
                  views: deepQuery(
                    el.shadowRoot,
                    'ap-heatmap, ap-shape-flow, table.changes, ap-line-view, ap-matrix, [data-testid="positions-view"]',
                  ).length,
                  waiting: /Waiting/.test(text),
                  // How far a stuck element got: the playground's status line, the training runs' status.
                  status:
                    el.shadowRoot.querySelector('ap-playground')?.status ??
                    deepQuery(el.shadowRoot, 'ap-train .progress')[0]?.dataset.status,
                  alerts: deepQuery(el.shadowRoot, '[role="alert"], .error')
                    .map((e) => e.textContent.trim())
                    .filter(Boolean),
                };
              }),
            'every tutorial element to start',
            (all) => all.every((s) => (s.views > 0 && !s.waiting) || s.alerts.length > 0),
            undefined,
            120_000,
          );
          assert.deepEqual(
            states.filter((s) => s.alerts.length > 0),
            [],
            'tutorial elements with an error',
          );
        });
      });

    test(
      `the one-file element ${simd ? 'runs' : 'says it needs wasm SIMD'} from <script defer>, served and from file://`,
      LIMIT,
      async () => {
        for (const url of [files.url + 'element.html', pathToFileURL(join(work, 'pages/element.html')).href]) {
          await onPage(url, async (page) => {
            if (!simd) {
              // It carries the SIMD engine only: a browser without wasm SIMD gets a sentence, not a trap.
              const said = await waitFor(page, elementProblem, `the element's message at ${url}`);
              assert.match(
                said,
                /^This attention playground needs WebAssembly SIMD, which this browser does not support/,
              );
              return;
            }
            const rows = await waitFor(page, heatmapRows, `two heatmaps at ${url}`, (rows) => rows.length === 2);
            assert.deepEqual(rows, [
              ['the', 'cat', 'sat', 'on', 'the', 'mat'],
              ['the', 'cat', 'sat', 'on', 'the', 'mat'],
            ]);
            await waitFor(page, playgroundStatus, 'the engine status', (s) => /engine/.test(s[0]));
            assert.match((await page.evaluate(playgroundStatus))[0], new RegExp(`^${pageBuild} engine · `), url);
          });
        }
      },
    );

    test(
      `the npm package from a plain page: ${simd ? 'both builds agree' : "'auto' picks scalar, 'simd' is refused with an AttentionError"}`,
      LIMIT,
      async () => {
        await onPage(files.url + 'package.html', async (page) => {
          const result = await waitFor(page, () => window.result ?? null, "the package page's result");
          assert.equal(result.auto.build, pageBuild);
          assert.equal(result.scalar.build, 'scalar');
          for (const build of ['auto', 'scalar']) {
            assert.deepEqual(result[build].shape, [2, 2, 3, 3], build);
            assert.ok(
              result[build].rowSumsOff < 1e-5,
              `${build}: softmax rows sum to 1 (off by ${result[build].rowSumsOff})`,
            );
            assert.equal(result[build].padded, 0, `${build}: a padded key gets weight 0`);
          }
          if (simd) {
            assert.equal(result.simd.build, 'simd');
            const differ = Math.max(...result.simd.weights.map((w, i) => Math.abs(w - result.scalar.weights[i])));
            assert.ok(differ < 1e-5, `simd and scalar weights differ by ${differ}`);
          } else {
            assert.deepEqual(
              { ...result.simd, message: undefined },
              {
                name: 'AttentionError',
                isAttentionError: true,
                code: 'invalid_argument',
                field: 'build',
                value: 'simd',
                message: undefined,
              },
            );
            assert.match(
              result.simd.message,
              /^build 'simd' needs WebAssembly SIMD, which this runtime does not support/,
            );
          }
        });
      },
    );
  });
}

/** The one-file element's own message (no engine in this browser), or null. */
const elementProblem = () =>
  document.querySelector('attention-playground')?.shadowRoot?.querySelector('[data-problem="engine"]')?.textContent ??
  null;

/** Polls fn in the page until ok(value) (default: truthy); fails with the last value after `timeout` ms. */
export async function waitFor(page, fn, what, ok = Boolean, arg = undefined, timeout = 30_000) {
  const deadline = Date.now() + timeout;
  let value;
  for (;;) {
    value = await page.evaluate(fn, arg);
    if (ok(value)) return value;
    if (Date.now() > deadline)
      assert.fail(`timed out waiting for ${what}; last: ${JSON.stringify(value)?.slice(0, 3000)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

// The one-file element, as a tutorial page uses it (from file:// only classic scripts run).
const ELEMENT_PAGE = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">${HEAD}
<script defer src="./attention-playground.js"></script></head>
<body><h1>A tutorial</h1>
<attention-playground text="the cat sat on the mat" heads="2" controls="none"></attention-playground></body></html>`;

// The package's browser entry from a plain module script, every build; the result goes to window.result.
const PACKAGE_PAGE = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,">${HEAD}</head>
<body><script type="module">
  import { loadAttention, findStage, AttentionError } from './dist/index.js';
  const result = {};
  for (const build of ['auto', 'simd', 'scalar']) {
    try {
      const attn = await loadAttention({ build });
      const trace = attn.run({ texts: ['the cat sat', 'a dog'], config: { dModel: 16, heads: 2 } });
      const w = findStage(trace, 'encoder.self_attn.weights', 0);
      let rowSumsOff = 0;
      for (let row = 0; row < w.data.length / 3; row++)
        rowSumsOff = Math.max(rowSumsOff, Math.abs(w.data[3 * row] + w.data[3 * row + 1] + w.data[3 * row + 2] - 1));
      result[build] = { build: attn.build, shape: w.shape, weights: [...w.data], rowSumsOff, padded: w.data[(1 * 2 * 3 + 0) * 3 + 2] };
      attn.dispose?.();
    } catch (error) {
      result[build] = { name: error.name, isAttentionError: error instanceof AttentionError, code: error.code,
        field: error.field, value: error.value, message: error.message };
    }
  }
  window.result = result;
</script></body></html>`;
