// Bundles the libraries the package loads on demand into dist/vendor/, so the published
// package keeps zero runtime dependencies: dist/vendor/jinja.js (from
// wasm/src/vendor/jinja.ts, which tsc emits as a re-export of the dev dependency
// @huggingface/jinja) becomes @huggingface/jinja in one ES module. Run after tsc
// (scripts/build-wasm.sh).
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const root = fileURLToPath(new URL('../', import.meta.url));
await build({
  configFile: false,
  root,
  logLevel: 'warn',
  build: {
    lib: { entry: `${root}wasm/src/vendor/jinja.ts`, formats: ['es'], fileName: () => 'jinja.js' },
    outDir: `${root}dist/vendor`,
    emptyOutDir: false,
    target: 'es2022',
    minify: true,
  },
});
// Its types without the dev dependency: the part chat-template.ts uses.
writeFileSync(
  `${root}dist/vendor/jinja.d.ts`,
  'export declare class Template {\n  constructor(template: string);\n  render(items?: Record<string, unknown>): string;\n}\n',
);
