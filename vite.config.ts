// The playground site (web/): the playground, the iframe page and the tutorial. The engine is the package built in dist/
// (npm run build:package), imported under its published name.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';
// Cross-origin isolation (COOP/COEP): pages get shared memory, so the engine runs its threaded build.
const isolation: Record<string, string> = JSON.parse(
  readFileSync(new URL('./web/cross-origin-isolation.json', import.meta.url), 'utf8'),
);

export default defineConfig({
  root: 'web',
  base: './',
  resolve: {
    // The site offers the threaded engine (its pages are cross-origin isolated, its workers ES modules).
    alias: [
      { find: /^attention-playground$/, replacement: fileURLToPath(new URL('./dist/index.js', import.meta.url)) },
      {
        find: /^attention-playground\/threads$/,
        replacement: fileURLToPath(new URL('./dist/threads.js', import.meta.url)),
      },
    ],
  },
  worker: { format: 'es' },
  build: {
    outDir: '../dist-web',
    emptyOutDir: true,
    target: 'es2022',
    rollupOptions: {
      input: {
        main: fileURLToPath(new URL('./web/index.html', import.meta.url)),
        embed: fileURLToPath(new URL('./web/embed.html', import.meta.url)),
        tutorial: fileURLToPath(new URL('./web/tutorial.html', import.meta.url)),
      },
    },
  },
  server: { host: '127.0.0.1', port: 5173, headers: isolation },
  preview: { host: '127.0.0.1', port: 4173, headers: isolation },
});
