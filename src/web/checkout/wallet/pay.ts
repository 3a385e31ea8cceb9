/**
 * The on-chain half of the wallet checkout (spec §4 steps 3–7) for an order the server has already recorded:
 * finalized blockhash → the buyer's token account must exist → create the seller's token account if missing
 * (one extra wallet approval, then a fresh blockhash) → TransferChecked of exactly the quoted base units with the
 * order's reference as a read-only key, signed and sent by Phantom (the adapter's sendTransaction, which calls
 * the provider's signAndSendTransaction). The browser never decides that an order is paid: the server does.
 */
import '../../lib/buffer-global';
import type { Adapter } from '@solana/wallet-adapter-base';
import {
  createAssociatedTokenAccountIdempotentInstruction,
  createTransferCheckedInstruction,
  getAssociatedTokenAddressSync,
} from '@solana/spl-token';
import {
  PublicKey,
  Transaction,
  type BlockhashWithExpiryBlockHeight,
  type Connection,
  type TransactionInstruction,
} from '@solana/web3.js';
import { BLOCKHASH_FAILED, NO_TOKEN_ACCOUNT } from './messages';
import { CheckoutStop, type Shortfall } from './stops';
import {
  computeBudgetInstructions,
  CREATE_ACCOUNT_COMPUTE_UNITS,
  priorityFeeLamports,
  priorityPrice,
  TRANSFER_COMPUTE_UNITS,
} from '../../lib/priority-fee';

export const CLAIM_DECIMALS = 6;
const RPC_TIMEOUT_MS = 15_000;

/** What to pay: the server's order (OrderCreated), parsed. */
export interface PaymentTarget {
  orderId: string;
  mint: PublicKey;
  recipient: PublicKey;
  reference: PublicKey;
  amountBaseUnits: bigint;
}

export interface PayDeps {
  connection: Connection;
  /** A connected Phantom adapter. */
  adapter: Adapter;
  buyer: PublicKey;
  /** Called once per wallet approval request, before the wallet is asked (for the page's status line). */
  onStep?: (step: 'create-seller-account' | 'transfer' | 'confirm') => void;
  /** Called as soon as the transfer's signature is known (before its confirmation). */
  onSent?: (signature: string) => void;
}

