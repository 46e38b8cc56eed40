// The production site (dist-web/), served with cross-origin isolation, and one Chromium,
// for the lifetime of a test file: `const site = useSite()` registers the before/after
// hooks; site.url and site.browser are set once the first test starts, and site.open(path)
// opens a page of it.
import { after, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { launchChromium, openPage } from './browser.mjs';
import { serveDirectory } from './static-server.mjs';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const SHOTS = `${ROOT}test-output/screenshots`;

/** The window a page opens in unless a test needs another. */
export const DESKTOP = { width: 1280, height: 900 };

/** required: a file of dist-web/ the tests need (its absence means the site was not built). */
export function useSite(required = 'index.html') {
  const site = {
    url: '',
    browser: null,
    /**
     * A new page at `path` of the site ('', '#view=changes', 'embed.html?…'), in a DESKTOP window unless `context`
     * (playwright's newPage options) says otherwise, recording console errors and any request that leaves the site.
     */
    async open(path = '', context = {}) {
      const opened = await openPage(site.browser, { viewport: DESKTOP, ...context }, { onlyFrom: site.url });
      await opened.page.goto(site.url + path);
      return opened;
    },
  };
  let server = null;
  before(async () => {
    assert.ok(existsSync(`${ROOT}dist-web/${required}`), `dist-web/${required} missing: run \`npm run build\` first`);
    mkdirSync(SHOTS, { recursive: true });
    server = await serveDirectory(`${ROOT}dist-web`, { isolated: true });
    site.url = server.url;
    site.browser = await launchChromium();
  });
  after(async () => {
    await site.browser?.close();
    await server?.close();
  });
  return site;
}
