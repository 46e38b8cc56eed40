// ESLint for the TypeScript and the Node scripts: typescript-eslint's recommended rules;
// formatting is Prettier's (eslint-config-prettier turns off the rules it owns).
import js from '@eslint/js';
import prettier from 'eslint-config-prettier';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'dist-web/**',
      'dist-docs/**',
      'build/**',
      'node_modules/**',
      'test-output/**',
      '.tools/**',
      'wasm/src/schema.generated.ts',
      'bench/.cache/**',
      'web/public/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    rules: {
      // `_`-prefixed names are deliberately unused (a parameter kept for its position).
      // The emcc glue imports exist only after a build, so their @ts-ignore stays, with its reason.
      '@typescript-eslint/ban-ts-comment': [
        'error',
        { 'ts-ignore': 'allow-with-description', minimumDescriptionLength: 10 },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
    },
  },
  // An Emscripten --js-library: emcc provides mergeInto and LibraryManager when it links.
  { files: ['core/kernels/*.js'], languageOptions: { globals: { mergeInto: 'readonly', LibraryManager: 'readonly' } } },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  prettier,
);
