/**
 * The one way the server builds a Solana `Connection`: every HTTP request it makes takes a slot from the process's
 * RPC budget (`budget.ts`: SOLANA_RPC_BUDGET per 10 s, 40 % per method, 429 pauses every caller), and web3.js's
 * own 429 retry loop is off (the budget honours Retry-After for the whole process instead). The payment watcher,
 * the seller console's refund check, the readiness probe and the start-up check of the vendors' token accounts
 * all go through it (raw JSON-RPC requests too, through `fetchOf`), so every RPC call of the process shares one
 * budget.
 */
import { Connection } from '@solana/web3.js';
import type { Settings } from '../settings';
import { budgetedFetch, type RpcBudget } from './budget';

export interface BudgetedConnectionOptions {
  /** Time limit of each request, waiting for a budget slot included (ms). Default 5000. */
  timeoutMs?: number;
}

export function budgetedConnection(
  solana: Pick<Settings['solana'], 'rpcUrl' | 'wsUrl'>,
  budget: RpcBudget,
  options: BudgetedConnectionOptions = {},
): Connection {
  const fetch = budgetedFetch(budget, { deadlineMs: options.timeoutMs ?? 5_000 });
  const connection = new Connection(solana.rpcUrl, {
    commitment: 'confirmed',
    wsEndpoint: solana.wsUrl,
    fetch,
    disableRetryOnRateLimit: true,
  });
  fetches.set(connection, fetch);
  return connection;
}

const fetches = new WeakMap<Connection, typeof fetch>();

/**
 * The fetch `connection`'s requests go through (a budgeted Connection's budgeted fetch; another's, the global
 * one), for the raw JSON-RPC requests web3.js does not make for us (rpc-adapter.ts: getTransaction of every
 * version we read), so they take their slot from the same budget.
 */
export function fetchOf(connection: Connection): typeof fetch {
  return fetches.get(connection) ?? globalThis.fetch.bind(globalThis);
}
