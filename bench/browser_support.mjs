// What the Chromium benches of pretrained models share (bench/browser_pretrained.mjs, GPT-2
// small; bench/browser_modern.mjs, SmolLM2-135M and Qwen3-0.6B): the renderer's memory from
// /proc, the helpers installed in every page, part(), which runs page functions in a fresh
// browser on a cross-origin isolated page so each part's peak memory is its own, and
// profileForward(), a forward under Chromium's CPU profiler (their --profile).
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { fileURLToPath } from 'node:url';
import { serveDirectory } from '../tests/support/static-server.mjs';
import { launchChromium } from '../tests/support/browser.mjs';

export const ROOT = fileURLToPath(new URL('../', import.meta.url));
mkdirSync(`${ROOT}bench/.cache`, { recursive: true });
writeFileSync(`${ROOT}bench/.cache/page.html`, '<!doctype html><meta charset="utf-8"><title>bench</title>\n');

// Peak and current resident memory of this browser's renderer processes (Linux /proc): the
// descendants of this Node process whose command line says --type=renderer.
export function rendererMemory() {
  const children = new Map();
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    try {
      const ppid = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1];
      children.set(ppid, [...(children.get(ppid) ?? []), pid]);
    } catch {
      /* gone */
    }
  }
  const descendants = [];
  const walk = (pid) => {
    for (const c of children.get(pid) ?? []) {
      descendants.push(c);
      walk(c);
    }
  };
  walk(String(process.pid));
  let peak = 0;
  let current = 0;
  for (const pid of descendants) {
    try {
      if (!readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('--type=renderer')) continue;
      const status = readFileSync(`/proc/${pid}/status`, 'utf8');
      const kb = (key) => Number(status.match(new RegExp(`${key}:\\s+(\\d+)`))?.[1] ?? 0);
      if (kb('VmHWM') > peak) {
        peak = kb('VmHWM');
        current = kb('VmRSS');
      }
    } catch {
      /* gone */
    }
  }
  return { peakRssBytes: peak * 1024, rssBytes: current * 1024 };
}

// In the page: helpers shared by the parts (installed with addInitScript).
export function pageHelpers() {
  window.bench = {
    async fetchAll(base, names) {
      const files = {};
      for (const name of names) {
        const response = await fetch(base + name);
        if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
        // Read as a stream into one array of the announced length: Chromium's response.arrayBuffer()
        // fails ("Failed to fetch") on a body above 2 GiB, such as Llama 3.2 1B's 2.5 GB file.
        const bytes = new Uint8Array(Number(response.headers.get('content-length')));
        const reader = response.body.getReader();
        let at = 0;
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          bytes.set(value, at);
          at += value.length;
        }
        if (at !== bytes.length) throw new Error(`${name}: ${at} bytes, announced ${bytes.length}`);
        files[name.split('/').pop()] = bytes;
      }
      return files;
    },
    maxAbsDifference(got, want) {
      let worst = 0;
      let scale = 0;
      for (let i = 0; i < want.length; i++) {
        worst = Math.max(worst, Math.abs(got[i] - want[i]));
        scale = Math.max(scale, Math.abs(want[i]));
      }
      if (got.length !== want.length) throw new Error(`length ${got.length}, expected ${want.length}`);
      return { maxAbs: worst, maxAbsOfExpected: scale };
    },
    // The reference's logits and attentions (expected_logits{suffix}.f32, expected_attentions{suffix}.f32).
    async expected(base, suffix = '') {
      const read = async (name) => new Float32Array(await (await fetch(base + name)).arrayBuffer());
      return {
        logits: await read(`expected_logits${suffix}.f32`),
        attentions: await read(`expected_attentions${suffix}.f32`),
      };
    },
    concat(arrays) {
      const out = new Float32Array(arrays.reduce((n, a) => n + a.length, 0));
      let at = 0;
      for (const a of arrays) {
        out.set(a, at);
        at += a.length;
      }
      return out;
    },
    async uaMemory() {
      // performance.measureUserAgentSpecificMemory (cross-origin isolated pages), if it answers in 20 s
      if (!performance.measureUserAgentSpecificMemory) return null;
      const timeout = new Promise((resolve) => setTimeout(() => resolve(null), 20000));
      const result = await Promise.race([performance.measureUserAgentSpecificMemory(), timeout]);
      return result?.bytes ?? null;
    },
  };
}

