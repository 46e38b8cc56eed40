// Training in the browser (part of `npm run bench`): the Train view of the built site
// (dist-web/) in headless Chromium, at its starting settings (sort of 8 items, d_model 64,
// 2 layers, 4 heads, batch 32, lr 3e-3 with warm-up and cosine decay, stop at 99% held-out
// sequence accuracy). Times Start to the run's end, as a person sees it (worker, progress
// events, drawing), and the longest main-thread task meanwhile.
import { fileURLToPath } from 'node:url';
import { serveDirectory } from '../tests/support/static-server.mjs';
import { launchChromium } from '../tests/support/browser.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const server = await serveDirectory(`${ROOT}dist-web`, { isolated: true });
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
  await page.addInitScript(() => {
    window.longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.longTasks.push(e.duration);
    }).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(`${server.url}#train`);
  const start = page.locator('ap-train button[data-action="start"]:not([disabled])');
  await start.waitFor();
  const before = await page.evaluate(() => window.longTasks.length);
  const began = Date.now();
  await start.click();
  await page.waitForFunction(
    () =>
      ['done', 'diverged'].includes(
        document.querySelector('ap-train').shadowRoot.querySelector('.progress').dataset.status,
      ),
    null,
    { timeout: 300_000, polling: 50 },
  );
  const seconds = (Date.now() - began) / 1000;
  const message = await page.locator('ap-train [role="status"]').textContent();
  const progress = await page.locator('ap-train .progress').textContent();
  const longest = Math.max(0, ...(await page.evaluate((from) => window.longTasks.slice(from), before)));
  console.log(
    `Train view in Chromium, sort of length 8 (start settings): ${message.trim()} ${seconds.toFixed(1)} s from Start ` +
      `(${progress.trim()}); longest main-thread task meanwhile: ${longest ? `${longest.toFixed(0)} ms` : 'none of 50 ms or more'}.`,
  );
} finally {
  await browser.close();
  await server.close();
}
