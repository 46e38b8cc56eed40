// Debian's Chromium through playwright-core, with the flags this machine needs
// (no sandbox as root, no GPU, no background network).
import { chromium } from 'playwright-core';

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

// --expose-gc lets memory tests collect garbage before they measure.
export function launchChromium() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [...CHROMIUM_ARGS, '--js-flags=--expose-gc', '--enable-precise-memory-info'],
  });
}

// A page that records console errors and uncaught exceptions; with `onlyFrom` (a server's
// URL), also any request that leaves it (no CDN: blob: and data: URLs stay in the page).
export async function openPage(browser, options = {}, { onlyFrom } = {}) {
  const page = await browser.newPage(options);
  const errors = [];
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  page.on('pageerror', (error) => errors.push(String(error)));
  if (onlyFrom)
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(onlyFrom) && !url.startsWith('blob:') && !url.startsWith('data:'))
        errors.push(`external request: ${url}`);
    });
  return { page, errors };
}
