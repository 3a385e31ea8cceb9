/**
 * "Mark refunded": the seller names the refund transaction's signature; the chain, not the seller's word,
 * decides. The transaction is read through the payments' RPC port (src/server/payments/rpc.ts, the process's
 * RPC budget) and must be a confirmed, successful transaction that moved the order's mint from the vendor's
 * token account to the payer: the owner of a token account whose balance of that mint went down in one of the
 * order's ledger payments (those transactions are read too). The order service then records it
 * (src/server/orders/fulfilment.ts: a seller action `refunded`, once per signature).
 */
import { PaymentRpcError, withTimeout, type PaymentRpc, type PaymentTransaction } from '../payments/rpc';
import { RpcBudgetExhaustedError } from '../payments/budget';
import { associatedTokenAccount, heldBy, tokenChanges, tokenDelta } from '../payments/token-delta';
import { DomainError } from '../../core/errors';

/** At most this many ledger payments are read to learn who paid (each is one getTransaction). */
const MAX_PAYMENTS_READ = 10;
const RPC_TIMEOUT_MS = 5_000;

/** Who paid an order: the owners of the token accounts the payments debited, and those accounts. */
export interface Payers {
  owners: Set<string>;
  accounts: Set<string>;
}

export type RefundVerdict =
  | { kind: 'refund'; amountBaseUnits: bigint }
  | { kind: 'failed' }
  | { kind: 'wrong_direction' }
  | { kind: 'not_to_payer' }
  | { kind: 'wrong_mint' }
  | { kind: 'no_transfer' };

/** The payers of one ledger payment: the accounts of `mint` it debited (and their owners). Pure. */
export function payersOf(tx: PaymentTransaction, mint: string, into: Payers = emptyPayers()): Payers {
  if (tx.err !== null && tx.err !== undefined) return into;
  for (const c of tokenChanges(tx)) {
    if (c.mint !== mint || c.delta >= 0n) continue;
    if (c.address) into.accounts.add(c.address);
    if (c.owner) into.owners.add(c.owner);
  }
  return into;
}

export function emptyPayers(): Payers {
  return { owners: new Set(), accounts: new Set() };
}

/**
 * Judges a refund transaction: did it move `mint` from the vendor (`vendorOwner`'s token accounts, or its
 * associated token account when the node omits owners) to the payer? Pure.
 */
export function judgeRefund(
  tx: PaymentTransaction,
  expected: { mint: string; vendorOwner: string; payers: Payers },
): RefundVerdict {
  if (tx.err !== null && tx.err !== undefined) return { kind: 'failed' };
  // The vendor's side is the payments' rule (token-delta.ts): its raw balance change of the mint.
  const vendor = tokenDelta(tx, expected.vendorOwner, expected.mint);
  const vendorAta = associatedTokenAccount(expected.mint, expected.vendorOwner);
  let payer = 0n;
  let movedToOthers = false;
  let otherMint = false;
  for (const c of tokenChanges(tx)) {
    if (c.delta === 0n) continue;
    if (c.mint !== expected.mint) {
      otherMint = true;
      continue;
    }
    if (heldBy(c, expected.vendorOwner, vendorAta)) continue;
    const isPayer =
      (c.owner !== null && expected.payers.owners.has(c.owner)) ||
      (c.address !== undefined && expected.payers.accounts.has(c.address));
    if (isPayer) payer += c.delta;
    else if (c.delta > 0n) movedToOthers = true;
  }
  if (vendor < 0n && payer > 0n)
    return { kind: 'refund', amountBaseUnits: payer < -vendor ? payer : -vendor };
  if (vendor > 0n || payer < 0n) return { kind: 'wrong_direction' };
  if (vendor < 0n || movedToOthers) return { kind: 'not_to_payer' };
  if (otherMint) return { kind: 'wrong_mint' };
  return { kind: 'no_transfer' };
}

const REFUSALS: Record<Exclude<RefundVerdict['kind'], 'refund'>, [string, string]> = {
  failed: ['refund_failed', 'That transaction failed on chain: it moved nothing.'],
  wrong_direction: [
    'refund_wrong_direction',
    'That transaction moved $CLAIM to the vendor, not from the vendor back to the buyer.',
  ],
  not_to_payer: [
    'refund_not_to_payer',
    'That transaction did not send $CLAIM back to the wallet that paid this order.',
  ],
  wrong_mint: ['refund_wrong_mint', 'That transaction moved another token, not $CLAIM.'],
  no_transfer: ['refund_no_transfer', 'That transaction moved no $CLAIM from the vendor.'],
};

function unreachable(err: unknown): never {
  if (err instanceof PaymentRpcError || err instanceof RpcBudgetExhaustedError)
    throw new DomainError(
      'unavailable',
      'rpc_unavailable',
      'The Solana network could not be reached to check the refund. Please try again.',
    );
  throw err;
}

async function read(rpc: PaymentRpc, signature: string): Promise<PaymentTransaction | null> {
  try {
    return await withTimeout('getTransaction', RPC_TIMEOUT_MS, () => rpc.getTransaction(signature));
  } catch (err) {
    return unreachable(err);
  }
}

export interface RefundCheckInput {
  order: { id: string; recipient: string; mint: string };
  /** The order's ledger, in order. */
  payments: { signature: string; slot: number | null }[];
  signature: string;
}

/** Reads the chain and returns the refunded amount, or throws the DomainError that says why not. */
export async function checkRefund(rpc: PaymentRpc, input: RefundCheckInput): Promise<bigint> {
  if (input.payments.length === 0)
    throw new DomainError(
      'conflict',
      'nothing_paid',
      'Nothing was paid for this order: there is nothing to refund.',
    );
  if (input.payments.some((p) => p.signature === input.signature))
    throw new DomainError('invalid', 'refund_wrong_direction', REFUSALS.wrong_direction[1], {
      field: 'signature',
    });
  const tx = await read(rpc, input.signature);
  if (!tx)
    throw new DomainError(
      'invalid',
      'refund_not_found',
      'No confirmed transaction with that signature was found on chain.',
      { field: 'signature' },
    );
  const payers = emptyPayers();
  for (const p of input.payments.slice(0, MAX_PAYMENTS_READ)) {
    const paid = await read(rpc, p.signature);
    if (paid) payersOf(paid, input.order.mint, payers);
  }
  if (payers.owners.size === 0 && payers.accounts.size === 0)
    throw new DomainError(
      'unavailable',
      'payer_unknown',
      "The order's payment could not be read from the chain to learn who paid. Please try again.",
    );
  const verdict = judgeRefund(tx, { mint: input.order.mint, vendorOwner: input.order.recipient, payers });
  if (verdict.kind !== 'refund') {
    const [code, message] = REFUSALS[verdict.kind];
    throw new DomainError('invalid', code, message, { field: 'signature' });
  }
  const firstPaid = Math.min(...input.payments.map((p) => p.slot ?? Infinity));
  if (Number.isFinite(firstPaid) && tx.slot < firstPaid)
    throw new DomainError(
      'invalid',
      'refund_before_payment',
      'That transaction happened before this order was paid: it is not a refund of it.',
      { field: 'signature' },
    );
  return verdict.amountBaseUnits;
}
