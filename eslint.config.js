import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers' boundaries (ARCHITECTURE.md), checked by ESLint's own rules:
 * - routes call services, never repositories or the storage engine;
 * - the contract is read by the web app's compiler, so it imports nothing of the server;
 * - only storage/ knows which engine runs: the drivers and `dialect === …` branches live there.
 */
const ENGINE_BRANCH = {
  selector: 'BinaryExpression[operator=/^[!=]==$/] > Literal[value=/^(postgres|sqlite)$/]',
  message: 'Engine branches belong in src/storage/ (dialect.ts or the store), behind a function.',
};
const ENGINE_DRIVERS = [
  { name: 'pg', message: 'Only src/storage/ talks to the PostgreSQL driver.' },
  { name: 'better-sqlite3', message: 'Only src/storage/ talks to the SQLite driver.' },
];

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', 'data/', 'web/dist/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['bin/**/*.js', 'scripts/**/*.mjs', 'bench/experiments/**/*.mjs'],
    languageOptions: {
      globals: { process: 'readonly', console: 'readonly', performance: 'readonly', URL: 'readonly' },
    },
  },
  {
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-non-null-assertion': 'off',
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_' }],
    },
  },
  {
    files: ['src/**/*.ts'],
    ignores: ['src/storage/**', 'src/**/*.test.ts'],
    rules: {
      'no-restricted-syntax': ['error', ENGINE_BRANCH],
      'no-restricted-imports': ['error', { paths: ENGINE_DRIVERS }],
    },
  },
  {
    files: ['src/**/*.routes.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ENGINE_DRIVERS,
          patterns: [
            { group: ['**/*.repository.js'], message: 'Routes call services; only services use repositories.' },
            { group: ['**/storage/*', '!**/storage/database.js'], message: 'Routes never touch the database.' },
          ],
        },
      ],
    },
  },
  {
    files: ['src/contract/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        { patterns: [{ group: ['../*', '!../contract/*'], message: 'The contract imports nothing of the server.' }] },
      ],
    },
  },
);
