/**
 * Payment verification: is there a confirmed, successful transaction mentioning the order's Solana Pay
 * reference that moved at least the quoted base units of the $CLAIM mint to the vendor's token account, and
 * whose signature no other order already holds?
 *
 * Unlike @solana/pay's findReference (oldest signature only) and validateTransfer (one transfer instruction at
 * a fixed position), this looks at EVERY transaction that mentions the reference (anyone can send dust with a
 * public reference first) and judges each by the raw token balance change of the recipient's account for the
 * right mint, wherever the transfer instruction sits among the wallet's other instructions.
 */
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import {
  withTimeout,
  type ChainCommitment,
  type PaymentRpc,
  type PaymentTransaction,
  type SignatureInfo,
} from './rpc';

export interface ExpectedPayment {
  /** The order's Solana Pay reference (base58). */
  reference: string;
  /** The vendor's wallet (owner of the receiving token account), base58. */
  recipientOwner: string;
  /** The token mint, base58. */
  mint: string;
  /** The quoted amount in raw base units. */
  amountBaseUnits: bigint;
  /** True when the signature already pays another order (one signature pays at most one order). */
  usedSignature?: (signature: string) => Promise<boolean> | boolean;
}

/** Where and when a payment landed. */
export interface LandedPayment {
  signature: string;
  receivedBaseUnits: bigint;
  slot: number;
  /** Unix seconds of the block, null if the node does not know it. The order service judges lateness from it. */
  blockTime: number | null;
  confirmationStatus: 'confirmed' | 'finalized';
}

export type PaymentOutcome =
  | ({ kind: 'Paid'; overpaid: boolean } & LandedPayment)
  | { kind: 'NotFound'; reason: NotFoundReason }
  | ({ kind: 'Underpaid' } & LandedPayment)
  | { kind: 'WrongMint'; signature: string }
  | { kind: 'WrongRecipient'; signature: string }
  | { kind: 'Failed'; signature: string; err: unknown }
  | { kind: 'AlreadyUsed'; signature: string };

export type NotFoundReason =
  | 'no_transactions' // nothing mentions the reference (yet)
  | 'no_transfer' // transactions mention it but move no tokens
  | 'not_confirmed' // the hinted signature is unknown or only processed
  | 'reference_missing' // the hinted transaction does not mention the order's reference
  | 'malformed_signature'
  | 'not_followed' // the order is past its watch window (24 h after its quote expired)
  | 'already_judged'; // this signature was judged before (see the order's ledger): not fetched again

export interface VerifyOptions {
  /**
   * Signatures already recorded for this order (its ledger): not fetched again and not reported as transfers.
   * verifyPayments only; verifyPayment judges every transaction.
   */
  known?: ReadonlySet<string>;
  /** Time limit for each RPC call (ms). Default 5000. */
  timeoutMs?: number;
  /** Signatures per getSignaturesForAddress page. Default 1000 (the RPC maximum). */
  pageSize?: number;
  /** Stop paging after this many signatures (spam bound). Default 5000. */
  maxSignatures?: number;
  /** Parallel getTransaction calls. Default 4. */
  concurrency?: number;
}

/** What one transaction did with respect to an expected payment. Pure. */
export type TransactionVerdict =
  | { kind: 'Failed'; err: unknown }
  | { kind: 'Transfer'; receivedBaseUnits: bigint }
  | { kind: 'WrongMint' }
  | { kind: 'WrongRecipient' }
  | { kind: 'NoTransfer' };

function associatedTokenAccount(mint: string, owner: string): string | null {
  try {
    return getAssociatedTokenAddressSync(new PublicKey(mint), new PublicKey(owner), true).toBase58();
  } catch {
    return null;
  }
}

function rawAmount(s: string): bigint {
  return /^\d+$/.test(s) ? BigInt(s) : 0n;
}

/**
 * Judges one landed transaction: the raw balance change (post − pre) of the token accounts of `mint` owned by
 * the recipient (or, when the node omits owners, of the recipient's associated token account). An account
 * created in the same transaction has no pre balance and counts from zero.
 */
