/**
 * Payment verification, the pure and port-level pieces the watcher uses: `classifyTransaction` judges one landed
 * transaction by the vendor's raw token balance change for the mint (token-delta.ts: wherever the transfer
 * instruction sits among the wallet's other instructions, `transfer` or `transferChecked`), `listSignatures`
 * pages through an address's signatures (the watcher's sweeps of the vendor accounts), and `verifyHint` re-reads
 * one transaction a browser reported (a hint, never proof). What a signature looks like is ./signature.ts.
 */
import {
  withTimeout,
  type ChainCommitment,
  type PaymentRpc,
  type PaymentTransaction,
  type SignatureInfo,
} from './rpc';
import { isSignature } from './signature';
import { associatedTokenAccount, heldBy, tokenChanges, tokenDelta } from './token-delta';

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
  | 'no_transfer' // transactions mention it but move no tokens
  | 'not_confirmed' // the hinted signature is unknown or only processed
  | 'reference_missing' // the hinted transaction does not mention the order's reference
  | 'malformed_signature'
  | 'not_followed' // the order is past its watch window (24 h after its quote expired)
  | 'already_judged'; // this signature was judged before (see the order's ledger): not fetched again

export interface VerifyOptions {
  /** Time limit for each RPC call (ms). Default 5000. */
  timeoutMs?: number;
  /** Signatures per getSignaturesForAddress page. Default 1000 (the RPC maximum). */
  pageSize?: number;
  /** Stop paging after this many signatures (spam bound). Default 5000. */
  maxSignatures?: number;
}

/** What one transaction did with respect to an expected payment. Pure. */
export type TransactionVerdict =
  | { kind: 'Failed'; err: unknown }
  | { kind: 'Transfer'; receivedBaseUnits: bigint }
  | { kind: 'WrongMint' }
  | { kind: 'WrongRecipient' }
  | { kind: 'NoTransfer' };

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
  const received = tokenDelta(tx, expected.recipientOwner, expected.mint);
  if (received > 0n) return { kind: 'Transfer', receivedBaseUnits: received };
  const ata = associatedTokenAccount(expected.mint, expected.recipientOwner);
  let wrongMint = false;
  let wrongRecipient = false;
  for (const c of tokenChanges(tx)) {
    if (c.delta <= 0n || (c.mint === expected.mint && heldBy(c, expected.recipientOwner, ata))) continue;
    if (c.mint !== expected.mint) wrongMint = true;
    else wrongRecipient = true;
  }
  if (wrongRecipient) return { kind: 'WrongRecipient' };
  if (wrongMint) return { kind: 'WrongMint' };
  return { kind: 'NoTransfer' };
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

/**
 * Checks a signature the browser reported. A hint, never proof: the chain is re-read, the transaction must be
 * confirmed, mention the order's reference, and pass the same checks as the watcher's (classifyTransaction).
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
