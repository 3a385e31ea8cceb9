/**
 * getBlock answers in the shape of a real node (Agave's JSON-RPC): one block per slot here (none is skipped), its
 * height equal to its slot, the parent the slot before, and the transactions that landed in it, in ledger order.
 * `transactionDetails` full (default), accounts, signatures or none; `rewards` (default true) an empty list, as
 * the localnet pays no rewards.
 */
import type { Chain } from './chain.js';
import { RpcError } from './rpc-error.js';
import type { TxRecord } from './history.js';
import { formatTransaction, type TxEncoding } from './tx-format.js';

type Json = Record<string, unknown>;
export type TransactionDetails = 'full' | 'accounts' | 'signatures' | 'none';

export interface BlockOptions {
  encoding: TxEncoding;
  transactionDetails: TransactionDetails;
  rewards: boolean;
  /** The client's maxSupportedTransactionVersion, or undefined when it sent none. */
  maxSupportedTransactionVersion: number | undefined;
}

/** A request's maxSupportedTransactionVersion (a u8, as a node reads it), undefined when it sent none. */
export function maxSupportedVersion(v: unknown): number | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 255) return v;
  throw new RpcError(-32602, 'Invalid params: invalid value: maxSupportedTransactionVersion, expected u8.');
}

export function blockNotAvailable(slot: number): RpcError {
  return new RpcError(-32004, `Block not available for slot ${slot}`);
}

/** The `accounts` detail of a transaction: its keys with their roles, and the balances part of its meta. */
function accountsOnly(r: TxRecord, withVersion: boolean): Json {
  const out: Json = {
    meta: {
      err: r.err,
      fee: r.fee,
      postBalances: r.postBalances,
      postTokenBalances: r.postTokenBalances,
      preBalances: r.preBalances,
      preTokenBalances: r.preTokenBalances,
      status: r.err === null ? { Ok: null } : { Err: r.err },
    },
    transaction: {
      accountKeys: r.accountKeys.map((pubkey, i) => ({
        pubkey,
        signer: r.signer[i] ?? false,
        source: i < r.staticKeyCount ? 'transaction' : 'lookupTable',
        writable: r.writable[i] ?? false,
      })),
      signatures: r.signatures,
    },
  };
  if (withVersion) out.version = r.version;
  return out;
}

/** The block of a slot the caller may see (the commitment check is the caller's). */
export function formatBlock(chain: Chain, slot: number, opts: BlockOptions): Json {
  const blockhash = chain.blockhashOf(slot);
  const blockTime = chain.blockTime(slot);
  if (blockhash === null || blockTime === null) throw blockNotAvailable(slot);
  const parentSlot = Math.max(0, slot - 1);
  const records = [...chain.history.inSlot(slot)].sort((a, b) => a.seq - b.seq);
  const withVersion = opts.maxSupportedTransactionVersion !== undefined;
  const max = opts.maxSupportedTransactionVersion ?? -1;
  const versioned = records.find((r) => r.version !== 'legacy' && r.version > max);
  if (versioned && (opts.transactionDetails === 'full' || opts.transactionDetails === 'accounts')) {
    throw new RpcError(
      -32015,
      `Transaction version (${versioned.version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${versioned.version}`,
    );
  }
  const block: Json = {
    blockHeight: slot,
    blockTime,
    blockhash,
    parentSlot,
    previousBlockhash: chain.blockhashOf(parentSlot),
  };
  if (opts.rewards) block.rewards = [];
  if (opts.transactionDetails === 'signatures') block.signatures = records.map((r) => r.signature);
  if (opts.transactionDetails === 'full')
    block.transactions = records.map((r) => {
      const { meta, transaction, version } = formatTransaction(r, opts.encoding, withVersion) as Json;
      return version === undefined ? { meta, transaction } : { meta, transaction, version };
    });
  if (opts.transactionDetails === 'accounts')
    block.transactions = records.map((r) => accountsOnly(r, withVersion));
  return block;
}