export function classifyTransaction(
  tx: PaymentTransaction,
  expected: Pick<ExpectedPayment, 'recipientOwner' | 'mint'>,
): TransactionVerdict {
  if (tx.err !== null && tx.err !== undefined) return { kind: 'Failed', err: tx.err };
  const ata = associatedTokenAccount(expected.mint, expected.recipientOwner);
  const accounts = new Map<number, { mint: string; owner: string | null; pre: bigint; post: bigint }>();
  for (const b of tx.preTokenBalances)
    accounts.set(b.accountIndex, { mint: b.mint, owner: b.owner, pre: rawAmount(b.amount), post: 0n });
  for (const b of tx.postTokenBalances) {
    const seen = accounts.get(b.accountIndex);
    if (seen) seen.post = rawAmount(b.amount);
    else accounts.set(b.accountIndex, { mint: b.mint, owner: b.owner, pre: 0n, post: rawAmount(b.amount) });
  }
  let received = 0n;
  let wrongMint = false;
  let wrongRecipient = false;
  for (const [index, a] of accounts) {
    const address = tx.accountKeys[index];
    const isRecipient =
      a.owner !== null ? a.owner === expected.recipientOwner : address !== undefined && address === ata;
    const delta = a.post - a.pre;
    if (a.mint === expected.mint && isRecipient) received += delta;
    else if (delta > 0n && a.mint !== expected.mint) wrongMint = true;
    else if (delta > 0n) wrongRecipient = true;
  }
  if (received > 0n) return { kind: 'Transfer', receivedBaseUnits: received };
  if (wrongRecipient) return { kind: 'WrongRecipient' };
  if (wrongMint) return { kind: 'WrongMint' };
  return { kind: 'NoTransfer' };
}

async function mapBounded<T, R>(items: T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i] as T);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function isConfirmed(s: ChainCommitment | null): s is 'confirmed' | 'finalized' {
  return s === 'confirmed' || s === 'finalized';
}

/** Every signature mentioning `address`, oldest first, following `before` pages up to `maxSignatures`. */
export async function listSignatures(
  rpc: PaymentRpc,
  address: string,
  options: VerifyOptions & { until?: string } = {},
): Promise<SignatureInfo[]> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const pageSize = options.pageSize ?? 1000;
  const max = options.maxSignatures ?? 5000;
  const all: SignatureInfo[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await withTimeout('getSignaturesForAddress', timeoutMs, () =>
      rpc.getSignaturesForAddress(address, { before, until: options.until, limit: pageSize }),
    );
    all.push(...page);
    const last = page[page.length - 1];
    if (page.length < pageSize || !last || all.length >= max) break;
    before = last.signature;
  }
  // The RPC answers newest first; verification wants the earliest payment, so reverse (stable on slot ties).
  return all.reverse().sort((a, b) => a.slot - b.slot);
}

interface Candidate extends LandedPayment {
  order: number;
}

/**
 * Finds and checks every transaction mentioning `expected.reference`. Throws PaymentRpcError (or its timeout
 * subclass) when the RPC fails; every fact about the chain is a typed outcome.
 *
 * Precedence when several transactions mention the reference: the earliest unused full payment (Paid), else
 * the largest unused partial payment (Underpaid), else AlreadyUsed, WrongMint, WrongRecipient, Failed, NotFound.
 */
export async function verifyPayment(
  rpc: PaymentRpc,
  expected: ExpectedPayment,
  options: VerifyOptions = {},
): Promise<PaymentOutcome> {
  const { known: _known, ...rest } = options;
  return (await verifyPayments(rpc, expected, rest)).outcome;
}

/** Every verified transfer to the order (the ledger's input) and the outcome verifyPayment would give. */
export interface PaymentsFound {
  outcome: PaymentOutcome;
  /**
   * Every successful, confirmed transaction mentioning the reference that moved tokens of the mint to the
   * recipient, whose signature no other order holds and which is not in `options.known`; oldest first.
   */
  transfers: LandedPayment[];
}

/**
 * verifyPayment, plus the list of every transfer: the payment ledger records each one once (split payments,
 * top-ups, extra payments), so nothing that paid the order is dropped.
 */
