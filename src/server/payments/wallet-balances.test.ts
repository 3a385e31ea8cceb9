/**
 * The wallet balance read when the RPC budget has no free slot: asked again when the budget says one frees, within
 * `budgetWaitMs`, never queued (a drop's burst of buyers let through at once was told to click again).
 */
import { describe, expect, it } from 'vitest';
import { getAddressEncoder, type Address } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { RpcBudgetExhaustedError } from './budget';
import type { ChainRpc } from './connection';
import { createWalletBalances } from './wallet-balances';

const MINT = '3PUCSa2NpabDpY979X6RqFy1nDeHGFx8jb575yMeSvhU';
const WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

/** An initialised token account of WALLET for MINT holding `amount`. */
function tokenAccount(amount: bigint): string {
  const data = Buffer.alloc(165);
  const enc = getAddressEncoder();
  data.set(enc.encode(MINT as Address), 0);
  data.set(enc.encode(WALLET as Address), 32);
  data.writeBigUInt64LE(amount, 64);
  data[108] = 1;
  return data.toString('base64');
}

/** A chain whose token-account read is refused by the budget `refusals` times (retry in `retryInMs`), then answers. */
function chain(refusals: number, retryInMs: number) {
  let reads = 0;
  const api = {
    getAccountInfo: (_a: Address, opts: { dataSlice?: unknown }) => ({
      send: () => {
        if (opts.dataSlice) return Promise.resolve({ value: { owner: TOKEN_PROGRAM_ADDRESS } }); // the mint's program
        reads++;
        if (reads <= refusals)
          return Promise.reject(
            new Error('read failed', { cause: new RpcBudgetExhaustedError('no slot', retryInMs) }),
          );
        return Promise.resolve({ value: { data: [tokenAccount(1_500_000n), 'base64'] } });
      },
    }),
  };
  return { chain: { api } as unknown as ChainRpc, reads: () => reads };
}

describe('wallet balances under a busy RPC budget', () => {
  it('asks again when the budget says a slot frees, and reads the balance', async () => {
    const c = chain(3, 30);
    const balances = createWalletBalances({ chain: c.chain, mint: MINT });
    expect(await balances.balanceOf(WALLET)).toBe(1_500_000n);
    expect(c.reads()).toBe(4);
  });

  it('gives up (undefined: no hold) when no slot frees within budgetWaitMs', async () => {
    const c = chain(100, 200);
    const errors: unknown[] = [];
    const balances = createWalletBalances({
      chain: c.chain,
      mint: MINT,
      budgetWaitMs: 500,
      onError: (e) => errors.push(e),
    });
    const t0 = Date.now();
    expect(await balances.balanceOf(WALLET)).toBeUndefined();
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(c.reads()).toBeGreaterThanOrEqual(2);
    expect(c.reads()).toBeLessThanOrEqual(4);
    expect(errors).toHaveLength(1);
  });

  it('does not ask again after another failure', async () => {
    let reads = 0;
    const api = {
      getAccountInfo: (_a: Address, opts: { dataSlice?: unknown }) => ({
        send: () => {
          if (opts.dataSlice) return Promise.resolve({ value: { owner: TOKEN_PROGRAM_ADDRESS } });
          reads++;
          return Promise.reject(new Error('node down'));
        },
      }),
    };
    const balances = createWalletBalances({ chain: { api } as unknown as ChainRpc, mint: MINT });
    expect(await balances.balanceOf(WALLET)).toBeUndefined();
    expect(reads).toBe(1);
  });
});
