// The one-file element bundle: dist/element.js (package export
// "attention-playground/element"), also copied into the site as
// attention-playground.js. Everything inlined: Lit, d3, the components and the
// element's engine (wasm/src/element-engine.ts: one SIMD engine without the pretrained
// loaders, its .wasm gzip-compressed). Built as an IIFE with no exports, so the same file
// works as a classic <script src> (the only kind browsers run from file://) and as
// <script type="module"> or `import 'attention-playground/element'`.
// The same build writes the part loaded on demand beside it,
// dist/attention-playground-pretrained.js: the full SIMD engine, with the pretrained
// loaders, as a classic script too (dynamic-import chunks are ES modules, which a file://
// page cannot load), and dist/attention-playground-generate.js: the Generate panel and its
// engine glue (element/generate-entry.ts), a classic script with its own copy of Lit,
// which runs on the full engine. Then it prints the three files' sizes and writes them to
// dist/sizes.json (scripts/size-record.mjs).
import { fileURLToPath } from 'node:url';
import { build, defineConfig, type Plugin } from 'vite';
import { GENERATE_SCRIPT } from './web/src/element/generate-script.js';
import { PRETRAINED_SCRIPT } from './web/src/element/pretrained-script.js';
// @ts-ignore -- a plain .mjs script without type declarations
import { recordSizes } from './scripts/size-record.mjs';

const dist = (file: string) => fileURLToPath(new URL(`./dist/${file}`, import.meta.url));

/** A classic script beside the element, built from `entry` (the engine's API resolved to `api`, if given). */
function onDemandScript(entry: string, file: string, name: string, api?: string) {
  return build({
    configFile: false,
    logLevel: 'warn',
    resolve: api ? { alias: [{ find: /^attention-playground$/, replacement: api }] } : {},
    build: {
      lib: { entry, formats: ['iife'], name },
      rollupOptions: { output: { entryFileNames: file } },
      outDir: 'dist',
      emptyOutDir: false,
      target: 'es2022',
    },
  });
}

function onDemandParts(): Plugin {
  return {
    name: 'attention-playground-on-demand-parts',
    apply: 'build',
    async closeBundle() {
      await onDemandScript(dist('element-pretrained.js'), PRETRAINED_SCRIPT, 'AttentionPlaygroundPretrained');
      // The panel takes the full engine from the element (it holds no engine): only the API's classes come along.
      await onDemandScript(
        fileURLToPath(new URL('./web/src/element/generate-entry.ts', import.meta.url)),
        GENERATE_SCRIPT,
        'AttentionPlaygroundGenerate',
        dist('api.js'),
      );
      recordSizes(['dist/element.js', `dist/${PRETRAINED_SCRIPT}`, `dist/${GENERATE_SCRIPT}`]);
    },
  };
}

export default defineConfig({
  resolve: {
    // Every name the front end imports the engine by resolves to the element's engine, so
    // the bundle holds one copy of the API and one engine.
    alias: [{ find: /^attention-playground(\/inline|\/element-engine)?$/, replacement: dist('element-engine.js') }],
  },
  plugins: [onDemandParts()],
  build: {
    lib: {
      entry: fileURLToPath(new URL('./web/src/element/index.ts', import.meta.url)),
      formats: ['iife'],
      name: 'AttentionPlaygroundElement',
      fileName: () => 'element.js',
    },
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2022',
  },
});
