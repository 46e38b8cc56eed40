// The playground site (web/). The engine is the package built in dist/
// (npm run build:package), imported under its published name.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: 'web',
  base: './',
  resolve: {
    alias: { 'attention-playground': fileURLToPath(new URL('./dist/index.js', import.meta.url)) },
  },
  worker: { format: 'es' },
  build: { outDir: '../dist-web', emptyOutDir: true, target: 'es2022' },
  server: { host: '127.0.0.1', port: 5173 },
  preview: { host: '127.0.0.1', port: 4173 },
});
