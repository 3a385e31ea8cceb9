/**
 * The narrow RPC port payment verification needs (its adapter over the server's RPC client: rpc-adapter.ts).
 *
 * Everything crossing this port is plain data: addresses and signatures as base58 strings (never `PublicKey`
 * objects compared with `===`), token amounts as raw integer strings. Tests drive verification through it.
 */
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
  /**
   * A landed transaction at commitment `confirmed` (any version up to MAX_TRANSACTION_VERSION, tx-answer.ts), or
   * null when unknown. Throws UnreadableTransactionError for one the node has but we cannot read.
   */
  getTransaction(signature: string): Promise<PaymentTransaction | null>;
  /** Statuses, searching the whole history, in the order asked. */
  getSignatureStatuses(signatures: string[]): Promise<(SignatureStatusInfo | null)[]>;
}

/** An RPC call failed (transport, node error). Verification throws it; the caller retries later. */
export class PaymentRpcError extends Error {
  override name = 'PaymentRpcError';
  /** The node's JSON-RPC error code, when the node answered with an error. */
  readonly code: number | undefined;
  constructor(
    readonly method: string,
    message: string,
    options?: { cause?: unknown; code?: number | undefined },
  ) {
    super(`${method}: ${message}`, options?.cause === undefined ? undefined : { cause: options.cause });
    this.code = options?.code;
  }
}

/** Why a transaction the node has cannot be read: a version above ours, or an answer that does not parse. */
export type UnreadableReason = 'unsupported_version' | 'malformed';

/**
 * The node has the transaction but we cannot read it (tx-answer.ts). Asking again gives the same answer, so the
 * watcher sets it aside after a few tries rather than stalling on it. `keys` are the account keys the answer
 * named as far as they could be read ([] when none).
 */
export class UnreadableTransactionError extends PaymentRpcError {
  override name = 'UnreadableTransactionError';
  constructor(
    readonly reason: UnreadableReason,
    detail: string,
    readonly keys: string[] = [],
  ) {
    super('getTransaction', detail, reason === 'unsupported_version' ? { code: -32015 } : undefined);
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