export async function verifyPayments(
  rpc: PaymentRpc,
  expected: ExpectedPayment,
  options: VerifyOptions = {},
): Promise<PaymentsFound> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  const known = options.known ?? new Set<string>();
  const signatures = (await listSignatures(rpc, expected.reference, options)).filter(
    (s) => (isConfirmed(s.confirmationStatus) || s.confirmationStatus === null) && !known.has(s.signature),
  );
  if (signatures.length === 0)
    return { outcome: { kind: 'NotFound', reason: 'no_transactions' }, transfers: [] };

  const fetched = await mapBounded(signatures, options.concurrency ?? 4, async (info) => {
    if (info.err !== null && info.err !== undefined)
      return { info, tx: null, verdict: { kind: 'Failed', err: info.err } as TransactionVerdict };
    const tx = await withTimeout('getTransaction', timeoutMs, () => rpc.getTransaction(info.signature));
    if (!tx) return { info, tx: null, verdict: null };
    return { info, tx, verdict: classifyTransaction(tx, expected) };
  });

  const full: Candidate[] = [];
  const partial: Candidate[] = [];
  let failed: { signature: string; err: unknown } | undefined;
  let wrongMint: string | undefined;
  let wrongRecipient: string | undefined;
  fetched.forEach(({ info, tx, verdict }, order) => {
    if (!verdict) return;
    switch (verdict.kind) {
      case 'Failed':
        failed ??= { signature: info.signature, err: verdict.err };
        return;
      case 'WrongMint':
        wrongMint ??= info.signature;
        return;
      case 'WrongRecipient':
        wrongRecipient ??= info.signature;
        return;
      case 'NoTransfer':
        return;
      case 'Transfer': {
        const c: Candidate = {
          order,
          signature: info.signature,
          receivedBaseUnits: verdict.receivedBaseUnits,
          slot: tx?.slot ?? info.slot,
          blockTime: tx?.blockTime ?? info.blockTime,
          confirmationStatus: info.confirmationStatus === 'finalized' ? 'finalized' : 'confirmed',
        };
        (verdict.receivedBaseUnits >= expected.amountBaseUnits ? full : partial).push(c);
        return;
      }
    }
  });

  const used = async (signature: string): Promise<boolean> =>
    expected.usedSignature ? await expected.usedSignature(signature) : false;
  const usedBy = new Map<string, boolean>();
  for (const c of [...full, ...partial]) usedBy.set(c.signature, await used(c.signature));
  const landedOf = ({ order: _order, ...landed }: Candidate): LandedPayment => landed;
  const transfers = [...full, ...partial]
    .filter((c) => !usedBy.get(c.signature))
    .sort((a, b) => a.order - b.order)
    .map(landedOf);
  const outcome = ((): PaymentOutcome => {
    let alreadyUsed: string | undefined;
    for (const c of full) {
      if (usedBy.get(c.signature)) {
        alreadyUsed ??= c.signature;
        continue;
      }
      return { kind: 'Paid', ...landedOf(c), overpaid: c.receivedBaseUnits > expected.amountBaseUnits };
    }
    let best: Candidate | undefined;
    for (const c of partial) {
      if (usedBy.get(c.signature)) {
        alreadyUsed ??= c.signature;
        continue;
      }
      if (!best || c.receivedBaseUnits > best.receivedBaseUnits) best = c;
    }
    if (best) return { kind: 'Underpaid', ...landedOf(best) };
    if (alreadyUsed) return { kind: 'AlreadyUsed', signature: alreadyUsed };
    if (wrongMint) return { kind: 'WrongMint', signature: wrongMint };
    if (wrongRecipient) return { kind: 'WrongRecipient', signature: wrongRecipient };
    if (failed) return { kind: 'Failed', signature: failed.signature, err: failed.err };
    return { kind: 'NotFound', reason: 'no_transfer' };
  })();
  return { outcome, transfers };
}

/** A Solana transaction signature: base58 of 64 bytes. */
export function isSignature(s: string): boolean {
  if (!/^[1-9A-HJ-NP-Za-km-z]{64,88}$/.test(s)) return false;
  try {
    return bs58.decode(s).length === 64;
  } catch {
    return false;
  }
}

/**
 * Checks a signature the browser reported. A hint, never proof: the chain is re-read, the transaction must be
 * confirmed, mention the order's reference, and pass the same checks as verifyPayment.
 */
export async function verifyHint(
  rpc: PaymentRpc,
  expected: ExpectedPayment,
  signature: string,
  options: Pick<VerifyOptions, 'timeoutMs'> = {},
): Promise<PaymentOutcome> {
  const timeoutMs = options.timeoutMs ?? 5_000;
  if (!isSignature(signature)) return { kind: 'NotFound', reason: 'malformed_signature' };
  const [status] = await withTimeout('getSignatureStatuses', timeoutMs, () =>
    rpc.getSignatureStatuses([signature]),
  );
  if (!status || !isConfirmed(status.confirmationStatus))
    return { kind: 'NotFound', reason: 'not_confirmed' };
  const tx = await withTimeout('getTransaction', timeoutMs, () => rpc.getTransaction(signature));
  if (!tx) return { kind: 'NotFound', reason: 'not_confirmed' };
  if (!tx.accountKeys.includes(expected.reference)) return { kind: 'NotFound', reason: 'reference_missing' };
  const verdict = classifyTransaction(tx, expected);
  switch (verdict.kind) {
    case 'Failed':
      return { kind: 'Failed', signature, err: verdict.err };
    case 'WrongMint':
      return { kind: 'WrongMint', signature };
    case 'WrongRecipient':
      return { kind: 'WrongRecipient', signature };
    case 'NoTransfer':
      return { kind: 'NotFound', reason: 'no_transfer' };
    case 'Transfer': {
      if (expected.usedSignature && (await expected.usedSignature(signature)))
        return { kind: 'AlreadyUsed', signature };
      const landed: LandedPayment = {
        signature,
        receivedBaseUnits: verdict.receivedBaseUnits,
        slot: tx.slot,
        blockTime: tx.blockTime,
        confirmationStatus: status.confirmationStatus,
      };
      if (verdict.receivedBaseUnits < expected.amountBaseUnits) return { kind: 'Underpaid', ...landed };
      return { kind: 'Paid', ...landed, overpaid: verdict.receivedBaseUnits > expected.amountBaseUnits };
    }
  }
}
