import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import reactHooks from 'eslint-plugin-react-hooks';
import globals from 'globals';

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
