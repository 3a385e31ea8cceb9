/**
 * "Refund with wallet": the transaction the vendor's payout wallet signs to send $CLAIM back to whoever paid an
 * order — the priority fee (src/web/lib/priority-fee.ts, the checkout's rule), the payer's token account created
 * if missing (the idempotent instruction: nothing happens when it exists), TransferChecked from the vendor's
 * token account, and a memo naming the order number. The server records it only after reading it on chain
 * (POST /api/seller/orders/:id/refund); this module only builds and sends.
 */
import '../lib/buffer-global';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import {
  PublicKey,
  Transaction,
  TransactionInstruction,
  type Connection,
  type SendOptions,
} from '@solana/web3.js';
import { computeBudgetInstructions, priorityPrice } from '../lib/priority-fee';

export const CLAIM_DECIMALS = 6;
export const MEMO_PROGRAM_ID = new PublicKey('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
/**
 * The refund's compute-unit limit: an idempotent account creation (about 15k CU on the localnet, 25k on
 * mainnet), a TransferChecked (about 6k) and a memo (about 10k with one signer), with room, as the checkout's.
 */
export const REFUND_COMPUTE_UNITS = 100_000;

export interface RefundPlan {
  mint: PublicKey;
  /** The vendor's payout wallet (the signer and fee payer). */
  vendor: PublicKey;
  /** The payer's wallet, when known: the refund goes to its associated token account (created if missing). */
  payerOwner: PublicKey | null;
  /** The token account the payment came from (used when the owner is unknown). */
  payerTokenAccount: PublicKey;
  amountBaseUnits: bigint;
  orderNumber: string;
}

export const refundMemo = (orderNumber: string) => `Refund for order ${orderNumber}`;

/** The refund's instructions after the two ComputeBudget ones. Pure. */
export function refundInstructions(plan: RefundPlan): TransactionInstruction[] {
  if (plan.amountBaseUnits <= 0n) throw new Error('the refund amount must be above zero');
  const source = getAssociatedTokenAddressSync(plan.mint, plan.vendor, true);
  const ixs: TransactionInstruction[] = [];
  let destination = plan.payerTokenAccount;
  if (plan.payerOwner) {
    destination = getAssociatedTokenAddressSync(plan.mint, plan.payerOwner, true);
    ixs.push(
      createAssociatedTokenAccountIdempotentInstruction(plan.vendor, destination, plan.payerOwner, plan.mint),
    );
  }
  ixs.push(
    createTransferCheckedInstruction(
      source,
      plan.mint,
      destination,
      plan.vendor,
      plan.amountBaseUnits,
      CLAIM_DECIMALS,
    ),
    new TransactionInstruction({
      programId: MEMO_PROGRAM_ID,
      keys: [{ pubkey: plan.vendor, isSigner: true, isWritable: false }],
      data: Buffer.from(refundMemo(plan.orderNumber), 'utf8'),
    }),
  );
  return ixs;
}

/** What signs and sends: the connected wallet adapter's sendTransaction. */
export type SendTransaction = (
  tx: Transaction,
  connection: Connection,
  options?: SendOptions,
) => Promise<string>;

/**
 * Builds the refund with today's priority fee, has the wallet sign and send it, and waits until it is
 * confirmed; resolves to its signature. Throws when the wallet declines or the transaction fails on chain.
 */
export async function sendRefund(
  deps: { connection: Connection; sendTransaction: SendTransaction },
  plan: RefundPlan,
  onSent?: (signature: string) => void,
): Promise<string> {
  const ixs = refundInstructions(plan);
  const writable = ixs.flatMap((ix) => ix.keys.filter((k) => k.isWritable).map((k) => k.pubkey));
  const [microLamports, bh] = await Promise.all([
    priorityPrice(deps.connection, writable),
    deps.connection.getLatestBlockhash('finalized'),
  ]);
  const tx = new Transaction({
    feePayer: plan.vendor,
    blockhash: bh.blockhash,
    lastValidBlockHeight: bh.lastValidBlockHeight,
  }).add(...computeBudgetInstructions(REFUND_COMPUTE_UNITS, microLamports), ...ixs);
  const signature = await deps.sendTransaction(tx, deps.connection, { preflightCommitment: 'confirmed' });
  onSent?.(signature);
  const res = await deps.connection.confirmTransaction(
    { signature, blockhash: bh.blockhash, lastValidBlockHeight: bh.lastValidBlockHeight },
    'confirmed',
  );
  if (res.value.err) throw new Error(`the refund failed on chain (${JSON.stringify(res.value.err)})`);
  return signature;
}

/** A $CLAIM amount typed by a person ("1,234.5") in base units; null when it is not one (at most 6 decimals). */
export function parseClaimInput(text: string): bigint | null {
  const t = text.trim().replace(/[,\s]/g, '');
  const m = /^(\d+)(?:\.(\d{0,6}))?$/.exec(t);
  if (!m) return null;
  return BigInt(m[1]!) * 1_000_000n + BigInt((m[2] ?? '').padEnd(6, '0') || '0');
}
