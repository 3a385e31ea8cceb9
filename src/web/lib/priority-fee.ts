/**
 * The priority fee of every wallet transaction the site asks for (the buyer's checkout, the vendor's refund in
 * the seller console): a compute-unit limit and a compute-unit price from the RPC's recent fees, read with
 * @solana/kit. The rule itself is shared with the server (the Solana Pay transaction request):
 * src/core/priority-fee.ts.
 */
import {
  getSetComputeUnitLimitInstruction,
  getSetComputeUnitPriceInstruction,
} from '@solana-program/compute-budget';
import type { Address, Instruction } from '@solana/kit';
import { PRIORITY_FEE_FLOOR, priorityPriceFrom } from '../../core/priority-fee';
import { recentPrioritizationFees, withTimeout, type SolanaRpc } from './solana-rpc';

export {
  CREATE_ACCOUNT_COMPUTE_UNITS,
  PRIORITY_FEE_CAP,
  PRIORITY_FEE_FLOOR,
  PRIORITY_FEE_PERCENTILE,
  priorityFeeLamports,
  priorityPriceFrom,
  TRANSFER_COMPUTE_UNITS,
} from '../../core/priority-fee';

const PRIORITY_FEE_TIMEOUT_MS = 5_000;

/** The compute-unit price for a transaction write-locking `accounts`; the floor when the RPC lacks the method. */
export async function priorityPrice(rpc: SolanaRpc, accounts: Address[]): Promise<number> {
  try {
    const fees = await withTimeout(
      recentPrioritizationFees(rpc, accounts),
      PRIORITY_FEE_TIMEOUT_MS,
      'getRecentPrioritizationFees',
    );
    return priorityPriceFrom(fees);
  } catch {
    return PRIORITY_FEE_FLOOR;
  }
}

/** The two ComputeBudget instructions that go first in every wallet transaction. */
export function computeBudgetInstructions(units: number, microLamports: number): Instruction[] {
  return [
    getSetComputeUnitLimitInstruction({ units }),
    getSetComputeUnitPriceInstruction({ microLamports: BigInt(microLamports) }),
  ];
}
