/**
 * The on-chain half of the wallet checkout (spec §4 steps 3–7) for an order the server has already recorded:
 * finalized blockhash → the buyer's token account must exist → create the seller's token account if missing
 * (one extra wallet approval, then a fresh blockhash) → TransferChecked of exactly the quoted base units with the
 * order's reference as a read-only key, built by the store's one payment builder (src/core/payment-tx.ts, @solana/kit:
 * the server's Solana Pay transaction request builds the same) and signed and sent by
 * the wallet (`solana:signAndSendTransaction`, or `solana:signTransaction` and our send: src/web/lib/wallets.ts).
 * The browser never decides that an order is paid: the server does.
 */
import type { IdentifierString } from '@wallet-standard/base';
import { compilePaymentTransaction } from '../../../core/payment-tx';
import { BLOCKHASH_FAILED, NO_TOKEN_ACCOUNT } from './messages';
import { CheckoutStop, type Shortfall } from './stops';
import {
  CREATE_ACCOUNT_COMPUTE_UNITS,
  priorityFeeLamports,
  priorityPrice,
  TRANSFER_COMPUTE_UNITS,
} from '../../lib/priority-fee';
import {
  accountsData,
  balanceLamports,
  confirmSignature,
  latestBlockhash,
  rentExemptLamports,
  sendSigned,
  withTimeout,
  type Blockhash,
  type SolanaRpc,
} from '../../lib/solana-rpc';
import {
  address,
  associatedTokenAccount,
  CLAIM_DECIMALS,
  createAccountInstruction,
  walletTransaction,
  type Address,
} from '../../lib/wallet-tx';
import { signAndSend, transactionVersionFor, type Wallet, type WalletAccount } from '../../lib/wallets';

export { CLAIM_DECIMALS };
const RPC_TIMEOUT_MS = 15_000;

/** What to pay: the server's order (OrderCreated), parsed. */
export interface PaymentTarget {
  orderId: string;
  mint: Address;
  recipient: Address;
  reference: Address;
  amountBaseUnits: bigint;
}

export interface PayDeps {
  rpc: SolanaRpc;
  /** The connected wallet and its account (the buyer). */
  wallet: Wallet;
  account: WalletAccount;
  chain: IdentifierString;
  /** Called once per wallet approval request, before the wallet is asked (for the page's status line). */
  onStep?: (step: 'create-seller-account' | 'transfer' | 'confirm') => void;
  /** Called as soon as the transfer's signature is known (before its confirmation). */
  onSent?: (signature: string) => void;
}

async function finalizedBlockhash(rpc: SolanaRpc): Promise<Blockhash> {
  try {
    const bh = await latestBlockhash(rpc, 'finalized');
    if (!bh.blockhash) throw new Error('empty blockhash');
    return bh;
  } catch {
    throw new CheckoutStop(BLOCKHASH_FAILED);
  }
}

/**
 * The payment the wallet signs (wire bytes, unsigned): ComputeBudget limit and price, then TransferChecked of
 * exactly the order's base units with its reference read-only last; version 0 when the wallet takes it, else legacy.
 * The seller's account exists by then (payOrder creates it first, in its own approval, as the spec's flow has it).
 */
export async function paymentTransaction(
  buyer: Address,
  target: PaymentTarget,
  lifetime: Blockhash,
  microLamports: number,
  version: 0 | 'legacy',
): Promise<Uint8Array> {
  const { wireBytes } = await compilePaymentTransaction({
    payer: buyer,
    mint: target.mint,
    sellerOwner: target.recipient,
    amountBaseUnits: target.amountBaseUnits,
    decimals: CLAIM_DECIMALS,
    reference: target.reference,
    priorityMicroLamports: microLamports,
    sellerAccountExists: true,
    lifetime,
    version,
  });
  return wireBytes;
}

async function sendAndConfirm(
  deps: PayDeps,
  tx: Uint8Array,
  bh: Blockhash,
  onSent?: (sig: string) => void,
): Promise<string> {
  const signature = await signAndSend(deps.wallet, deps.account, deps.chain, tx, (signed) =>
    sendSigned(deps.rpc, signed),
  );
  onSent?.(signature);
  await confirmSignature(deps.rpc, signature, bh.lastValidBlockHeight, 'the transaction');
  return signature;
}

/** Lamports per signature (the base fee of one transaction with one signer). */
export const LAMPORTS_PER_SIGNATURE = 5_000;

export {
  CREATE_ACCOUNT_COMPUTE_UNITS,
  PRIORITY_FEE_CAP,
  PRIORITY_FEE_FLOOR,
  PRIORITY_FEE_PERCENTILE,
  priorityFeeLamports,
  priorityPrice,
  priorityPriceFrom,
  TRANSFER_COMPUTE_UNITS,
} from '../../lib/priority-fee';
/** Size of an SPL token account, for the rent of the seller's account when the buyer has to create it. */
const TOKEN_ACCOUNT_SIZE = 165;

