/**
 * @solana/spl-token's instruction builders use the Node global `Buffer` without importing it. Browsers have no
 * such global, so the checkout chunks install the `buffer` package's implementation (the one @solana/web3.js
 * already bundles) before building instructions. Import this module for its side effect, first.
 */
import { Buffer } from 'buffer';

const g = globalThis as { Buffer?: unknown };
g.Buffer ??= Buffer;
