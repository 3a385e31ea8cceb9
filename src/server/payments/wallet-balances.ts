/**
 * The $CLAIM a buyer's wallet holds, for the hold rule (docs/decisions/holds.md, src/server/stock/wallet-holds.ts):
 * the balance of the wallet's associated token account for the mint (the account the wallet checkout pays from),
 * read through the server's budgeted RPC (connection.ts) with a short cache (`ttlMs`, default 10 s) and one read in flight
 * per wallet. No account: 0. A frozen account cannot pay: 0. A failed read (RPC down, budget spent): undefined,
 * and the caller holds nothing on it (an order) or leaves the holds to lapse on their deadline (the re-check).
 *
 * Reads are batched: the wallets asked for at the same moment, or while `maxInFlight` requests are out, are read in
 * one `getMultipleAccounts` (up to 100), so a drop's buyers let through together (or the re-check of every holding
 * wallet) cost a few slots of the fleet's RPC budget, not one each. At most 3 requests are out at a time per
 * process (before 2026-11-26: one, and a buyer let through just after a request went out waited for two round
 * trips, up to ~190 ms in a drop's first second: docs/decisions/drops.md).
 */
import { address, getAddressEncoder, type Address } from '@solana/kit';
import { tokenProgramOf } from '../ops/vendor-accounts';
import { associatedTokenAddress } from './ata';
import { budgetRetryInMs, rpcBackground } from './budget';
import type { ChainRpc } from './connection';

export interface WalletBalances {
  /** The wallet's $CLAIM in base units (cached ~10 s); undefined when it cannot be read now. */
  balanceOf(wallet: string): Promise<bigint | undefined>;
  /**
   * Starts reading the wallet's balance now (unless it is cached or being read), answering nothing: the order
   * that follows finds it read (a drop's buyer let through, at their quote).
   */
  prefetch?(wallet: string): void;
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
  /** Most `getMultipleAccounts` requests out at a time (default 3); wallets asked meanwhile wait for one to answer. */
  maxInFlight?: number;
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

/** Most accounts one getMultipleAccounts may ask for (the RPC's own limit). */
export const BATCH_MAX = 100;

interface Waiting {
  owner: Address;
  /** Asked again after a budget refusal until then (ms since the epoch); refused after. */
  until: number;
  resolve: (amount: bigint) => void;
  reject: (err: unknown) => void;
}

export function createWalletBalances(opts: WalletBalancesOptions): WalletBalances {
  const ttl = opts.ttlMs ?? 10_000;
  const now = opts.now ?? Date.now;
  const max = opts.maxEntries ?? 10_000;
  const mint = opts.mint;
  const cache = new Map<string, { at: number; value: bigint }>();
  const inFlight = new Map<string, Promise<bigint | undefined>>();
  const maxInFlight = Math.max(1, opts.maxInFlight ?? 3);
  // The mint's token program: read once (the first requests out share the read; a failed read is asked again).
  let program: Promise<Address> | undefined;
  const programOf = () =>
    (program ??= tokenProgramOf(opts.chain, mint).catch((err: unknown) => {
      program = undefined;
      throw err;
    }));

  // The batch: wallets asked for while fewer than maxInFlight requests are out go in one getMultipleAccounts at the
  // next turn of the event loop; those asked for while maxInFlight are out go in the next, sent when one answers.
  let queue: Waiting[] = [];
  let out = 0;
  let scheduled = false;
  const kick = () => {
    if (out >= maxInFlight || scheduled || queue.length === 0) return;
    scheduled = true;
    setImmediate(() => {
      scheduled = false;
      void send();
    });
  };
  const send = async () => {
    if (out >= maxInFlight || queue.length === 0) return;
    out++;
    const batch = queue.slice(0, BATCH_MAX);
    queue = queue.slice(BATCH_MAX);
    // More than one request takes: the next goes out at once, up to maxInFlight.
    kick();
    try {
      // Never queued behind the payment watcher: refused at once when the budget has no free slot.
      const amounts = await rpcBackground.run(true, async () => {
        const p = await programOf();
        const atas = batch.map((w) => associatedTokenAddress(mint, w.owner, p));
        const { value } = await opts.chain.api
          .getMultipleAccounts(atas, { commitment: 'confirmed', encoding: 'base64' })
          .send();
        return batch.map((w, i) => {
          const info = value[i];
          return info ? tokenAmountOf(Buffer.from(info.data[0], 'base64'), w.owner, mint) : 0n;
        });
      });
      batch.forEach((w, i) => w.resolve(amounts[i] ?? 0n));
    } catch (err) {
      // Refused by the budget (no free slot now): the batch is asked again, whole, when the budget says a slot
      // frees (one timer, so it stays one request), by each wallet within its `until`; any other failure is final.
      const retryIn = budgetRetryInMs(err);
      const at = Date.now() + Math.max(retryIn ?? 0, 20);
      const again = retryIn === undefined ? [] : batch.filter((w) => at <= w.until);
      for (const w of batch) if (!again.includes(w)) w.reject(err);
      if (again.length > 0)
        setTimeout(() => {
          queue = [...again, ...queue];
          kick();
        }, at - Date.now());
    } finally {
      out--;
      kick();
    }
  };
  const once = (owner: Address, until: number) =>
    new Promise<bigint>((resolve, reject) => {
      queue.push({ owner, until, resolve, reject });
      kick();
    });

  const read = async (wallet: string): Promise<bigint | undefined> => {
    try {
      const owner = address(wallet); // throws for a string that is not an address: no read then
      // Refused by the budget (no free slot now): asked again when the budget says a slot frees, within
      // `budgetWaitMs` (no hold after that).
      const value = await once(owner, Date.now() + (opts.budgetWaitMs ?? 2_000));
      cache.delete(wallet);
      cache.set(wallet, { at: now(), value });
      if (cache.size > max) cache.delete(cache.keys().next().value as string);
      return value;
    } catch (err) {
      opts.onError?.(err);
      return undefined;
    }
  };

  const balanceOf = (wallet: string): Promise<bigint | undefined> => {
    const hit = cache.get(wallet);
    if (hit && now() - hit.at < ttl) return Promise.resolve(hit.value);
    let p = inFlight.get(wallet);
    if (!p) {
      p = read(wallet).finally(() => inFlight.delete(wallet));
      inFlight.set(wallet, p);
    }
    return p;
  };

  return {
    balanceOf,
    prefetch(wallet) {
      void balanceOf(wallet);
    },
  };
}
