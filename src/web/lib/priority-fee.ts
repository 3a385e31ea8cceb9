/**
 * The priority fee of every wallet transaction the site asks for (the buyer's checkout, the vendor's refund in
 * the seller console): a compute-unit limit and a compute-unit price from the RPC's recent fees.
 */
import {
  ComputeBudgetProgram,
  type Connection,
  type PublicKey,
  type TransactionInstruction,
} from '@solana/web3.js';

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
