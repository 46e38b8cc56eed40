// Q8_0's int8-activations GEMV in Chromium with each integer dot (engine.kernels.int8Dot,
// core/kernels/gemm_low_bit_wasmsimd.cpp): the 'unsigned' dot (relaxed SIMD's dot on W's bytes
// flipped to [0, 255]) runs only where the runtime's relaxed dot is unsigned and exact there
// (AVX-VNNI's vpdpbusd: Chromium on such a CPU; not Node 20, so the core suite cannot run it).
// The relaxed engine decodes a small GPT-2 (a random checkpoint written here: E = 160, five
// blocks of 32, so the GEMV's four-block epilogue and its last block's per-lane one both run)
// with its fastest dot and with it capped ('split', 'plain'): the same tokens, candidates and
// probabilities, bit for bit, since every dot sums the same integers. The test prints which dots
// it compared; on a machine whose Chromium has no unsigned dot it compares split against plain.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { launchChromium, openPage } from '../support/browser.mjs';
import { serveDirectory } from '../support/static-server.mjs';
import { ROOT } from '../support/site.mjs';
import { gpt2Checkpoint } from '../support/hub-checkpoint.mjs';

const TINY = `${ROOT}tests/reference/fixtures/pretrained/gpt2-tiny/`;

// A GPT-2 checkpoint in float32 (seeded random weights), each matrix's first two values the
// largest of their block: Q8_0's q = -127 and 127 (flipped: 1 and 255). Passed to the page as
// arrays of numbers.
function checkpoint() {
  const files = gpt2Checkpoint(readFileSync(`${TINY}config.json`, 'utf8'), {
    layers: 2,
    heads: 4,
    hidden: 160,
    vocab: 1000,
    maxPositions: 32,
    blockExtremes: true,
  });
  files['tokenizer.json'] = readFileSync(`${TINY}tokenizer.json`);
  return Object.fromEntries(Object.entries(files).map(([name, bytes]) => [name, [...bytes]]));
}

let server = null;
let browser = null;
before(async () => {
  server = await serveDirectory(ROOT, { isolated: true });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await server?.close();
});

describe('the int8 GEMV in Chromium', () => {
  test('decodes the same bits with its fastest dot and with each slower one', { timeout: 120_000 }, async () => {
    const { page, errors } = await openPage(browser, {}, { onlyFrom: server.url });
    // A blank page of the server's origin, so the package imports from it.
    await page.route(`${server.url}int8-dot.html`, (route) =>
      route.fulfill({ contentType: 'text/html', body: '<!doctype html><title>int8 dot</title>' }),
    );
    await page.goto(`${server.url}int8-dot.html`);
    const runs = await page.evaluate(async (files) => {
      const { loadAttention } = await import('/dist/index.js');
      const { greedySteps } = await import('/tests/support/greedy-steps.mjs');
      const bytes = Object.fromEntries(Object.entries(files).map(([name, b]) => [name, new Uint8Array(b)]));
      const decode = async (int8Dot) => {
        const engine = await loadAttention({ build: 'simd', relaxedSimd: true, ...(int8Dot ? { int8Dot } : {}) });
        const model = await engine.loadPretrained({ files: bytes, weights: 'q8_0', q8Activations: 'int8' });
        // A prompt long enough that the prefill's int8 GEMM takes more than one row at a time too
        return { kernels: engine.kernels, steps: greedySteps(model.model, [5, 300, 17, 999, 42], 12) };
      };
      return { fastest: await decode(), split: await decode('split'), plain: await decode('plain') };
    }, checkpoint());
    const { fastest, split, plain } = runs;
    console.log(
      `int8 dots compared in this Chromium: ${fastest.kernels.int8Dot} (fastest), ${split.kernels.int8Dot}, ${plain.kernels.int8Dot}`,
    );
    assert.equal(fastest.kernels.relaxedSimd, true);
    assert.equal(plain.kernels.int8Dot, 'plain');
    // Chromium's relaxed dot adds as specified on every CPU: the split dot runs where asked for
    assert.equal(split.kernels.int8Dot, 'split');
    assert.ok(['unsigned', 'split'].includes(fastest.kernels.int8Dot), fastest.kernels.int8Dot);
    // V8 lowers the relaxed dot to AVX-VNNI's vpdpbusd (unsigned) unless the CPU also has
    // AVX-VNNI-INT8 (vpdpbssd, signed): on Linux the CPU's flags say which the probe must find.
    const flags = existsSync('/proc/cpuinfo')
      ? (readFileSync('/proc/cpuinfo', 'utf8').match(/^flags.*$/m)?.[0] ?? '')
      : '';
    if (flags) {
      const vnni = / avx_vnni( |$)/.test(flags) && !/ avx_vnni_int8( |$)/.test(flags);
      assert.equal(fastest.kernels.int8Dot, vnni ? 'unsigned' : 'split', `CPU flags: AVX-VNNI ${vnni}`);
    }
    assert.equal(plain.steps.length, 12);
    assert.ok(plain.steps[0].probabilities[0] < 0.5, 'random weights: a spread of candidates');
    assert.deepEqual(fastest.steps, plain.steps);
    assert.deepEqual(split.steps, plain.steps);
    assert.deepEqual(errors, []);
    await page.close();
  });
});
