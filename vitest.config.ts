import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/wasm/**/*.test.ts', 'tests/web/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    reporters: ['default', 'junit'],
    outputFile: { junit: 'test-output/vitest-junit.xml' },
  },
});
