/**
 * The $CLAIM a buyer's wallet holds, for the hold rule (docs/decisions/holds.md, src/server/stock/wallet-holds.ts):
 * the balance of the wallet's associated token account for the mint (the account the wallet checkout pays from),
 * read through the server's budgeted RPC (connection.ts) with a short cache (`ttlMs`, default 10 s) and one read in flight
 * per wallet. No account: 0. A frozen account cannot pay: 0. A failed read (RPC down, budget spent): undefined,
 * and the caller holds nothing on it (an order) or leaves the holds to lapse on their deadline (the re-check).
 */
import { address, getAddressEncoder, type Address } from '@solana/kit';
import { tokenProgramOf } from '../ops/vendor-accounts';
import { associatedTokenAddress } from './ata';
import { budgetRetryInMs, rpcBackground } from './budget';
import type { ChainRpc } from './connection';

export interface WalletBalances {
  /** The wallet's $CLAIM in base units (cached ~10 s); undefined when it cannot be read now. */
  balanceOf(wallet: string): Promise<bigint | undefined>;
}

export interface WalletBalancesOptions {
  chain: ChainRpc;
  mint: string;
  ttlMs?: number;
  now?: () => number;
  /** Most wallets kept in the cache (the oldest entry goes first). */
  maxEntries?: number;
  /**
   * How long a read may keep asking when the budget has no free slot (default 2 s): it asks again when the budget
   * says a slot frees, never waiting in the queue (a burst of buyers let through at a drop's start would otherwise be
   * told to click again while slots free within a fraction of a second).
   */
  budgetWaitMs?: number;
  onError?: (err: unknown) => void;
}

/** An SPL token account's amount (u64 at byte 64) if it is this owner's account of this mint and not frozen. */
export function tokenAmountOf(data: Uint8Array, owner: string, mint: string): bigint {
  if (data.length < 165) return 0n;
  const buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const key = (a: string) => Buffer.from(addresses.encode(a as Address));
  if (!key(mint).equals(buf.subarray(0, 32)) || !key(owner).equals(buf.subarray(32, 64))) return 0n;
  const state = buf[108];
  if (state !== 1) return 0n; // 0 uninitialised, 2 frozen: nothing can be paid from it
  return buf.readBigUInt64LE(64);
}

const addresses = getAddressEncoder();

export function createWalletBalances(opts: WalletBalancesOptions): WalletBalances {
  const ttl = opts.ttlMs ?? 10_000;
  const now = opts.now ?? Date.now;
  const max = opts.maxEntries ?? 10_000;
  const mint = opts.mint;
  const cache = new Map<string, { at: number; value: bigint }>();
  const inFlight = new Map<string, Promise<bigint | undefined>>();
  let program: Address | undefined;

  const read = async (wallet: string): Promise<bigint | undefined> => {
    try {
      const owner = address(wallet); // throws for a string that is not an address: no read then
      // Never queued behind the payment watcher: refused at once when the budget has no free slot, then asked again
      // when it says one frees, within `budgetWaitMs` (no hold after that).
      const until = Date.now() + (opts.budgetWaitMs ?? 2_000);
      const once = () =>
        rpcBackground.run(true, async () => {
          program ??= await tokenProgramOf(opts.chain, mint);
          const ata = associatedTokenAddress(mint, owner, program);
          const { value: info } = await opts.chain.api
            .getAccountInfo(ata, { commitment: 'confirmed', encoding: 'base64' })
            .send();
          return info ? tokenAmountOf(Buffer.from(info.data[0], 'base64'), owner, mint) : 0n;
        });
      let value: bigint;
      for (;;) {
        try {
          value = await once();
          break;
        } catch (err) {
          const retryIn = budgetRetryInMs(err);
          if (retryIn === undefined || Date.now() + retryIn > until) throw err;
          await new Promise((r) => setTimeout(r, Math.max(retryIn, 20)));
        }
      }
      cache.delete(wallet);
      cache.set(wallet, { at: now(), value });
      if (cache.size > max) cache.delete(cache.keys().next().value as string);
      return value;
    } catch (err) {
      opts.onError?.(err);
      return undefined;
    }
  };

  return {
    async balanceOf(wallet) {
      const hit = cache.get(wallet);
      if (hit && now() - hit.at < ttl) return hit.value;
      let p = inFlight.get(wallet);
      if (!p) {
        p = read(wallet).finally(() => inFlight.delete(wallet));
        inFlight.set(wallet, p);
      }
      return p;
    },
  };
}
