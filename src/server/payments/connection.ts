/**
 * The one way the server builds its Solana RPC client: a @solana/kit `Rpc` whose every HTTP request takes a slot
 * from the process's RPC budget (`budget.ts`: SOLANA_RPC_BUDGET per 10 s, 40 % per method, 429 pauses every
 * caller; the budget honours Retry-After for the whole process, and nothing else retries). The payment watcher,
 * the seller console's refund check, the readiness probe, the transaction requests' blockhash, the payout-account
 * and balance reads and the start-up check of the vendors' token accounts all go through it (the raw JSON-RPC
 * requests too, through its `fetch`: rpc-adapter.ts's getTransaction of every version), so every RPC call of the
 * process shares one budget.
 *
 * kit's own HTTP transport uses the global fetch and coalesces identical requests made in the same tick; ours
 * (`fetchTransport`) sends each request through the given fetch, one HTTP request per call, as web3.js did: the
 * budget counts what is sent.
 */
import { createSolanaRpcFromTransport, type Rpc, type RpcTransport, type SolanaRpcApi } from '@solana/kit';
import type { Settings } from '../settings';
import { budgetedFetch, type RpcBudget } from './budget';

export interface ChainRpc {
  /** kit's Solana RPC (every request through `fetch`; default commitment `confirmed`). */
  readonly api: Rpc<SolanaRpcApi>;
  /** The endpoint, for raw JSON-RPC requests through `fetch`. */
  readonly url: string;
  /** The fetch every request goes through (the budgeted one for budgetedRpc). */
  readonly fetch: typeof fetch;
}

export interface BudgetedRpcOptions {
  /** Time limit of each request, waiting for a budget slot included (ms). Default 5000. */
  timeoutMs?: number;
}

/** The process's RPC: every request takes its slot from `budget`. */
export function budgetedRpc(
  solana: Pick<Settings['solana'], 'rpcUrl'>,
  budget: RpcBudget,
  options: BudgetedRpcOptions = {},
): ChainRpc {
  return chainRpc(solana.rpcUrl, budgetedFetch(budget, { deadlineMs: options.timeoutMs ?? 5_000 }));
}

/** An RPC client over `fetchFn` (the global fetch by default: tests and scripts, outside any budget). */
export function chainRpc(url: string, fetchFn: typeof fetch = globalThis.fetch.bind(globalThis)): ChainRpc {
  return { api: createSolanaRpcFromTransport(fetchTransport(url, fetchFn)), url, fetch: fetchFn };
}

/** JSON in bodies: a bigint parameter is written as a number (kit's request transformers refuse unsafe ones). */
function toJson(payload: unknown): string {
  return JSON.stringify(payload, (_key, value: unknown) =>
    typeof value === 'bigint' ? Number(value) : value,
  );
}

/** The node answered a request with a JSON-RPC error: its code and its own words (kept in production too). */
export class ChainRpcError extends Error {
  override name = 'ChainRpcError';
  constructor(
    readonly code: number | undefined,
    message: string,
  ) {
    super(`JSON-RPC error${code === undefined ? '' : ` ${code}`}: ${message}`);
  }
}

/**
 * kit's transport contract over `fetchFn`: POST the JSON-RPC payload, answer the parsed body (kit's response
 * transformers then turn integers into bigints). An HTTP error (a 429 the budget gave up on, a 5xx) throws with
 * its status, as web3.js's did; a JSON-RPC error throws a ChainRpcError with the node's words (kit's own
 * SolanaError would say only a code under NODE_ENV=production).
 */
function fetchTransport(url: string, fetchFn: typeof fetch): RpcTransport {
  return async <TResponse>({ payload, signal }: { payload: unknown; signal?: AbortSignal }) => {
    const res = await fetchFn(url, {
      method: 'POST',
      headers: { accept: 'application/json', 'content-type': 'application/json; charset=utf-8' },
      body: toJson(payload),
      ...(signal ? { signal } : {}),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${res.status} ${res.statusText}: ${text.slice(0, 300)}`);
    const body = JSON.parse(text) as TResponse;
    const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
    if (error)
      throw new ChainRpcError(
        typeof error.code === 'number' ? error.code : undefined,
        typeof error.message === 'string' ? error.message : JSON.stringify(error),
      );
    return body;
  };
}
