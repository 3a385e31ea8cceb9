/**
 * The narrow RPC port payment verification needs, and its adapter over @solana/web3.js `Connection`.
 *
 * Everything crossing this port is plain data: addresses and signatures as base58 strings (never `PublicKey`
 * objects compared with `===`), token amounts as raw integer strings. Tests drive verification through it.
 */
import { PublicKey, type Connection, type TokenBalance } from '@solana/web3.js';

export type ChainCommitment = 'processed' | 'confirmed' | 'finalized';

/** One entry of getSignaturesForAddress (newest first, as the RPC returns them). */
export interface SignatureInfo {
  signature: string;
  slot: number;
  err: unknown;
  blockTime: number | null;
  confirmationStatus: ChainCommitment | null;
}

/** A token balance entry of a transaction's meta (pre or post). `amount` is the raw integer amount. */
export interface TokenBalanceEntry {
  accountIndex: number;
  mint: string;
  owner: string | null;
  amount: string;
}

/** What verification reads from a landed transaction. */
export interface PaymentTransaction {
  signature: string;
  slot: number;
  blockTime: number | null;
  /** `meta.err`: null when the transaction succeeded. */
  err: unknown;
  /** Every account key in runtime order: static keys, then loaded writable, then loaded readonly. */
  accountKeys: string[];
  /**
   * The keys that can be a Solana Pay reference: read-only and not signers (a reference is added to the transfer
   * instruction as a read-only, non-signer key). Absent when the node's answer does not say.
   */
  referenceKeys?: string[];
  preTokenBalances: TokenBalanceEntry[];
  postTokenBalances: TokenBalanceEntry[];
}

export interface SignatureStatusInfo {
  slot: number;
  err: unknown;
  confirmationStatus: ChainCommitment | null;
}

export interface SignaturesQuery {
  before?: string;
  until?: string;
  limit?: number;
}

export interface PaymentRpc {
  /** Signatures of transactions mentioning `address`, newest first, at commitment `confirmed`. */
  getSignaturesForAddress(address: string, query: SignaturesQuery): Promise<SignatureInfo[]>;
  /** A landed transaction at commitment `confirmed` (any version up to 0), or null when unknown. */
  getTransaction(signature: string): Promise<PaymentTransaction | null>;
  /** Statuses, searching the whole history, in the order asked. */
  getSignatureStatuses(signatures: string[]): Promise<(SignatureStatusInfo | null)[]>;
}

/** An RPC call failed (transport, node error). Verification throws it; the caller retries later. */
export class PaymentRpcError extends Error {
  override name = 'PaymentRpcError';
  constructor(
    readonly method: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`${method}: ${message}`, options);
  }
}

/** An RPC call took longer than its time limit. */
export class PaymentRpcTimeoutError extends PaymentRpcError {
  override name = 'PaymentRpcTimeoutError';
  constructor(
    method: string,
    readonly timeoutMs: number,
  ) {
    super(method, `no answer within ${timeoutMs} ms`);
  }
}

/** Runs `call` with a time limit; wraps any failure in PaymentRpcError. The timer never keeps the process alive. */
export async function withTimeout<T>(method: string, timeoutMs: number, call: () => Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new PaymentRpcTimeoutError(method, timeoutMs)), timeoutMs);
    timer.unref?.();
  });
  try {
    return await Promise.race([call(), timeout]);
  } catch (err) {
    if (err instanceof PaymentRpcError) throw err;
    throw new PaymentRpcError(method, err instanceof Error ? err.message : String(err), { cause: err });
  } finally {
    if (timer) clearTimeout(timer);
  }
}

function toCommitment(s: string | null | undefined): ChainCommitment | null {
  return s === 'processed' || s === 'confirmed' || s === 'finalized' ? s : null;
}

/**
 * Adapts a web3.js Connection to the port. Every call has a time limit (`timeoutMs`, default 5 s); reads use
 * commitment `confirmed` and accept versioned (v0) transactions.
 */
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
      withTimeout('getTransaction', timeoutMs, async () => {
        const tx = await connection.getTransaction(signature, {
          commitment: 'confirmed',
          maxSupportedTransactionVersion: 0,
        });
        if (!tx) return null;
        const meta = tx.meta;
        const message = tx.transaction.message;
        const keys = message.getAccountKeys({ accountKeysFromLookups: meta?.loadedAddresses ?? undefined });
        const accountKeys: string[] = [];
        for (let i = 0; i < keys.length; i++) {
          const k = keys.get(i);
          if (k) accountKeys.push(k.toBase58());
        }
        // Read-only non-signers: the static keys' last numReadonlyUnsignedAccounts, and the loaded read-only ones.
        const staticCount = keys.staticAccountKeys.length;
        const firstReadonlyUnsigned = staticCount - message.header.numReadonlyUnsignedAccounts;
        const referenceKeys = [
          ...accountKeys.slice(
            Math.max(message.header.numRequiredSignatures, firstReadonlyUnsigned),
            staticCount,
          ),
          ...(meta?.loadedAddresses?.readonly ?? []).map((k) => k.toBase58()),
        ];
        const balances = (list: TokenBalance[] | null | undefined): TokenBalanceEntry[] =>
          (list ?? []).map((b) => ({
            accountIndex: b.accountIndex,
            mint: b.mint,
            owner: b.owner ?? null,
            amount: b.uiTokenAmount.amount,
          }));
        return {
          signature,
          slot: tx.slot,
          blockTime: tx.blockTime ?? null,
          // A transaction without meta cannot be verified: treat it as failed rather than as paid.
          err: meta ? (meta.err ?? null) : { missingMeta: true },
          accountKeys,
          referenceKeys,
          preTokenBalances: meta ? balances(meta.preTokenBalances) : [],
          postTokenBalances: meta ? balances(meta.postTokenBalances) : [],
        };
      }),

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