function withTimeout<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const t = setTimeout(() => reject(new Error(`${what} timed out`)), ms);
    p.then(
      (v) => {
        clearTimeout(t);
        resolve(v);
      },
      (e: unknown) => {
        clearTimeout(t);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

async function finalizedBlockhash(connection: Connection): Promise<BlockhashWithExpiryBlockHeight> {
  try {
    const bh = await withTimeout(
      connection.getLatestBlockhash('finalized'),
      RPC_TIMEOUT_MS,
      'getLatestBlockhash',
    );
    if (!bh.blockhash) throw new Error('empty blockhash');
    return bh;
  } catch {
    throw new CheckoutStop(BLOCKHASH_FAILED);
  }
}

/** The TransferChecked instruction of a payment, with the order's reference appended (read-only, non-signer). */
export function paymentInstruction(buyer: PublicKey, target: PaymentTarget): TransactionInstruction {
  const source = getAssociatedTokenAddressSync(target.mint, buyer);
  const destination = getAssociatedTokenAddressSync(target.mint, target.recipient);
  const ix = createTransferCheckedInstruction(
    source,
    target.mint,
    destination,
    buyer,
    target.amountBaseUnits,
    CLAIM_DECIMALS,
  );
  ix.keys.push({ pubkey: target.reference, isSigner: false, isWritable: false });
  return ix;
}

async function sendAndConfirm(
  deps: PayDeps,
  ix: TransactionInstruction,
  budget: { units: number; microLamports: number },
  bh: BlockhashWithExpiryBlockHeight,
  onSent?: (sig: string) => void,
): Promise<string> {
  const tx = new Transaction({
    feePayer: deps.buyer,
    blockhash: bh.blockhash,
    lastValidBlockHeight: bh.lastValidBlockHeight,
  }).add(...computeBudgetInstructions(budget.units, budget.microLamports), ix);
  const signature = await deps.adapter.sendTransaction(tx, deps.connection, {
    preflightCommitment: 'confirmed',
  });
  onSent?.(signature);
  const res = await deps.connection.confirmTransaction(
    { signature, blockhash: bh.blockhash, lastValidBlockHeight: bh.lastValidBlockHeight },
    'confirmed',
  );
  if (res.value.err) throw new Error(`the transaction failed on chain (${JSON.stringify(res.value.err)})`);
  return signature;
}

/** Lamports per signature (the base fee of one transaction with one signer). */
export const LAMPORTS_PER_SIGNATURE = 5_000;

export {
  computeBudgetInstructions,
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
  connection: Connection,
  buyer: PublicKey,
  target: { mint: PublicKey; recipient: PublicKey; amountBaseUnits: bigint },
  feePerTransactionLamports = LAMPORTS_PER_SIGNATURE,
): Promise<Shortfall | null> {
  // Spec §4 step 3 comes first: an unreachable node gives the spec's blockhash alert, before anything else.
  await finalizedBlockhash(connection);
  const buyerAta = getAssociatedTokenAddressSync(target.mint, buyer);
  const sellerAta = getAssociatedTokenAddressSync(target.mint, target.recipient);
  const [[buyerAccount, sellerAccount], lamports] = await withTimeout(
    Promise.all([
      connection.getMultipleAccountsInfo([buyerAta, sellerAta], 'confirmed'),
      connection.getBalance(buyer, 'confirmed'),
    ]),
    RPC_TIMEOUT_MS,
    'reading the wallet balances',
  );
  if (!buyerAccount) return { kind: 'no-token-account' };
  const have = tokenAmountOf(buyerAccount.data);
  if (have < target.amountBaseUnits) return { kind: 'claim', have, need: target.amountBaseUnits };
  const createsSellerAccount = !sellerAccount;
  // Each transaction's base fee plus its priority fee at today's price (the same price payOrder will use).
  const price = await priorityPrice(connection, [buyerAta, sellerAta]);
  let need = feePerTransactionLamports + priorityFeeLamports(price, TRANSFER_COMPUTE_UNITS);
  if (createsSellerAccount)
    need +=
      feePerTransactionLamports +
      priorityFeeLamports(price, CREATE_ACCOUNT_COMPUTE_UNITS) +
      (await withTimeout(
        connection.getMinimumBalanceForRentExemption(TOKEN_ACCOUNT_SIZE, 'confirmed'),
        RPC_TIMEOUT_MS,
        'reading the rent',
      ));
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
  const { connection, buyer } = deps;
  let bh = await finalizedBlockhash(connection);

  const buyerAta = getAssociatedTokenAddressSync(target.mint, buyer);
  const sellerAta = getAssociatedTokenAddressSync(target.mint, target.recipient);
  const [buyerAccount, sellerAccount] = await withTimeout(
    connection.getMultipleAccountsInfo([buyerAta, sellerAta], 'confirmed'),
    RPC_TIMEOUT_MS,
    'reading token accounts',
  );
  if (!buyerAccount) throw new CheckoutStop(NO_TOKEN_ACCOUNT);
  const microLamports = await priorityPrice(connection, [buyerAta, sellerAta]);

  if (!sellerAccount) {
    // The seller has no $CLAIM account yet: the buyer creates it (pays its rent) in a separate approval.
    // The idempotent form of the instruction, so a concurrent creation by another buyer cannot fail it.
    deps.onStep?.('create-seller-account');
    await sendAndConfirm(
      deps,
      createAssociatedTokenAccountIdempotentInstruction(buyer, sellerAta, target.recipient, target.mint),
      { units: CREATE_ACCOUNT_COMPUTE_UNITS, microLamports },
      bh,
    );
    bh = await finalizedBlockhash(connection);
  }

  deps.onStep?.('transfer');
  const budget = { units: TRANSFER_COMPUTE_UNITS, microLamports };
  return sendAndConfirm(deps, paymentInstruction(buyer, target), budget, bh, (sig) => {
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
    mint: new PublicKey(order.mint),
    recipient: new PublicKey(order.recipient),
    reference: new PublicKey(order.reference),
    amountBaseUnits: BigInt(order.amountBaseUnits),
  };
}
