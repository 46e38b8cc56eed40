// Regenerates docs/images/playground.png, the README's screenshot, from the real built
// page: dist-web/ (run `npm run build` first) served as the tests serve it (cross-origin
// isolated), opened in Debian's Chromium through playwright-core at 1400x1000.
// Usage: npm run screenshot
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromium, openPage } from '../tests/support/browser.mjs';
import { serveDirectory } from '../tests/support/static-server.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const OUT = `${ROOT}docs/images/playground.png`;

if (!existsSync(`${ROOT}dist-web/index.html`)) {
  console.error('dist-web/index.html missing: run `npm run build` first');
  process.exit(1);
}

const server = await serveDirectory(`${ROOT}dist-web`, { isolated: true });
const browser = await launchChromium();
try {
  const { page, errors } = await openPage(
    browser,
    { viewport: { width: 1400, height: 1000 } },
    { onlyFrom: server.url },
  );
  await page.goto(server.url);
  // "Drawn" means: the first heatmaps hold numbers and the view is not marked stale, so the
  // picture shows a finished run, not the "Waiting for the first result…" placeholder.
  await page.locator('ap-heatmap').first().waitFor();
  await page.waitForFunction(
    () => {
      const maps = [...document.querySelector('ap-playground').shadowRoot.querySelectorAll('ap-heatmap')];
      const view = document.querySelector('ap-playground').shadowRoot.querySelector('.view');
      return maps.length > 0 && maps.every((m) => m.rows > 0 && m.values?.length > 0) && view?.dataset.stale === '0';
    },
    null,
    { timeout: 60_000 },
  );
  // Two frames, so what was just put in the DOM has been painted.
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  if (errors.length) throw new Error(`the page logged errors:\n${errors.join('\n')}`);
  mkdirSync(`${ROOT}docs/images`, { recursive: true });
  await page.screenshot({ path: OUT });
  console.log(`wrote ${OUT.slice(ROOT.length)}`);
} finally {
  await browser.close();
  await server.close();
}
