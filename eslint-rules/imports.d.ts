/** Types of imports.js: the local ESLint plugin. */
import type { ESLint } from 'eslint';
declare const plugin: ESLint.Plugin;
export default plugin;
