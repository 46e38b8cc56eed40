import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  // The playground's code imports the engine by its package name, as the site build does.
  resolve: {
    alias: [
      {
        find: /^attention-playground(\/threads)?$/,
        replacement: fileURLToPath(new URL('./dist/node.js', import.meta.url)),
      },
    ],
  },
  test: {
    include: ['tests/wasm/**/*.test.ts', 'tests/web/**/*.test.ts', 'tests/docs/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', 'junit'],
    outputFile: { junit: 'test-output/vitest-junit.xml' },
  },
});
