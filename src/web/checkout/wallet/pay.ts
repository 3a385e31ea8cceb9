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
  ComputeBudgetProgram,
  PublicKey,
  Transaction,
  type BlockhashWithExpiryBlockHeight,
  type Connection,
  type TransactionInstruction,
} from '@solana/web3.js';
import { BLOCKHASH_FAILED, NO_TOKEN_ACCOUNT } from './messages';
import { CheckoutStop, type Shortfall } from './stops';

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

/**
 * Landing when the network is busy: every wallet transaction sets a compute-unit limit and a
 * compute-unit price (the priority fee). Limits: what the instructions need, with room for the heavier builds of
 * the token programs (the price is charged on the limit, so it stays tight). Measured on the localnet (LiteSVM's
 * token programs, test/e2e/wallet-buyer.test.ts): the payment 458 CU, the idempotent account creation 15,325 CU
 * (ComputeBudget instructions included); the classic SPL Token TransferChecked is about 6.2k CU on mainnet and an
 * associated account creation about 25k, both well inside.
 */
export const TRANSFER_COMPUTE_UNITS = 30_000;
export const CREATE_ACCOUNT_COMPUTE_UNITS = 60_000;
/**
 * The price, micro-lamports per compute unit: the 75th percentile of getRecentPrioritizationFees over the last
 * 150 slots for the accounts the payment write-locks, at least PRIORITY_FEE_FLOOR (also used when the RPC does not
 * answer the method, or answers nothing) and at most PRIORITY_FEE_CAP — a cap of 1,000,000 µL/CU × 30,000 CU =
 * 30,000 lamports (0.00003 SOL) on the payment, whatever a fee spike says.
 */
export const PRIORITY_FEE_FLOOR = 1_000;
export const PRIORITY_FEE_CAP = 1_000_000;
export const PRIORITY_FEE_PERCENTILE = 75;
const PRIORITY_FEE_TIMEOUT_MS = 5_000;

/** The compute-unit price from the RPC's recent fees: percentile, floor, cap (integers). */
export function priorityPriceFrom(fees: readonly { prioritizationFee: number }[] | null): number {
  const values = (fees ?? [])
    .map((f) => f.prioritizationFee)
    .filter((v) => Number.isSafeInteger(v) && v >= 0)
    .sort((a, b) => a - b);
  if (values.length === 0) return PRIORITY_FEE_FLOOR;
  const at = Math.min(values.length - 1, Math.floor((values.length * PRIORITY_FEE_PERCENTILE) / 100));
  return Math.min(PRIORITY_FEE_CAP, Math.max(PRIORITY_FEE_FLOOR, values[at] ?? 0));
}

/** The compute-unit price for a transaction write-locking `accounts`; the floor when the RPC lacks the method. */
export async function priorityPrice(connection: Connection, accounts: PublicKey[]): Promise<number> {
  try {
    const fees = await withTimeout(
      connection.getRecentPrioritizationFees({ lockedWritableAccounts: accounts }),
      PRIORITY_FEE_TIMEOUT_MS,
      'getRecentPrioritizationFees',
    );
    return priorityPriceFrom(fees);
  } catch {
    return PRIORITY_FEE_FLOOR;
  }
}

/** The priority fee in lamports of `units` compute units at `microLamports` each (rounded up, as the runtime). */
export function priorityFeeLamports(microLamports: number, units: number): number {
  return Number((BigInt(microLamports) * BigInt(units) + 999_999n) / 1_000_000n);
}

/** The two ComputeBudget instructions that go first in every wallet transaction. */
export function computeBudgetInstructions(units: number, microLamports: number): TransactionInstruction[] {
  return [
    ComputeBudgetProgram.setComputeUnitLimit({ units }),
    ComputeBudgetProgram.setComputeUnitPrice({ microLamports }),
  ];
}
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
