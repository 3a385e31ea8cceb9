/**
 * What a Solana Pay transaction request needs from the chain, read once for every request instead of per request
 * (docs/decisions/transaction-requests.md): a recent blockhash and the priority price. A snapshot shared by the
 * process, refreshed lazily: a request that finds it older than `refreshMs` starts one refresh in the background
 * (two RPC requests: getLatestBlockhash, getRecentPrioritizationFees for the vendors' token accounts) and is
 * answered from the snapshot at once. The refresh goes through the process's RPC budget as a background request
 * (rpcBackground: refused at once rather than queued when no slot is free; the snapshot stands, and a request
 * `refreshMs` later tries again), so no POST ever waits for, or adds, an RPC call of its own. An idle shop asks nothing.
 *
 * A blockhash older than `maxBlockhashAgeMs` (or none yet) is not handed out: the answer then carries the zero
 * blockhash the Solana Pay spec allows ("the wallet must set it"). The price follows the wallet checkout's rule
 * (src/core/priority-fee.ts); the floor until the first answer, and the last answer when a refresh fails.
 */
import type { Address } from '@solana/kit';
import { PRIORITY_FEE_FLOOR, priorityPriceFrom } from '../../core/priority-fee';
import { ZERO_BLOCKHASH } from '../../core/payment-tx';
import { associatedTokenAddress } from './ata';
import { rpcBackground } from './budget';
import type { ChainRpc } from './connection';

export interface ChainSnapshot {
  blockhash: string;
  lastValidBlockHeight: bigint;
  priorityMicroLamports: number;
  /** Age of the blockhash handed out (ms); null when it is the zero blockhash. */
  blockhashAgeMs: number | null;
}

export interface RecentChain {
  /** The snapshot now (never waits); starts a background refresh when it is stale. */
  current(): ChainSnapshot;
  /** Resolves when the refresh in flight (if any) is done: start-up warm-up and tests. */
  settled(): Promise<void>;
  stats(): { refreshes: number; failures: number };
}

export interface RecentChainOptions {
  chain: ChainRpc;
  mint: string;
  /** Payout wallets (group → owner): their token accounts are the accounts a payment write-locks. */
  recipients: Record<string, string>;
  now?: () => number;
  /** Refresh when the snapshot is older than this. Default 20 s. */
  refreshMs?: number;
  /** Hand out a blockhash at most this old (a blockhash lives about 60–90 s). Default 45 s. */
  maxBlockhashAgeMs?: number;
  onError?: (err: unknown) => void;
}

export function createRecentChain(opts: RecentChainOptions): RecentChain {
  const now = opts.now ?? Date.now;
  const refreshMs = opts.refreshMs ?? 20_000;
  const maxAge = opts.maxBlockhashAgeMs ?? 45_000;
  let accounts: Address[] | undefined;
  const writable = (): Address[] => {
    accounts ??= Object.values(opts.recipients).flatMap((owner) => {
      try {
        return [associatedTokenAddress(opts.mint, owner)];
      } catch {
        return [];
      }
    });
    return accounts;
  };
  let hash: { blockhash: string; lastValidBlockHeight: bigint; at: number } | undefined;
  let price = PRIORITY_FEE_FLOOR;
  let triedAt = -Infinity;
  let inFlight: Promise<void> | undefined;
  const counts = { refreshes: 0, failures: 0 };

  const refresh = async (): Promise<void> => {
    counts.refreshes++;
    await rpcBackground.run(true, async () => {
      const [latest, fees] = await Promise.allSettled([
        opts.chain.api.getLatestBlockhash({ commitment: 'confirmed' }).send(),
        opts.chain.api.getRecentPrioritizationFees(writable()).send(),
      ]);
      if (latest.status === 'fulfilled')
        hash = {
          blockhash: latest.value.value.blockhash,
          lastValidBlockHeight: latest.value.value.lastValidBlockHeight,
          at: now(),
        };
      if (fees.status === 'fulfilled') price = priorityPriceFrom(fees.value);
      const failed = [latest, fees].find((r) => r.status === 'rejected');
      if (failed) {
        counts.failures++;
        opts.onError?.(failed.reason);
      }
    });
  };

  const kick = () => {
    if (inFlight || now() - triedAt < refreshMs) return;
    triedAt = now();
    inFlight = refresh().finally(() => {
      inFlight = undefined;
    });
  };

  return {
    current() {
      if (!hash || now() - hash.at >= refreshMs) kick();
      const age = hash ? now() - hash.at : Infinity;
      return age <= maxAge && hash
        ? {
            blockhash: hash.blockhash,
            lastValidBlockHeight: hash.lastValidBlockHeight,
            priorityMicroLamports: price,
            blockhashAgeMs: age,
          }
        : {
            blockhash: ZERO_BLOCKHASH,
            lastValidBlockHeight: 0n,
            priorityMicroLamports: price,
            blockhashAgeMs: null,
          };
    },
    async settled() {
      await inFlight;
    },
    stats: () => ({ ...counts }),
  };
}
