import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { generateKeyPairSigner } from '@solana/kit';
import { describe, expect, it } from 'vitest';
import type { ChainRpc } from './connection';
import { createPayoutAccounts } from './payout-accounts';

const key = async () => (await generateKeyPairSigner()).address;
const mint = await key();
const recipients = { coopersglass: await key(), gorilla: await key() };

/** The RPC client's stand-in: the mint is an SPL Token mint; `exists` says which token accounts exist. */
function fakeChain(exists: { coopersglass: boolean; gorilla: boolean }) {
  const calls = { mint: 0, accounts: 0 };
  let failing = false;
  let release: (() => void) | undefined;
  let gate: Promise<void> | undefined;
  const api = {
    getAccountInfo: (address: string) => ({
      send: () => {
        calls.mint += 1;
        if (failing) return Promise.reject(new Error('503'));
        expect(address).toBe(mint);
        return Promise.resolve({ value: { owner: TOKEN_PROGRAM_ADDRESS } });
      },
    }),
    getMultipleAccounts: (addresses: string[]) => ({
      send: async () => {
        calls.accounts += 1;
        await gate;
        if (failing) throw new Error('503');
        return {
          value: [exists.coopersglass ? {} : null, exists.gorilla ? {} : null].slice(0, addresses.length),
        };
      },
    }),
  };
  return {
    chain: { api, url: 'http://chain.invalid', fetch } as unknown as ChainRpc,
    calls,
    exists,
    fail: (f: boolean) => {
      failing = f;
    },
    hold: () => {
      gate = new Promise((r) => (release = r));
    },
    let: () => release?.(),
  };
}

describe('payout accounts check (cached, one read in flight)', () => {
  it('20 pages at once share one read; the answer is cached; the mint is read once per process', async () => {
    const chain = fakeChain({ coopersglass: true, gorilla: false });
    let now = 0;
    const accounts = createPayoutAccounts({ chain: chain.chain, mint, recipients, now: () => now });
    chain.hold();
    const asked = Array.from({ length: 20 }, (_, i) => accounts.state(i % 2 ? 'gorilla' : 'coopersglass'));
    await new Promise((r) => setTimeout(r, 10));
    chain.let();
    const states = await Promise.all(asked);
    expect(states.filter((s) => s === 'missing')).toHaveLength(10);
    expect(states.filter((s) => s === 'exists')).toHaveLength(10);
    expect(chain.calls).toEqual({ mint: 1, accounts: 1 });
    now += 14_999;
    await accounts.state('gorilla');
    expect(chain.calls.accounts).toBe(1);
    // Created meanwhile: seen once the 15 s are over; the mint is not read again.
    chain.exists.gorilla = true;
    now += 1;
    expect(await accounts.state('gorilla')).toBe('exists');
    expect(chain.calls).toEqual({ mint: 1, accounts: 2 });
    await expect(accounts.assertReceivable('gorilla', 'Gorilla Pack Genetics')).resolves.toBeUndefined();
  });

  it('a failed read refuses in words (unknown) and is retried after 5 s; an unknown group is unknown', async () => {
    const chain = fakeChain({ coopersglass: true, gorilla: true });
    let now = 0;
    const errors: unknown[] = [];
    const accounts = createPayoutAccounts({
      chain: chain.chain,
      mint,
      recipients,
      now: () => now,
      onError: (e) => errors.push(e),
    });
    chain.fail(true);
    await expect(accounts.assertReceivable('coopersglass', 'Coopers Glass')).rejects.toMatchObject({
      kind: 'unavailable',
      code: 'payout_account_unknown',
    });
    expect(errors).toHaveLength(1);
    chain.fail(false);
    now += 4_999;
    expect(await accounts.state('coopersglass')).toBe('unknown');
    now += 1;
    expect(await accounts.state('coopersglass')).toBe('exists');
    expect(await accounts.state('nobody')).toBe('unknown');
  });
});
