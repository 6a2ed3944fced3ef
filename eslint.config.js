// @ts-check
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import tseslint from 'typescript-eslint';

export default defineConfig(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'coverage/',
      '**/*.js',
      '!eslint.config.js',
      '!src/playground/**/*.js',
    ],
  },
  js.configs.recommended,
  tseslint.configs.strictTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        projectService: true,
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      '@typescript-eslint/explicit-function-return-type': ['error', { allowExpressions: true }],
      '@typescript-eslint/no-explicit-any': 'error',
      '@typescript-eslint/no-non-null-assertion': 'error',
      '@typescript-eslint/restrict-template-expressions': ['error', { allowNumber: true }],
      // The project declares no enums (banned below), so this rule could only ever flag enums of
      // dependencies, which we do not use; it cost a quarter of the lint run (about 10 of 41 s
      // and 350 MB of its peak memory) asking the type checker about every assignment.
      '@typescript-eslint/no-unsafe-enum-assignment': 'off',
      'no-restricted-syntax': [
        'error',
        {
          selector: 'TSEnumDeclaration',
          message:
            'Use a union of string literals (and a readonly array of them) instead of an enum.',
        },
      ],
    },
  },
  {
    // The playground page: browser JavaScript, type-checked from its JSDoc (tsconfig.playground.json).
    files: ['src/playground/**/*.js'],
    languageOptions: {
      sourceType: 'module',
      parserOptions: {
        projectService: false,
        project: ['./tsconfig.playground.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // tsc knows the browser's globals; return types are JSDoc @returns.
      'no-undef': 'off',
      '@typescript-eslint/explicit-function-return-type': 'off',
    },
  },
  {
    // The two tool configurations are linted without type information: type-checking them needs
    // a default program of their own (its lib and the plugins' types), about 8 s of every run.
    files: ['eslint.config.js', '.dependency-cruiser.cjs'],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    // dependency-cruiser's configuration: CommonJS, as its CLI loads it.
    files: ['.dependency-cruiser.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { module: 'writable' } },
  },
  {
    // One-off developer scripts in plain JavaScript (node scripts/dev/<name>.mjs): no types to check.
    files: ['scripts/dev/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: { '@typescript-eslint/explicit-function-return-type': 'off' },
  },
  {
    // Tests, benchmarks and scripts: the syntactic rules only. Type-aware rules on them cost about
    // half of every run (they are half the code), and tsc (npm run typecheck) checks their types.
    // The product code under src/ keeps every type-aware rule.
    files: [
      '**/*.test.ts',
      '**/*.test-support.ts',
      'test/**/*.ts',
      'bench/**/*.ts',
      'scripts/**/*.ts',
      'vitest.config.ts',
    ],
    extends: [tseslint.configs.disableTypeChecked],
  },
  {
    files: ['**/*.test.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/explicit-function-return-type': 'off',
    },
  },
);
