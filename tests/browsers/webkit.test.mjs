// The checks of checks.mjs in Debian's WebKitGTK (MiniBrowser through WebKitWebDriver,
// under xvfb-run): once as it comes (wasm SIMD), once with JSC_useWasmSIMD=0, where the
// package must fall back to its scalar build. WebDriver has no console log here: the
// page records its own errors (checks.mjs, CAPTURE). WebKitGTK 2.50 makes the site
// cross-origin isolated but has no SharedArrayBuffer global, so the site loads the
// single-threaded SIMD build there. Without SIMD the tutorial is left out: it takes
// longest, and its elements load the engine as the playground page does (checked).
import { browserChecks } from './checks.mjs';
import { startWebKit } from '../support/webdriver.mjs';

for (const simd of [true, false]) {
  browserChecks(
    'WebKit',
    {
      async launch() {
        const webkit = await startWebKit({ env: simd ? {} : { JSC_useWasmSIMD: '0' } });
        await webkit.setWindowRect({ width: 1100, height: 900 });
        const page = {
          evaluate: (fn, arg) => webkit.execute(`return (${fn}).apply(null, arguments);`, [arg]),
          async typeInto(find, text) {
            const element = await webkit.execute(`return (${find})();`);
            await webkit.clear(element);
            await webkit.sendKeys(element, text);
          },
          driverErrors: () => [],
          close: () => webkit.navigate('about:blank'),
        };
        return {
          version: webkit.version,
          async open(url) {
            await webkit.navigate(url);
            return page;
          },
          close: () => webkit.close(),
        };
      },
    },
    { simd, threads: false, tutorial: simd },
  );
}
