/** Types of table-owners.js: the local ESLint rule. */
import type { Rule } from 'eslint';
declare const rule: Rule.RuleModule;
export default rule;
