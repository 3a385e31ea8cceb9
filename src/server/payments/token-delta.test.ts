import { Keypair } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import type { PaymentTransaction } from './rpc';
import { associatedTokenAccount, tokenDelta } from './token-delta';

const key = () => Keypair.generate().publicKey.toBase58();
const mint = key();
const otherMint = key();
const owner = key();
const payer = key();

function tx(
  balances: { index: number; mint: string; owner: string | null; pre?: string; post: string }[],
  keys: string[],
  err: unknown = null,
): PaymentTransaction {
  return {
    signature: 'sig',
    slot: 1,
    blockTime: 1,
    err,
    accountKeys: keys,
    preTokenBalances: balances
      .filter((b) => b.pre !== undefined)
      .map((b) => ({ accountIndex: b.index, mint: b.mint, owner: b.owner, amount: b.pre as string })),
    postTokenBalances: balances.map((b) => ({
      accountIndex: b.index,
      mint: b.mint,
      owner: b.owner,
      amount: b.post,
    })),
  };
}

describe('tokenDelta: what counts as money received', () => {
  const keys = [payer, key(), key(), key()];
  it('is the raw balance change of the owner’s accounts of the mint, summed', () => {
    const t = tx(
      [
        { index: 1, mint, owner: payer, pre: '100', post: '40' },
        { index: 2, mint, owner, pre: '5', post: '35' },
        { index: 3, mint, owner, pre: '0', post: '30' },
      ],
      keys,
    );
    expect(tokenDelta(t, owner, mint)).toBe(60n);
    expect(tokenDelta(t, payer, mint)).toBe(-60n);
    expect(tokenDelta(t, owner, otherMint)).toBe(0n);
  });

  it('counts an account created in the transaction from zero', () => {
    expect(tokenDelta(tx([{ index: 2, mint, owner, post: '7' }], keys), owner, mint)).toBe(7n);
  });

  it('falls back on the owner’s associated token account when the node omits owners', () => {
    const ata = associatedTokenAccount(mint, owner) as string;
    const t = tx(
      [
        { index: 1, mint, owner: null, pre: '0', post: '9' },
        { index: 2, mint, owner: null, pre: '0', post: '4' },
      ],
      [payer, ata, key()],
    );
    expect(tokenDelta(t, owner, mint)).toBe(9n);
  });

  it('is zero for a failed transaction and ignores amounts that are not integer strings', () => {
    expect(
      tokenDelta(tx([{ index: 2, mint, owner, pre: '0', post: '9' }], keys, { err: 1 }), owner, mint),
    ).toBe(0n);
    expect(tokenDelta(tx([{ index: 2, mint, owner, pre: '0', post: '1.5' }], keys), owner, mint)).toBe(0n);
  });
});
