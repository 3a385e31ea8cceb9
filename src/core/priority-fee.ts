/**
 * The priority-fee rule of every payment transaction the store builds or asks a wallet for (the wallet checkout,
 * the Solana Pay transaction request, the vendor's refund): a compute-unit limit per kind of transaction and a
 * compute-unit price taken from the RPC's recent fees. Pure (no RPC, no web3.js): the browser reads the fees
 * itself (src/web/lib/priority-fee.ts), the server from its shared chain snapshot (payments/recent-chain.ts).
 */

/**
 * Limits: what the instructions need, with room for the heavier builds of the token programs (the price is
 * charged on the limit, so it stays tight). Measured on the localnet (LiteSVM's token programs,
 * test/e2e/wallet-buyer.test.ts): the payment 458 CU, the idempotent account creation 15,325 CU (ComputeBudget
 * instructions included); the classic SPL Token TransferChecked is about 6.2k CU on mainnet and an associated
 * account creation about 25k, both well inside.
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

/** The compute-unit price from the RPC's recent fees: percentile, floor, cap (integers). */
export function priorityPriceFrom(fees: readonly { prioritizationFee: number | bigint }[] | null): number {
  const values = (fees ?? [])
    .map((f) => (typeof f.prioritizationFee === 'bigint' ? Number(f.prioritizationFee) : f.prioritizationFee))
    .filter((v) => Number.isSafeInteger(v) && v >= 0)
    .sort((a, b) => a - b);
  if (values.length === 0) return PRIORITY_FEE_FLOOR;
  const at = Math.min(values.length - 1, Math.floor((values.length * PRIORITY_FEE_PERCENTILE) / 100));
  return Math.min(PRIORITY_FEE_CAP, Math.max(PRIORITY_FEE_FLOOR, values[at] ?? 0));
}

/** The priority fee in lamports of `units` compute units at `microLamports` each (rounded up, as the runtime). */
export function priorityFeeLamports(microLamports: number, units: number): number {
  return Number((BigInt(microLamports) * BigInt(units) + 999_999n) / 1_000_000n);
}
