import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';
import imports from './eslint-rules/imports.js';
import tableOwners from './eslint-rules/table-owners.js';
import { TABLE_OWNERS } from './eslint-rules/table-map.js';

const local = { rules: { ...imports.rules, 'table-owners': tableOwners } };

const serverOnly = ['**/server/**', '**/localnet/**', '**/*.server', '**/*.server.ts'];
const nodeBuiltins = [
  'node:*',
  'fs',
  'path',
  'crypto',
  'http',
  'https',
  'net',
  'os',
  'child_process',
  'better-sqlite3',
  'pg',
  'kysely',
  'nodemailer',
  'fastify',
  'litesvm',
];

export default tseslint.config(
  { ignores: ['dist/**', 'var/**', 'node_modules/**', 'coverage/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
      globals: { ...globals.node },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': ['error', { checksVoidReturn: { attributes: false } }],
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_' }],
    },
  },
  {
    // No import cycles anywhere; each web feature owns its calls, components and state and reaches another
    // feature only through what they share (src/core, src/web/lib, src/web/components, src/web/api,
    // src/web/checkout/shared). Pages compose features.
    files: ['**/*.ts', '**/*.tsx', '**/*.js'],
    plugins: { local },
    rules: {
      'local/no-cycle': 'error',
      'local/feature-boundaries': [
        'error',
        [
          {
            from: 'src/web/seller',
            forbid: ['src/web/checkout', 'src/web/pages'],
            message: 'The seller console does not import the checkout or pages; share through src/web/lib.',
          },
          {
            from: 'src/web/checkout',
            forbid: ['src/web/seller', 'src/web/pages'],
            message: 'The checkout does not import the seller console or pages.',
          },
          {
            from: 'src/web/checkout/wallet',
            forbid: ['src/web/checkout/qr'],
            message: 'The wallet checkout reaches the QR checkout only through src/web/checkout/shared.',
          },
          {
            from: 'src/web/checkout/qr',
            forbid: ['src/web/checkout/wallet'],
            message: 'The QR checkout reaches the wallet checkout only through src/web/checkout/shared.',
          },
          {
            from: 'src/web/checkout/shared',
            forbid: ['src/web/checkout/wallet', 'src/web/checkout/qr'],
            message: 'What the checkouts share imports neither of them.',
          },
        ],
      ],
    },
  },
  {
    // Server zones: a route under src/server/http/ hands work to the domain modules and never reaches the store.
    files: ['src/server/http/**/*.ts'],
    plugins: { local },
    rules: {
      'local/feature-boundaries': [
        'error',
        [
          {
            from: 'src/server/http',
            forbid: ['src/server/store'],
            message: 'A route does not import the store; ask the module that owns the data.',
          },
        ],
      ],
    },
  },
  {
    // One writer per table (docs/decisions/architecture.md): the table → module map. A write to a table from
    // any other file, to a table not in the map, or to a table that is not named fails the lint.
    files: ['src/**/*.ts'],
    ignores: ['src/**/*.test.ts'],
    plugins: { local },
    rules: { 'local/table-owners': ['error', TABLE_OWNERS] },
  },
  {
    // The browser bundle never imports server code, the localnet, or Node-only modules.
    files: ['src/web/**/*.{ts,tsx}'],
    languageOptions: { globals: { ...globals.browser } },
    plugins: { 'react-hooks': reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            { group: serverOnly, message: 'The browser must not import server or localnet code.' },
            { group: nodeBuiltins, message: 'Node-only modules stay out of the browser bundle.' },
          ],
        },
      ],
    },
  },
  {
    // Pure domain: no I/O, shared by web and server.
    files: ['src/core/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              group: [...serverOnly, '**/web/**'],
              message: 'src/core is pure domain code shared by web and server.',
            },
            { group: nodeBuiltins, message: 'src/core must not do I/O.' },
          ],
        },
      ],
    },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
