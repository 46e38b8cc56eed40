// Keystroke-to-screen latency of the playground in headless Chromium (part of
// `npm run bench`): the built site (dist-web/), default settings; each sample
// changes one word of the text at the start of a frame and polls (between tasks,
// not frames) until the first heatmap's DOM shows it: input event, worker run,
// transfer, render. Prints the median and 90th percentile.
import { fileURLToPath } from 'node:url';
import { serveDirectory } from '../tests/support/static-server.mjs';
import { launchChromium } from '../tests/support/browser.mjs';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const server = await serveDirectory(`${ROOT}dist-web`, { isolated: true });
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(server.url);
  await page.locator('ap-heatmap').first().waitFor();
  const samples = await page.evaluate(async () => {
    const root = document.querySelector('ap-playground').shadowRoot;
    const box = root.querySelector('#setting-text');
    const firstLabel = () => root.querySelector('ap-heatmap')?.shadowRoot.querySelector('table th[scope="row"]')?.textContent;
    const nextFrame = () => new Promise((resolve) => requestAnimationFrame(resolve));
    const channel = new MessageChannel();
    const nextTask = () => new Promise((resolve) => { channel.port1.onmessage = resolve; channel.port2.postMessage(0); });
    const times = [];
    for (let i = 0; i < 120; i++) {
      const word = `w${i}`;
      await nextFrame();
      const start = performance.now();
      box.value = `${word} cat sat on the mat\na dog barked`;
      box.dispatchEvent(new Event('input', { bubbles: true, composed: true }));
      while (firstLabel() !== word) await nextTask();
      times.push(performance.now() - start);
    }
    return times.slice(20);  // the first runs warm the worker's wasm up
  });
  samples.sort((a, b) => a - b);
  const median = samples[Math.floor(samples.length / 2)];
  const p90 = samples[Math.floor(samples.length * 0.9)];
  console.log(`Playground keystroke to updated heatmap (Chromium, default settings, ${samples.length} samples): ` +
    `median ${median.toFixed(1)} ms, 90th percentile ${p90.toFixed(1)} ms (a frame at 60 Hz is 16.7 ms)`);
} finally {
  await browser.close();
  await server.close();
}
