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
// page cannot load). Then it prints both files' sizes and writes them to dist/sizes.json
// (scripts/size-record.mjs).
import { fileURLToPath } from 'node:url';
import { build, defineConfig, type Plugin } from 'vite';
import { PRETRAINED_SCRIPT } from './web/src/element/pretrained-script.js';
// @ts-ignore -- a plain .mjs script without type declarations
import { recordSizes } from './scripts/size-record.mjs';

const dist = (file: string) => fileURLToPath(new URL(`./dist/${file}`, import.meta.url));

function pretrainedEngine(): Plugin {
  return {
    name: 'attention-playground-pretrained-engine',
    apply: 'build',
    async closeBundle() {
      await build({
        configFile: false,
        logLevel: 'warn',
        build: {
          lib: { entry: dist('element-pretrained.js'), formats: ['iife'], name: 'AttentionPlaygroundPretrained' },
          rollupOptions: { output: { entryFileNames: PRETRAINED_SCRIPT } },
          outDir: 'dist',
          emptyOutDir: false,
          target: 'es2022',
        },
      });
      recordSizes(['dist/element.js', `dist/${PRETRAINED_SCRIPT}`]);
    },
  };
}

export default defineConfig({
  resolve: {
    // Every name the front end imports the engine by resolves to the element's engine, so
    // the bundle holds one copy of the API and one engine.
    alias: [{ find: /^attention-playground(\/inline|\/element-engine)?$/, replacement: dist('element-engine.js') }],
  },
  plugins: [pretrainedEngine()],
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
