/**
 * "Refund with wallet": the transaction the vendor's payout wallet signs to send $CLAIM back to whoever paid an
 * order — the priority fee (src/web/lib/priority-fee.ts, the checkout's rule), the payer's token account created
 * if missing (the idempotent instruction: nothing happens when it exists), TransferChecked from the vendor's
 * token account, and a memo naming the order number. The server records it only after reading it on chain
 * (POST /api/seller/orders/:id/refund); this module only builds and sends.
 */
import { getAddMemoInstruction } from '@solana-program/memo';
import { createNoopSigner, isWritableRole } from '@solana/kit';
import type { IdentifierString } from '@wallet-standard/base';
import { priorityPrice } from '../lib/priority-fee';
import { confirmSignature, latestBlockhash, sendSigned, type SolanaRpc } from '../lib/solana-rpc';
import {
  address,
  associatedTokenAccount,
  createAccountInstruction,
  transferCheckedInstruction,
  walletTransaction,
  type Address,
  type Instruction,
} from '../lib/wallet-tx';
import { signAndSend, type Wallet, type WalletAccount } from '../lib/wallets';

export { CLAIM_DECIMALS } from '../lib/wallet-tx';
/**
 * SPL Memo (v2), the memo program every explorer and the store's localnet know. @solana-program/memo 0.15 defaults
 * to another program address (Memo4c2p…); its AddMemo layout is the same, so only the address is given.
 */
export const MEMO_PROGRAM_ADDRESS = address('MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr');
/**
 * The refund's compute-unit limit: an idempotent account creation (about 15k CU on the localnet, 25k on
 * mainnet), a TransferChecked (about 6k) and a memo (about 10k with one signer), with room, as the checkout's.
 */
export const REFUND_COMPUTE_UNITS = 100_000;

export interface RefundPlan {
  mint: Address;
  /** The vendor's payout wallet (the signer and fee payer). */
  vendor: Address;
  /** The payer's wallet, when known: the refund goes to its associated token account (created if missing). */
  payerOwner: Address | null;
  /** The token account the payment came from (used when the owner is unknown). */
  payerTokenAccount: Address;
  amountBaseUnits: bigint;
  orderNumber: string;
}

export const refundMemo = (orderNumber: string) => `Refund for order ${orderNumber}`;

/** The refund's instructions after the two ComputeBudget ones. Pure. */
export async function refundInstructions(plan: RefundPlan): Promise<Instruction[]> {
  if (plan.amountBaseUnits <= 0n) throw new Error('the refund amount must be above zero');
  const source = await associatedTokenAccount(plan.mint, plan.vendor);
  const ixs: Instruction[] = [];
  let destination = plan.payerTokenAccount;
  if (plan.payerOwner) {
    destination = await associatedTokenAccount(plan.mint, plan.payerOwner);
    ixs.push(createAccountInstruction(plan.vendor, destination, plan.payerOwner, plan.mint));
  }
  ixs.push(
    transferCheckedInstruction({
      source,
      mint: plan.mint,
      destination,
      authority: plan.vendor,
      amount: plan.amountBaseUnits,
    }),
    getAddMemoInstruction(
      { memo: refundMemo(plan.orderNumber), signers: [createNoopSigner(plan.vendor)] },
      { programAddress: MEMO_PROGRAM_ADDRESS },
    ),
  );
  return ixs;
}

/** What signs and sends: the connected payout wallet. */
export interface RefundDeps {
  rpc: SolanaRpc;
  wallet: Wallet;
  account: WalletAccount;
  chain: IdentifierString;
}

/**
 * Builds the refund with today's priority fee, has the wallet sign and send it, and waits until it is
 * confirmed; resolves to its signature. Throws when the wallet declines or the transaction fails on chain.
 */
export async function sendRefund(
  deps: RefundDeps,
  plan: RefundPlan,
  onSent?: (signature: string) => void,
): Promise<string> {
  const ixs = await refundInstructions(plan);
  const writable = ixs.flatMap((ix) =>
    (ix.accounts ?? []).filter((a) => isWritableRole(a.role)).map((a) => a.address),
  );
  const [microLamports, bh] = await Promise.all([
    priorityPrice(deps.rpc, [...new Set(writable)]),
    latestBlockhash(deps.rpc, 'finalized'),
  ]);
  const tx = walletTransaction({
    feePayer: plan.vendor,
    blockhash: bh,
    budget: { units: REFUND_COMPUTE_UNITS, microLamports },
    instructions: ixs,
  });
  const signature = await signAndSend(deps.wallet, deps.account, deps.chain, tx, (signed) =>
    sendSigned(deps.rpc, signed),
  );
  onSent?.(signature);
  await confirmSignature(deps.rpc, signature, bh.lastValidBlockHeight, 'the refund');
  return signature;
}

/** A $CLAIM amount typed by a person ("1,234.5") in base units; null when it is not one (at most 6 decimals). */
export function parseClaimInput(text: string): bigint | null {
  const t = text.trim().replace(/[,\s]/g, '');
  const m = /^(\d+)(?:\.(\d{0,6}))?$/.exec(t);
  if (!m) return null;
  return BigInt(m[1]!) * 1_000_000n + BigInt((m[2] ?? '').padEnd(6, '0') || '0');
}
