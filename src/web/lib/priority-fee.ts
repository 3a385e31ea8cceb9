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
import { PRIORITY_FEE_FLOOR, priorityPriceFrom } from '../../core/priority-fee';

// The rule itself is shared with the server (the Solana Pay transaction request): src/core/priority-fee.ts.
export {
  CREATE_ACCOUNT_COMPUTE_UNITS,
  PRIORITY_FEE_CAP,
  PRIORITY_FEE_FLOOR,
  PRIORITY_FEE_PERCENTILE,
  priorityFeeLamports,
  priorityPriceFrom,
  TRANSFER_COMPUTE_UNITS,
} from '../../core/priority-fee';

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

const PRIORITY_FEE_TIMEOUT_MS = 5_000;

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

/** The two ComputeBudget instructions that go first in every wallet transaction. */
export function computeBudgetInstructions(units: number, microLamports: number): TransactionInstruction[] {
  return [
    ComputeBudgetProgram.setComputeUnitLimit({ units }),
    ComputeBudgetProgram.setComputeUnitPrice({ microLamports }),
  ];
}