// A page of the bench's origin with its helpers (window.bench) installed; `errors`, if given,
// collects the page's uncaught errors from the start.
export async function openBenchPage(browser, server, errors = null) {
  const page = await browser.newPage();
  if (errors) page.on('pageerror', (error) => errors.push(String(error)));
  await page.addInitScript(pageHelpers);
  await page.goto(`${server.url}bench/.cache/page.html`);
  return page;
}

// GPT-2 small's weights options the decode profiling scripts take by name (ab_decode.mjs,
// profile_decode.mjs): [the weights file in bench/.cache/<model>/, weights, q8Activations].
export const DECODE_WEIGHTS_OPTIONS = {
  f32: ['model.safetensors', 'auto'],
  f16: ['model-f16/model.safetensors', 'auto'],
  q8: ['model-f16/model.safetensors', 'q8_0'],
  q8i: ['model-f16/model.safetensors', 'q8_0', 'int16'],
  q8i8: ['model-f16/model.safetensors', 'q8_0', 'int8'],
};

export async function part(fn, args, then) {
  const server = await serveDirectory(ROOT, { isolated: true });
  const browser = await launchChromium();
  try {
    const errors = [];
    const page = await openBenchPage(browser, server, errors);
    let result = await page.evaluate(fn, args);
    if (then) for (const [f, a] of then) result = { ...result, ...(await page.evaluate(f, a)) };
    if (errors.length) throw new Error(errors.join('\n'));
    return {
      ...result,
      isolated: await page.evaluate(() => crossOriginIsolated),
      ...rendererMemory(),
      chromium: browser.version(),
    };
  } finally {
    await browser.close();
    await server.close();
  }
}

// Profiles one warmed-up forward under Chromium's CPU profiler: setup = [page function, args]
// loads the model(s) into the page, forward is a page function running one forward. Prints the
// time of 8 forwards without the profiler (and how busy the cores were meanwhile), then the
// self time of the hottest functions over 3 profiled forwards (the wasm has no name section:
// wasm-function[i]).
export async function profileForward({ label, setup, forward }) {
  const server = await serveDirectory(ROOT, { isolated: true });
  const browser = await launchChromium();
  try {
    const page = await openBenchPage(browser, server);
    await page.evaluate(...setup);
    await page.evaluate(`window.benchForward = ${forward.toString()}`);
    await page.evaluate(async () => {
      for (let i = 0; i < 4; i++) await window.benchForward();
    });
    const stat = () => {
      const f = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
      return { idle: f[3] + f[4], total: f.reduce((a, b) => a + b, 0) };
    };
    const s0 = stat();
    const loopMs = await page.evaluate(async () => {
      const t = performance.now();
      for (let i = 0; i < 8; i++) await window.benchForward();
      return performance.now() - t;
    });
    const s1 = stat();
    console.log(
      `8 forwards without the profiler: ${(loopMs / 8).toFixed(0)} ms each; cores busy meanwhile: ${(cpus().length * (1 - (s1.idle - s0.idle) / (s1.total - s0.total))).toFixed(2)}`,
    );
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Profiler.enable');
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 });
    await cdp.send('Profiler.start');
    const wall = await page.evaluate(async () => {
      const t = performance.now();
      for (let i = 0; i < 3; i++) await window.benchForward();
      return (performance.now() - t) / 3;
    });
    const { profile } = await cdp.send('Profiler.stop');
    const byId = new Map(profile.nodes.map((n) => [n.id, n]));
    const self = new Map();
    const dt = profile.timeDeltas;
    profile.samples.forEach((id, i) => {
      const f = byId.get(id).callFrame;
      const key = `${f.functionName || '(anonymous)'} ${f.url.split('/').pop()}`;
      self.set(key, (self.get(key) ?? 0) + (dt[i + 1] ?? 0) / 1000);
    });
    const total = [...self.values()].reduce((a, b) => a + b, 0);
    console.log(`${label}: ${wall.toFixed(0)} ms (mean of 3 under the profiler). Self time:`);
    for (const [k, v] of [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, 15))
      console.log(`${((100 * v) / total).toFixed(1).padStart(5)}%  ${(v / 3).toFixed(0).padStart(5)} ms  ${k}`);
  } finally {
    await browser.close();
    await server.close();
  }
}
