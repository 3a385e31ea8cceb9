/**
 * The payments' RPC port (rpc.ts) over a web3.js `Connection`. Every call has a time limit (`timeoutMs`,
 * default 5 s) and reads at commitment `confirmed`. getTransaction is a raw JSON-RPC request through the
 * Connection's own fetch (the process's RPC budget for a budgeted Connection: connection.ts) declaring the
 * highest transaction version we read, its `json` answer read by tx-answer.ts, so legacy, v0 and v1 are judged
 * alike and an answer we cannot read says why (docs/decisions/transaction-versions.md).
 */
import { PublicKey, type Connection } from '@solana/web3.js';
import { fetchOf } from './connection';
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

/** One getTransaction as a raw JSON-RPC request over `connection`'s endpoint and fetch. */
async function rawGetTransaction(connection: Connection, signature: string): Promise<unknown> {
  const res = await fetchOf(connection)(connection.rpcEndpoint, {
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

/** Adapts a web3.js Connection to the port. */
export function connectionPaymentRpc(
  connection: Connection,
  options: { timeoutMs?: number } = {},
): PaymentRpc {
  const timeoutMs = options.timeoutMs ?? 5_000;
  return {
    getSignaturesForAddress: (address, query) =>
      withTimeout('getSignaturesForAddress', timeoutMs, async () => {
        const list = await connection.getSignaturesForAddress(
          new PublicKey(address),
          { before: query.before, until: query.until, limit: query.limit },
          'confirmed',
        );
        return list.map((s) => ({
          signature: s.signature,
          slot: s.slot,
          err: s.err ?? null,
          blockTime: s.blockTime ?? null,
          confirmationStatus: toCommitment(s.confirmationStatus),
        }));
      }),

    getTransaction: (signature) =>
      withTimeout('getTransaction', timeoutMs, async () =>
        readGetTransactionBody(signature, await rawGetTransaction(connection, signature)),
      ),

    getSignatureStatuses: (signatures) =>
      withTimeout('getSignatureStatuses', timeoutMs, async () => {
        const res = await connection.getSignatureStatuses(signatures, { searchTransactionHistory: true });
        return res.value.map((s) =>
          s
            ? { slot: s.slot, err: s.err ?? null, confirmationStatus: toCommitment(s.confirmationStatus) }
            : null,
        );
      }),
  };
}
