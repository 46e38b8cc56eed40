// Hostile text typed into the playground, and memory over 1,000 re-renders.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { serveDirectory } from '../support/static-server.mjs';
import { launchChromium, openPage } from '../support/browser.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
let server, browser;

before(async () => {
  assert.ok(existsSync(`${ROOT}dist-web/index.html`), 'dist-web/ missing: run `npm run build` first');
  server = await serveDirectory(`${ROOT}dist-web`, { isolated: true });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

const firstRowLabels = (page) =>
  page.evaluate(() => {
    const map = document.querySelector('ap-playground').shadowRoot.querySelector('ap-heatmap');
    return map ? [...map.shadowRoot.querySelectorAll('table th[scope="row"]')].map((th) => th.textContent) : null;
  });

// [name, text, expected: token labels of sentence 0, or an error pattern shown in place]
const HOSTILE = [
  ['emoji', 'I ❤️ 🐈‍⬛', ['I', '❤️', '🐈‍⬛']],
  ['CJK', '我爱你', ['我', '爱', '你']],
  ['right-to-left', 'שלום עולם', ['שלום', 'עולם']],
  ['zero-width', 'a\u200bb', ['a', 'b']],
  ['NUL', 'x\u0000y', ['x', 'y']],
  ['lone surrogate', 'p \ud800 q', ['p', '\ufffd', 'q']],
  [
    'HTML',
    '<b onmouseover=alert(1)>hi</b>',
    ['<', 'b', 'onmouseover', '=', 'alert', '(', '1', ')', '>', 'hi', '<', '/', 'b', '>'],
  ],
  ['whitespace only', '   \t  ', /Type a sentence/],
  ['more tokens than the maximum', 'w '.repeat(129), /more than 128 tokens/],
  ['over the length limit', 'a'.repeat(3990) + ' ' + 'b'.repeat(9), /ab|[ab]/],
];

describe('hostile text in the playground', () => {
  test('each hostile text renders as text or is explained, and the page recovers', async () => {
    const { page, errors } = await openPage(browser, { viewport: { width: 1200, height: 900 } });
    let dialogs = 0;
    page.on('dialog', async (d) => {
      dialogs++;
      await d.dismiss();
    });
    await page.goto(server.url);
    await page.locator('ap-heatmap').first().waitFor();
    for (const [name, text, expected] of HOSTILE) {
      await page.locator('#setting-text').fill(text);
      if (Array.isArray(expected)) {
        await page
          .waitForFunction(
            (want) => {
              const map = document.querySelector('ap-playground').shadowRoot.querySelector('ap-heatmap');
              return (
                map &&
                JSON.stringify(
                  [...map.shadowRoot.querySelectorAll('table th[scope="row"]')].map((th) => th.textContent),
                ) === want
              );
            },
            JSON.stringify(expected),
            { timeout: 10_000 },
          )
          .catch(async () => assert.fail(`${name}: rows ${await firstRowLabels(page)}`));
      } else if (name === 'over the length limit') {
        // One 3990-character token: the UI keeps the label short; the full text stays in the title.
        await page.waitForFunction(
          () =>
            document
              .querySelector('ap-playground')
              .shadowRoot.querySelector('ap-heatmap')
              .shadowRoot.querySelector('svg text title')?.textContent.length === 3990,
          null,
          { timeout: 10_000 },
        );
      } else {
        const message = page.locator('.error, .engine-error').filter({ hasText: expected });
        await message.first().waitFor({ timeout: 10_000 });
      }
      await page.locator('#setting-text').fill('the cat sat');
      await page.waitForFunction(
        () => {
          const map = document.querySelector('ap-playground').shadowRoot.querySelector('ap-heatmap');
          return (
            map &&
            [...map.shadowRoot.querySelectorAll('table th[scope="row"]')].map((th) => th.textContent).join(' ') ===
              'the cat sat'
          );
        },
        null,
        { timeout: 10_000 },
      );
    }
    assert.equal(dialogs, 0);
    assert.deepEqual(errors, []);
    await page.close();
  });

  test('1,000 re-renders leave the wasm heap flat and the page memory bounded', async (t) => {
    const { page, errors } = await openPage(browser, { viewport: { width: 1200, height: 900 } });
    await page.goto(server.url + '#text=the+cat+sat');
    await page.locator('ap-heatmap').first().waitFor();
    // Type in the page itself, waiting for each render, so that 1,000 renders take seconds.
    const rerender = (count) =>
      page.evaluate(async (n) => {
        const root = document.querySelector('ap-playground').shadowRoot;
        const box = root.querySelector('#setting-text');
        const first = () =>
          root.querySelector('ap-heatmap')?.shadowRoot.querySelector('table th[scope="row"]')?.textContent;
        for (let i = 0; i < n; i++) {
          const word = `w${i % 50}`;
          box.value = `${word} sat on the mat`;
          box.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
          while (first() !== word) await new Promise((resolve) => requestAnimationFrame(resolve));
        }
      }, count);
    const measure = async () => {
      await page.evaluate(() => {
        window.gc();
        window.gc();
      });
      return page.evaluate(() => ({
        js: performance.memory.usedJSHeapSize,
        wasm: Number(document.querySelector('ap-playground').shadowRoot.querySelector('.status').dataset.heapBytes),
      }));
    };
    await rerender(100);
    const before = await measure();
    await rerender(1000);
    const after = await measure();
    assert.ok(Number.isInteger(before.wasm), 'the status line reports the wasm heap');
    assert.equal(after.wasm, before.wasm, 'wasm heap in use changed');
    const growth = after.js - before.js;
    t.diagnostic(
      `JS heap ${(before.js / 2 ** 20).toFixed(2)} -> ${(after.js / 2 ** 20).toFixed(2)} MiB; wasm heap in use ${before.wasm} -> ${after.wasm} bytes`,
    );
    assert.ok(growth < 4 * 2 ** 20, `JS heap grew by ${(growth / 2 ** 20).toFixed(2)} MiB over 1,000 re-renders`);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
