/**
 * The payments' RPC port (rpc.ts) over the server's RPC client (connection.ts: @solana/kit over the budgeted
 * fetch). Every call has a time limit (`timeoutMs`, default 5 s) and reads at commitment `confirmed`.
 * getTransaction is a raw JSON-RPC request through the client's own fetch (the process's RPC budget for a
 * budgeted client) declaring the highest transaction version we read, its `json` answer read by tx-answer.ts, so
 * legacy, v0 and v1 are judged alike and an answer we cannot read says why (docs/decisions/transaction-versions.md).
 */
import { address, type Signature } from '@solana/kit';
import type { ChainRpc } from './connection';
import {
  PaymentRpcError,
  UnreadableTransactionError,
  withTimeout,
  type ChainCommitment,
  type PaymentRpc,
} from './rpc';
import { MAX_TRANSACTION_VERSION, readGetTransactionBody } from './tx-answer';

function toCommitment(s: string | null | undefined): ChainCommitment | null {
  return s === 'processed' || s === 'confirmed' || s === 'finalized' ? s : null;
}

let nextId = 1;

/** One getTransaction as a raw JSON-RPC request over the client's endpoint and fetch. */
async function rawGetTransaction(chain: ChainRpc, signature: string): Promise<unknown> {
  const res = await chain.fetch(chain.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: nextId++,
      method: 'getTransaction',
      params: [
        signature,
        {
          commitment: 'confirmed',
          encoding: 'json',
          maxSupportedTransactionVersion: MAX_TRANSACTION_VERSION,
        },
      ],
    }),
  });
  const text = await res.text();
  if (!res.ok) throw new PaymentRpcError('getTransaction', `HTTP ${res.status}`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new UnreadableTransactionError('malformed', 'malformed answer: not JSON');
  }
}

/** Adapts the RPC client to the port. */
export function chainPaymentRpc(chain: ChainRpc, options: { timeoutMs?: number } = {}): PaymentRpc {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return {
    getSignaturesForAddress: (owner, query) =>
      withTimeout('getSignaturesForAddress', timeoutMs, async () => {
        const list = await chain.api
          // The address is checked here (as web3.js did); signatures go to the node as given, it judges them.
          .getSignaturesForAddress(address(owner), {
            commitment: 'confirmed',
            ...(query.before !== undefined ? { before: query.before as Signature } : {}),
            ...(query.until !== undefined ? { until: query.until as Signature } : {}),
            ...(query.limit !== undefined ? { limit: query.limit } : {}),
          })
          .send();
        return list.map((s) => ({
          signature: s.signature,
          slot: Number(s.slot),
          err: s.err ?? null,
          blockTime: s.blockTime == null ? null : Number(s.blockTime),
          confirmationStatus: toCommitment(s.confirmationStatus),
        }));
      }),

    getTransaction: (signature) =>
      withTimeout('getTransaction', timeoutMs, async () =>
        readGetTransactionBody(signature, await rawGetTransaction(chain, signature)),
      ),

    getSignatureStatuses: (signatures) =>
      withTimeout('getSignatureStatuses', timeoutMs, async () => {
        const res = await chain.api
          .getSignatureStatuses(signatures as Signature[], { searchTransactionHistory: true })
          .send();
        return res.value.map((s) =>
          s
            ? {
                slot: Number(s.slot),
                err: s.err ?? null,
                confirmationStatus: toCommitment(s.confirmationStatus),
              }
            : null,
        );
      }),
  };
}
