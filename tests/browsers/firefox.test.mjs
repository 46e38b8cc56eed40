// The checks of checks.mjs in Debian's Firefox ESR, headless, driven over WebDriver BiDi
// by puppeteer-core. Firefox's own console and page errors (workers' included) are
// recorded too, beside what the page records itself.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import puppeteer from 'puppeteer-core';
import { browserChecks } from './checks.mjs';

const FIREFOX = process.env.FIREFOX_PATH ?? '/usr/bin/firefox-esr';

browserChecks('Firefox', {
  async launch() {
    assert.ok(existsSync(FIREFOX), `${FIREFOX} missing: run scripts/setup.sh (firefox-esr)`);
    const browser = await puppeteer.launch({
      browser: 'firefox',
      executablePath: FIREFOX,
      headless: true,
      timeout: 60_000,
    });
    return {
      version: await browser.version(),
      async open(url) {
        const page = await browser.newPage();
        const errors = [];
        page.on('console', (message) => {
          if (message.type() === 'error') errors.push(`console: ${message.text()}`);
        });
        page.on('pageerror', (error) => errors.push(`page: ${error}`));
        await page.setViewport({ width: 1100, height: 900 });
        await page.goto(url);
        return {
          evaluate: (fn, arg) => page.evaluate(fn, arg),
          async typeInto(find, text) {
            const element = await page.evaluateHandle(find);
            await element.evaluate((e) => {
              e.focus();
              e.select();
            });
            await page.keyboard.type(text);
            await element.dispose();
          },
          driverErrors: () => errors,
          close: () => page.close(),
        };
      },
      close: () => browser.close(),
    };
  },
});
