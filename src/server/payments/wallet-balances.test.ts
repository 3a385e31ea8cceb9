/**
 * The wallet balance read when the RPC budget has no free slot: asked again when the budget says one frees, within
 * `budgetWaitMs`, never queued (a drop's burst of buyers let through at once was told to click again). Reads asked
 * for together go in one getMultipleAccounts (the localnet's real token accounts: test/integration/wallet-balances.test.ts).
 */
import { describe, expect, it } from 'vitest';
import { getAddressDecoder, getAddressEncoder, type Address } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { RpcBudgetExhaustedError } from './budget';
import type { ChainRpc } from './connection';
import { createWalletBalances } from './wallet-balances';

const MINT = '3PUCSa2NpabDpY979X6RqFy1nDeHGFx8jb575yMeSvhU';
const WALLET = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

/** A token account of WALLET for MINT holding `amount` (state 1 initialised, 2 frozen). */
function tokenAccount(amount: bigint, state = 1): string {
  const data = Buffer.alloc(165);
  const enc = getAddressEncoder();
  data.set(enc.encode(MINT as Address), 0);
  data.set(enc.encode(WALLET as Address), 32);
  data.writeBigUInt64LE(amount, 64);
  data[108] = state;
  return data.toString('base64');
}

/**
 * A chain whose token-account reads (getMultipleAccounts) are refused by the budget `refusals` times (retry in
 * `retryInMs`), then answer `account` for every address asked.
 */
function chain(refusals: number, retryInMs: number, account: string | null = tokenAccount(1_500_000n)) {
  let reads = 0;
  const asked: number[] = [];
  const api = {
    getAccountInfo: () => ({
      send: () => Promise.resolve({ value: { owner: TOKEN_PROGRAM_ADDRESS } }), // the mint's program
    }),
    getMultipleAccounts: (addresses: Address[]) => ({
      send: () => {
        reads++;
        asked.push(addresses.length);
        if (reads <= refusals)
          return Promise.reject(
            new Error('read failed', { cause: new RpcBudgetExhaustedError('no slot', retryInMs) }),
          );
        return Promise.resolve({
          value: addresses.map(() => (account === null ? null : { data: [account, 'base64'] })),
        });
      },
    }),
  };
  return { chain: { api } as unknown as ChainRpc, reads: () => reads, asked };
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
      getAccountInfo: () => ({ send: () => Promise.resolve({ value: { owner: TOKEN_PROGRAM_ADDRESS } }) }),
      getMultipleAccounts: () => ({
        send: () => {
          reads++;
          return Promise.reject(new Error('node down'));
        },
      }),
    };
    const balances = createWalletBalances({ chain: { api } as unknown as ChainRpc, mint: MINT });
    expect(await balances.balanceOf(WALLET)).toBeUndefined();
    expect(reads).toBe(1);
  });

  it('reads a frozen account as 0 and an absent one as 0', async () => {
    expect(
      await createWalletBalances({ chain: chain(0, 0, tokenAccount(9n, 2)).chain, mint: MINT }).balanceOf(
        WALLET,
      ),
    ).toBe(0n);
    expect(await createWalletBalances({ chain: chain(0, 0, null).chain, mint: MINT }).balanceOf(WALLET)).toBe(
      0n,
    );
  });
});

describe('wallet balances read together', () => {
  /** Distinct valid addresses (the fake chain answers WALLET's account for each: only the batching is the subject). */
  const wallets = (n: number) =>
    Array.from({ length: n }, (_, i) => {
      const key = new Uint8Array(32);
      new DataView(key.buffer).setUint32(0, i + 1);
      return getAddressDecoder().decode(key);
    });

  it('answers wallets asked for at the same moment from one request, one read per wallet', async () => {
    const c = chain(0, 0);
    const balances = createWalletBalances({ chain: c.chain, mint: MINT });
    const ws = wallets(30);
    // Each wallet asked twice: still one account each in the one request.
    const got = await Promise.all([...ws, ...ws].map((w) => balances.balanceOf(w)));
    expect(c.asked).toEqual([30]);
    expect(got.every((v) => v === 0n)).toBe(true); // WALLET's account is not theirs: 0
    // Cached: no request more.
    await balances.balanceOf(ws[0]!);
    expect(c.asked).toEqual([30]);
  });

  it('splits more than 100 wallets, and sends what came meanwhile when the request out answers', async () => {
    const c = chain(0, 0);
    const balances = createWalletBalances({ chain: c.chain, mint: MINT });
    const ws = wallets(250);
    const first = Promise.all(ws.slice(0, 150).map((w) => balances.balanceOf(w)));
    await new Promise((r) => setImmediate(r)); // the first request is out
    const later = Promise.all(ws.slice(150).map((w) => balances.balanceOf(w)));
    await Promise.all([first, later]);
    expect(c.asked).toEqual([100, 100, 50]);
  });

  it('retries a refused batch as one request when the budget frees a slot', async () => {
    const c = chain(1, 30);
    const balances = createWalletBalances({ chain: c.chain, mint: MINT });
    const got = await Promise.all([WALLET, ...wallets(9)].map((w) => balances.balanceOf(w)));
    expect(got[0]).toBe(1_500_000n);
    expect(c.asked).toEqual([10, 10]);
  });
});

describe('wallet balances: requests out at once', () => {
  const wallet = (i: number) => {
    const key = new Uint8Array(32);
    new DataView(key.buffer).setUint32(0, 1000 + i);
    return getAddressDecoder().decode(key);
  };
  /** A chain whose reads answer when the test says: the subject is how many are out at a time. */
  function slowChain() {
    const out: { n: number; answer: () => void }[] = [];
    let programReads = 0;
    const api = {
      getAccountInfo: () => ({
        send: () => {
          programReads++;
          return Promise.resolve({ value: { owner: TOKEN_PROGRAM_ADDRESS } });
        },
      }),
      getMultipleAccounts: (addresses: Address[]) => ({
        send: () =>
          new Promise((resolve) =>
            out.push({ n: addresses.length, answer: () => resolve({ value: addresses.map(() => null) }) }),
          ),
      }),
    };
    return { chain: { api } as unknown as ChainRpc, out, programReads: () => programReads };
  }
  const turn = () => new Promise((r) => setImmediate(r));

  it('sends a wallet asked while others are out at once, up to maxInFlight, then batches the rest', async () => {
    const c = slowChain();
    const balances = createWalletBalances({ chain: c.chain, mint: MINT, maxInFlight: 3 });
    const reads: Promise<bigint | undefined>[] = [];
    for (let i = 0; i < 3; i++) {
      reads.push(balances.balanceOf(wallet(i)));
      for (let k = 0; k < 5; k++) await turn();
    }
    // Three buyers one after another: three requests out, none waiting for another's answer.
    expect(c.out.map((o) => o.n)).toEqual([1, 1, 1]);
    for (let i = 3; i < 8; i++) reads.push(balances.balanceOf(wallet(i)));
    for (let k = 0; k < 5; k++) await turn();
    expect(c.out).toHaveLength(3); // the fourth waits for one to answer
    c.out[0]!.answer();
    for (let k = 0; k < 5; k++) await turn();
    // The five asked meanwhile go in one request.
    expect(c.out.map((o) => o.n)).toEqual([1, 1, 1, 5]);
    for (const o of c.out.slice(1)) o.answer();
    expect(await Promise.all(reads)).toEqual(Array.from({ length: 8 }, () => 0n));
    // The mint's token program was read once for the requests out together.
    expect(c.programReads()).toBe(1);
  });
});
