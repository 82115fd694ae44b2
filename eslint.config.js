import { dirname, relative, resolve } from 'node:path';
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

/**
 * The layers' boundaries (ARCHITECTURE.md), checked by ESLint's own rules:
 * - routes call services, never repositories or the storage engine;
 * - the contract is read by the web app's compiler, so it imports nothing of the server;
 * - only storage/ knows which engine runs: the drivers and `dialect === …` branches live there;
 * - no import runs up the layers of src/ (LAYERS below, pictured in ARCHITECTURE.md).
 */
const ENGINE_BRANCH = {
  selector: 'BinaryExpression[operator=/^[!=]==$/] > Literal[value=/^(postgres|sqlite)$/]',
  message: 'Engine branches belong in src/storage/ (dialect.ts or the store), behind a function.',
};
const ENGINE_DRIVERS = [
  { name: 'pg', message: 'Only src/storage/ talks to the PostgreSQL driver.' },
  { name: 'better-sqlite3', message: 'Only src/storage/ talks to the SQLite driver.' },
];

/**
 * src/'s layers, lowest first: a module (a folder of src/, or a file directly in it) may import
 * from its own layer and the layers below it, never from one above. Each resource is a layer of
 * its own, so the resources' order is held too. A folder missing here is an error: place it.
 */
const LAYERS = [
  [
    'contract',
    'storage',
    'jobs',
    'caller.ts',
    'clock.ts',
    'config.ts',
    'ids.ts',
    'pages.ts',
    's3-config.ts',
    'secret-hash.ts',
  ],
  ['changes'], // the outbox and every row a change leaves behind; the bridge to the bus
  ['http'], // what every request shares; knows no resource
  ['team'], // identity: teams, users, roles, passwords
  ['sessions'],
  ['keys'],
  ['oauth'], // OAuth 2.1 for MCP clients (issue 33): its tokens are scoped keys
  ['lists'],
  ['statuses'],
  ['labels'], // team-wide, like statuses; tasks carry them
  ['tasks'],
  ['activity'],
  ['comments'],
  ['attachments'], // files on tasks (issue 31): the rows, the file stores (storage/: disk or S3), the reconciliation
  ['search'], // reads tasks and their comments, under the task-access rule
  ['invitations'],
  ['webhooks'],
  ['views'], // saved views (issue 29)
  ['notifications'], // the inbox and following (issue 30)
  ['mail'], // notification preferences and email: the queue, its worker, unsubscribe links (issue 30)
  ['reminders'], // due-date reminder settings, and firing the reminders the scheduled jobs hold (issue 30)
  ['exports'], // team exports (issue 32): reads every resource above through its repositories and presenters
  ['imports'], // imports (issue 32): source readers, then the plan and its writes through the resources above
  ['membership'], // the use cases that reach across resources
  ['realtime'],
  ['mcp'], // the MCP server at /mcp (issue 33): tools over the resources' services, for agents
  ['auth', 'cli', 'app.ts', 'server.ts', 'housekeeping.ts'], // composition
];
/** Imports that run up, each with its reason (ARCHITECTURE.md lists them too). */
const UPWARD_EXCEPTIONS = new Map([
  // A deleted status moves its tasks, and their events go to each task's readers: the task-access rule.
  ['statuses/statuses.service.ts -> tasks/access.ts', true],
  // A deleted label comes off its tasks, whose events go to each task's readers: the same rule.
  ['labels/labels.service.ts -> tasks/access.ts', true],
]);
const layerOf = new Map(LAYERS.flatMap((modules, rank) => modules.map((module) => [module, rank])));
const SRC = resolve('src');
const moduleOf = (path) => relative(SRC, path).split('/')[0];

const layersRule = {
  meta: { type: 'problem', schema: [] },
  create(context) {
    const from = relative(SRC, context.filename);
    const fromRank = layerOf.get(moduleOf(context.filename));
    const check = (node) => {
      const spec = node.source?.value;
      if (typeof spec !== 'string' || !spec.startsWith('.')) return;
      const target = resolve(dirname(context.filename), spec).replace(/\.js$/, '.ts');
      if (fromRank === undefined) {
        return context.report({
          node,
          message: `src/${moduleOf(context.filename)} has no layer: add it to LAYERS in eslint.config.js.`,
        });
      }
      const toRank = layerOf.get(moduleOf(target));
      if (toRank === undefined || toRank <= fromRank) return;
      if (UPWARD_EXCEPTIONS.has(`${from} -> ${relative(SRC, target)}`)) return;
      context.report({
        node,
        message: `src/${moduleOf(context.filename)} sits below src/${moduleOf(target)} (LAYERS in eslint.config.js): import downward only.`,
      });
    };
    return {
      ImportDeclaration: check,
      ExportNamedDeclaration: check,
      ExportAllDeclaration: check,
      ImportExpression: check,
    };
  },
};

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
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    plugins: { tasklane: { rules: { layers: layersRule } } },
    rules: { 'tasklane/layers': 'error' },
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
