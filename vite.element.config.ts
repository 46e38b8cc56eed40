// The one-file element bundle: dist/element.js (package export
// "attention-playground/element"), also copied into the site as
// attention-playground.js. Everything inlined: Lit, d3, the components and the
// engine with its .wasm. Built as an IIFE with no exports, so the same file works
// as a classic <script src> (the only kind browsers run from file://) and as
// <script type="module"> or `import 'attention-playground/element'`.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  resolve: {
    // Both names resolve to the inline engine, so the bundle holds one copy of the API.
    alias: [
      {
        find: /^attention-playground(\/inline)?$/,
        replacement: fileURLToPath(new URL('./dist/inline.js', import.meta.url)),
      },
    ],
  },
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
