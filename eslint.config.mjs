// @ts-check
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The rules that catch what a reviewer would: the recommended sets, plus the type-aware ones that
 * matter where money and state move (a promise nobody awaits is a write nobody waits for).
 */
export default tseslint.config(
  {
    ignores: [
      'dist/',
      '.stack/',
      'node_modules/',
      'coverage/',
      'chaos/runs/',
      'libs/events/src/generated/',
      // A package of its own (its own dependencies), run by Node's type stripping: not part of this build.
      'bench/peers/',
      '**/*.js',
      '**/*.mjs',
      '**/*.cjs',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { arguments: false, attributes: false } }],
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      eqeqeq: ['error', 'always'],
    },
  },
);
