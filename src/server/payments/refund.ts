/**
 * Refund judging, beside payment judging (./verify.ts): did a transaction the seller names move the order's mint
 * from the vendor back to a payer of the order (./payers.ts, the one "who paid" rule)? The chain, not the seller's
 * word, decides; the order module then records it (src/server/orders/exception-actions.ts recordRefund). The
 * vendor's side is the payments' rule (./token-delta.ts): its raw balance change of the mint.
 */
import { DomainError } from '../../core/errors';
import { RpcBudgetExhaustedError } from './budget';
import { payerKey, readPayers, type Payer, type PayerCache } from './payers';
import { PaymentRpcError, withTimeout, type PaymentRpc, type PaymentTransaction } from './rpc';
import {
  associatedTokenAccount,
  heldBy,
  tokenChanges,
  tokenDelta,
  type TokenAccountChange,
} from './token-delta';
import { RPC_TIMEOUT_MS } from './payers';

export type RefundVerdict =
  | { kind: 'refund'; amountBaseUnits: bigint; to: Payer }
  | { kind: 'failed' }
  | { kind: 'wrong_direction' }
  | { kind: 'not_to_payer' }
  | { kind: 'several_payers' }
  | { kind: 'wrong_mint' }
  | { kind: 'no_transfer' };

/** Is the changed account this payer's (its debited account, or an account of its owner)? */
function isPayers(c: TokenAccountChange, p: Payer, mint: string): boolean {
  if (c.address !== undefined && c.address === p.account) return true;
  if (p.owner === null) return false;
  return heldBy(c, p.owner, associatedTokenAccount(mint, p.owner));
}

/**
 * Judges a refund transaction: did it move `mint` from the vendor (`vendorOwner`'s token accounts, or its
 * associated token account when the node omits owners) to exactly one of `payers`, and to nobody else? The amount
 * is what that payer received, at most what the vendor sent. Pure.
 */
export function judgeRefund(
  tx: PaymentTransaction,
  expected: { mint: string; vendorOwner: string; payers: readonly Payer[] },
): RefundVerdict {
  if (tx.err !== null && tx.err !== undefined) return { kind: 'failed' };
  const vendor = tokenDelta(tx, expected.vendorOwner, expected.mint);
  const vendorAta = associatedTokenAccount(expected.mint, expected.vendorOwner);
  const toPayer = new Map<string, { payer: Payer; delta: bigint }>();
  let movedToOthers = false;
  let otherMint = false;
  for (const c of tokenChanges(tx)) {
    if (c.delta === 0n) continue;
    if (c.mint !== expected.mint) {
      otherMint = true;
      continue;
    }
    if (heldBy(c, expected.vendorOwner, vendorAta)) continue;
    const payer = expected.payers.find((p) => isPayers(c, p, expected.mint));
    if (payer) {
      const seen = toPayer.get(payerKey(payer)) ?? { payer, delta: 0n };
      seen.delta += c.delta;
      toPayer.set(payerKey(payer), seen);
    } else if (c.delta > 0n) movedToOthers = true;
  }
  const credited = [...toPayer.values()].filter((x) => x.delta > 0n);
  const debited = [...toPayer.values()].some((x) => x.delta < 0n);
  if (vendor > 0n || debited) return { kind: 'wrong_direction' };
  if (vendor < 0n && movedToOthers) return { kind: 'not_to_payer' };
  if (vendor < 0n && credited.length > 1) return { kind: 'several_payers' };
  const [one] = credited;
  if (vendor < 0n && one)
    return { kind: 'refund', amountBaseUnits: one.delta < -vendor ? one.delta : -vendor, to: one.payer };
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
  several_payers: [
    'refund_several_payers',
    'That transaction sent $CLAIM to several wallets that paid this order: record one refund transaction per wallet.',
  ],
  wrong_mint: ['refund_wrong_mint', 'That transaction moved another token, not $CLAIM.'],
  no_transfer: ['refund_no_transfer', 'That transaction moved no $CLAIM from the vendor.'],
};

const unreachable = () =>
  new DomainError(
    'unavailable',
    'rpc_unavailable',
    'The Solana network could not be reached to check the refund. Please try again.',
  );
const isUnreachable = (err: unknown) =>
  err instanceof PaymentRpcError || err instanceof RpcBudgetExhaustedError;

export interface RefundCheckInput {
  order: { id: string; recipient: string; mint: string };
  /** The order's ledger, in order. */
  payments: readonly { signature: string; slot: number | null }[];
  signature: string;
}

/** A refund the chain confirmed: how much went back, to which payer, and who paid each ledger transfer. */
export interface ConfirmedRefund {
  amountBaseUnits: bigint;
  to: Payer;
  /** The payer of each ledger transfer read (the first MAX_PAYMENTS_READ), by signature; null: none. */
  payers: Map<string, Payer | null>;
}

/** Reads the chain and returns the refund, or throws the DomainError that says why not. */
export async function checkRefund(
  rpc: PaymentRpc,
  cache: PayerCache,
  input: RefundCheckInput,
): Promise<ConfirmedRefund> {
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
  let tx: PaymentTransaction | null;
  try {
    tx = await withTimeout('getTransaction', RPC_TIMEOUT_MS, () => rpc.getTransaction(input.signature));
  } catch (err) {
    if (isUnreachable(err)) throw unreachable();
    throw err;
  }
  if (!tx)
    throw new DomainError(
      'invalid',
      'refund_not_found',
      'No confirmed transaction with that signature was found on chain.',
      { field: 'signature' },
    );
  let failure: unknown;
  const signatures = input.payments.map((p) => p.signature);
  const read = await readPayers(rpc, cache, input.order.mint, signatures, (err) => (failure = err));
  if (read === null && isUnreachable(failure)) throw unreachable();
  if (read === null && failure !== undefined) throw failure;
  const payers = new Map((read ?? []).map((p, i) => [signatures[i]!, p] as const));
  const known = [...payers.values()].filter((p): p is Payer => p !== null);
  if (read === null || known.length === 0)
    throw new DomainError(
      'unavailable',
      'payer_unknown',
      "The order's payment could not be read from the chain to learn who paid. Please try again.",
    );
  const verdict = judgeRefund(tx, {
    mint: input.order.mint,
    vendorOwner: input.order.recipient,
    payers: known,
  });
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
  return { amountBaseUnits: verdict.amountBaseUnits, to: verdict.to, payers };
}
