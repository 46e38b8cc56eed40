// A tiny W3C WebDriver client (plain HTTP through fetch) for Debian's WebKitGTK:
// WebKitWebDriver drives MiniBrowser, both under xvfb-run (MiniBrowser needs a display).
// `env` is added to the driver's environment, which MiniBrowser and its web processes
// inherit (JSC_useWasmSIMD=0 switches wasm SIMD off).
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';

export const WEBKIT_DRIVER = process.env.WEBKIT_DRIVER_PATH ?? '/usr/bin/WebKitWebDriver';
export const MINIBROWSER = process.env.MINIBROWSER_PATH ?? '/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser';
const XVFB_RUN = '/usr/bin/xvfb-run';

function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts WebKitWebDriver and one MiniBrowser session; throws (the suite fails) if either is missing. */
export async function startWebKit({ env = {} } = {}) {
  for (const file of [WEBKIT_DRIVER, MINIBROWSER, XVFB_RUN])
    if (!existsSync(file)) throw new Error(`${file} missing: run scripts/setup.sh (webkit2gtk-driver, xvfb, xauth)`);
  const port = await freePort();
  // Its own process group, so that a stuck xvfb-run, Xvfb, driver and browser can be ended together.
  const driver = spawn(XVFB_RUN, ['-a', '-s', '-screen 0 1280x1024x24', WEBKIT_DRIVER, `--port=${port}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
    detached: true,
    env: { ...process.env, ...env },
  });
  let driverLog = '';
  driver.stderr.on('data', (chunk) => {
    driverLog = (driverLog + chunk).slice(-4000);
  });
  const exited = new Promise((resolve) => driver.on('exit', resolve));
  const base = `http://127.0.0.1:${port}`;

  async function call(method, path, body) {
    const response = await fetch(base + path, {
      method,
      headers: { 'content-type': 'application/json; charset=utf-8' },
      body: body ? JSON.stringify(body) : undefined,
      signal: AbortSignal.timeout(60_000), // no call of ours takes long: a hung browser fails the test
    });
    const json = await response.json();
    if (!response.ok) {
      const { error, message } = json.value ?? {};
      throw new Error(`WebDriver ${method} ${path}: ${error}: ${message}`);
    }
    return json.value;
  }

  // Ends the driver only: xvfb-run then stops its Xvfb and removes its temporary folder.
  // The whole group is killed only if that does not end it.
  const stopDriver = () => {
    let children = [];
    try {
      children = readFileSync(`/proc/${driver.pid}/task/${driver.pid}/children`, 'utf8')
        .trim()
        .split(/\s+/)
        .filter(Boolean);
    } catch {
      /* gone */
    }
    for (const pid of children) {
      try {
        if (readFileSync(`/proc/${pid}/comm`, 'utf8').trim() === 'WebKitWebDriver')
          process.kill(Number(pid), 'SIGTERM');
      } catch {
        /* gone */
      }
    }
  };
  const kill = () => {
    try {
      process.kill(-driver.pid, 'SIGTERM');
    } catch {
      /* already gone */
    }
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (driver.exitCode !== null) throw new Error(`WebKitWebDriver exited (${driver.exitCode}): ${driverLog}`);
    try {
      if ((await call('GET', '/status')).ready) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      kill();
      throw new Error(`WebKitWebDriver did not start: ${driverLog}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  let session;
  try {
    session = await call('POST', '/session', {
      capabilities: {
        alwaysMatch: {
          browserName: 'MiniBrowser',
          'webkitgtk:browserOptions': { binary: MINIBROWSER, args: ['--automation'] },
        },
      },
    });
  } catch (error) {
    kill();
    throw error;
  }
  const s = `/session/${session.sessionId}`;
  return {
    version: session.capabilities.browserVersion,
    navigate: (url) => call('POST', `${s}/url`, { url }),
    setWindowRect: (rect) => call('POST', `${s}/window/rect`, rect),
    /** Runs a function body; `arguments` are `args` (elements come back as references). */
    execute: (script, args = []) => call('POST', `${s}/execute/sync`, { script, args }),
    /** Runs a function body whose last argument is the callback that returns the value. */
    executeAsync: (script, args = []) => call('POST', `${s}/execute/async`, { script, args }),
    /** Real keystrokes into an element (a reference returned by execute). */
    clear: (element) => call('POST', `${s}/element/${elementId(element)}/clear`, {}),
    sendKeys: (element, text) => call('POST', `${s}/element/${elementId(element)}/value`, { text }),
    async close() {
      try {
        await call('DELETE', s);
      } catch {
        /* the browser may be gone already */
      }
      stopDriver();
      const ended = await Promise.race([
        exited.then(() => true),
        new Promise((resolve) => setTimeout(resolve, 5000, false)),
      ]);
      if (!ended) kill();
    },
  };
}

const ELEMENT_KEY = 'element-6066-11e4-a52e-4f735466cecf';
function elementId(element) {
  if (!element?.[ELEMENT_KEY]) throw new Error(`not an element reference: ${JSON.stringify(element)}`);
  return element[ELEMENT_KEY];
}
