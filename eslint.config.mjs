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
      // Files and functions small enough to read in one sitting (docs/layout.md).
      'max-lines': ['error', { max: 250 }],
      'max-lines-per-function': ['error', { max: 60, skipBlankLines: true, skipComments: true }],
    },
  },
  {
    // The platform's code lets no failure go silently: a failure it can do without says why (letGo, @app/failures).
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    rules: {
      'no-restricted-syntax': [
        'error',
        {
          selector: "CallExpression[callee.property.name='catch'] > ArrowFunctionExpression[params.length=0]",
          message: "A .catch that ignores its error: say why with letGo('why', logger) from @app/failures, or rethrow.",
        },
        {
          selector: "CallExpression[callee.property.name='on'][arguments.0.value='error'] > ArrowFunctionExpression[params.length=0]",
          message: "An 'error' listener that ignores the error: say why with letGo('why', logger) from @app/failures.",
        },
      ],
    },
  },
  {
    // A spec's describe callback is a list of tests, not one function to read at once; the file limit still holds.
    files: ['**/*.spec.ts'],
    rules: { 'max-lines-per-function': 'off' },
  },
);
