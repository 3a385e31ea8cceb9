/**
 * getRecentPrioritizationFees: the lowest compute-unit price landed per recent slot, as a node's
 * prioritization-fee cache reports it.
 */
import type { TxRecord } from './history.js';
import { invalid, pubkey, type Params, type RpcContext } from './rpc-params.js';

const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
/** Solana answers for the last 150 slots (its prioritization-fee cache). */
const PRIORITIZATION_FEE_SLOTS = 150;

/**
 * The compute-unit price a landed transaction set (ComputeBudget SetComputeUnitPrice, tag 3), else 0. A v1
 * transaction states a total priority fee in lamports instead: its price is that fee over its compute-unit limit,
 * in micro-lamports per unit (our reading; docs/decisions/localnet.md).
 */
function computeUnitPriceOf(tx: TxRecord): bigint {
  if (tx.version === 1) {
    const fee = tx.transactionConfig?.priorityFee ?? 0;
    const limit = tx.transactionConfig?.computeUnitLimit ?? 0;
    return fee > 0 && limit > 0 ? (BigInt(fee) * 1_000_000n) / BigInt(limit) : 0n;
  }
  for (const ix of tx.instructions) {
    if (tx.accountKeys[ix.programIdIndex] !== COMPUTE_BUDGET_PROGRAM) continue;
    if (ix.data.length >= 9 && ix.data[0] === 3)
      return new DataView(ix.data.buffer, ix.data.byteOffset + 1, 8).getBigUint64(0, true);
  }
  return 0n;
}

/**
 * getRecentPrioritizationFees([addresses?]): one entry per recent slot (oldest first), `prioritizationFee` = the
 * lowest compute-unit price among the slot's successful transactions (those write-locking one of `addresses` when
 * given), raised to the chain's background level (`Chain.prioritizationFeeFloor`). As on Solana: at most 128
 * addresses, and a slot with no such transaction reports the background level.
 */
export function recentPrioritizationFees(
  p: Params,
  ctx: RpcContext,
): { slot: number; prioritizationFee: number }[] {
  const raw = p[0] ?? [];
  if (!Array.isArray(raw) || raw.some((a) => typeof a !== 'string'))
    throw invalid('Invalid params: expected an array of base-58 addresses.');
  if (raw.length > 128) throw invalid('Too many inputs provided; max 128');
  for (const a of raw as string[]) pubkey(a);
  const wanted = new Set(raw as string[]);
  const floor = BigInt(Math.max(0, Math.floor(ctx.chain.prioritizationFeeFloor)));
  const last = ctx.chain.slot;
  const out: { slot: number; prioritizationFee: number }[] = [];
  for (let slot = Math.max(0, last - PRIORITIZATION_FEE_SLOTS + 1); slot <= last; slot++) {
    let lowest: bigint | null = null;
    for (const tx of ctx.chain.history.inSlot(slot)) {
      if (tx.err !== null) continue;
      if (wanted.size > 0 && !tx.accountKeys.some((k, i) => tx.writable[i] === true && wanted.has(k)))
        continue;
      const price = computeUnitPriceOf(tx);
      if (lowest === null || price < lowest) lowest = price;
    }
    const fee = lowest !== null && lowest > floor ? lowest : floor;
    out.push({ slot, prioritizationFee: Number(fee) });
  }
  return out;
}