/**
 * Checks the buyer's wallet before anything is created or signed: a $CLAIM token account, at least `amount`
 * base units in it, and enough SOL for the fee of each transaction (plus the seller account's rent when the
 * buyer has to create it). Null when the payment can go ahead. Read with 'confirmed' like the payment itself.
 */
export async function preflight(
  rpc: SolanaRpc,
  buyer: Address,
  target: { mint: Address; recipient: Address; amountBaseUnits: bigint },
  feePerTransactionLamports = LAMPORTS_PER_SIGNATURE,
): Promise<Shortfall | null> {
  // Spec §4 step 3 comes first: an unreachable node gives the spec's blockhash alert, before anything else.
  await finalizedBlockhash(rpc);
  const [buyerAta, sellerAta] = await Promise.all([
    associatedTokenAccount(target.mint, buyer),
    associatedTokenAccount(target.mint, target.recipient),
  ]);
  const [[buyerAccount, sellerAccount], lamportsBig] = await withTimeout(
    Promise.all([accountsData(rpc, [buyerAta, sellerAta]), balanceLamports(rpc, buyer)]),
    RPC_TIMEOUT_MS,
    'reading the wallet balances',
  );
  if (!buyerAccount) return { kind: 'no-token-account' };
  // Compared as bigints; shown as numbers (a shortfall is below the need, a few thousandths of a SOL).
  const lamports =
    lamportsBig > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(lamportsBig);
  const have = tokenAmountOf(buyerAccount);
  if (have < target.amountBaseUnits) return { kind: 'claim', have, need: target.amountBaseUnits };
  const createsSellerAccount = !sellerAccount;
  // Each transaction's base fee plus its priority fee at today's price (the same price payOrder will use).
  const price = await priorityPrice(rpc, [buyerAta, sellerAta]);
  let need = feePerTransactionLamports + priorityFeeLamports(price, TRANSFER_COMPUTE_UNITS);
  if (createsSellerAccount)
    need +=
      feePerTransactionLamports +
      priorityFeeLamports(price, CREATE_ACCOUNT_COMPUTE_UNITS) +
      Number(await rentExemptLamports(rpc, TOKEN_ACCOUNT_SIZE));
  if (lamports < need)
    return { kind: 'sol', haveLamports: lamports, needLamports: need, createsSellerAccount };
  return null;
}

/** The amount of an SPL token account (u64 little-endian at byte 64 of its data). */
export function tokenAmountOf(data: Uint8Array): bigint {
  if (data.length < 72) return 0n;
  return new DataView(data.buffer, data.byteOffset + 64, 8).getBigUint64(0, true);
}

/** Pays `target` from the connected wallet; resolves to the transfer's signature once it is confirmed. */
export async function payOrder(deps: PayDeps, target: PaymentTarget): Promise<string> {
  if (target.amountBaseUnits <= 0n) throw new Error('the order has no amount to pay');
  const { rpc } = deps;
  const buyer = address(deps.account.address);
  let bh = await finalizedBlockhash(rpc);

  const [buyerAta, sellerAta] = await Promise.all([
    associatedTokenAccount(target.mint, buyer),
    associatedTokenAccount(target.mint, target.recipient),
  ]);
  const [buyerAccount, sellerAccount] = await accountsData(rpc, [buyerAta, sellerAta]);
  if (!buyerAccount) throw new CheckoutStop(NO_TOKEN_ACCOUNT);
  const microLamports = await priorityPrice(rpc, [buyerAta, sellerAta]);

  if (!sellerAccount) {
    // The seller has no $CLAIM account yet: the buyer creates it (pays its rent) in a separate approval.
    // The idempotent form of the instruction, so a concurrent creation by another buyer cannot fail it.
    deps.onStep?.('create-seller-account');
    const create = walletTransaction({
      feePayer: buyer,
      blockhash: bh,
      budget: { units: CREATE_ACCOUNT_COMPUTE_UNITS, microLamports },
      instructions: [createAccountInstruction(buyer, sellerAta, target.recipient, target.mint)],
    });
    await sendAndConfirm(deps, create, bh);
    bh = await finalizedBlockhash(rpc);
  }

  deps.onStep?.('transfer');
  const version = transactionVersionFor(deps.wallet);
  const pay = await paymentTransaction(buyer, target, bh, microLamports, version);
  return sendAndConfirm(deps, pay, bh, (sig) => {
    deps.onStep?.('confirm');
    deps.onSent?.(sig);
  });
}

export function targetOf(order: {
  orderId: string;
  mint: string;
  recipient: string;
  reference: string;
  amountBaseUnits: string | null;
}): PaymentTarget {
  if (order.amountBaseUnits === null || !/^\d+$/.test(order.amountBaseUnits))
    throw new Error('the store sent no valid amount for this order');
  return {
    orderId: order.orderId,
    mint: address(order.mint),
    recipient: address(order.recipient),
    reference: address(order.reference),
    amountBaseUnits: BigInt(order.amountBaseUnits),
  };
}
