import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { Keypair, PublicKey } from '@solana/web3.js';
import { describe, expect, it } from 'vitest';
import type { PaymentTransaction, TokenBalanceEntry } from '../payments/rpc';
import { payerOf, type Payer } from './payers';
import { judgeRefund } from './refund';

const mint = Keypair.generate().publicKey.toBase58();
const otherMint = Keypair.generate().publicKey.toBase58();
const vendor = Keypair.generate().publicKey.toBase58();
const buyer = Keypair.generate().publicKey.toBase58();
const stranger = Keypair.generate().publicKey.toBase58();
const ata = (m: string, owner: string) =>
  getAssociatedTokenAddressSync(new PublicKey(m), new PublicKey(owner), true).toBase58();

interface Move {
  mint: string;
  owner: string | null;
  account?: string;
  pre: bigint | null;
  post: bigint;
}

function tx(moves: Move[], err: unknown = null): PaymentTransaction {
  const accountKeys = [Keypair.generate().publicKey.toBase58()];
  const pre: TokenBalanceEntry[] = [];
  const post: TokenBalanceEntry[] = [];
  for (const m of moves) {
    const index = accountKeys.length;
    accountKeys.push(m.account ?? ata(m.mint, m.owner ?? vendor));
    if (m.pre !== null)
      pre.push({ accountIndex: index, mint: m.mint, owner: m.owner, amount: String(m.pre) });
    post.push({ accountIndex: index, mint: m.mint, owner: m.owner, amount: String(m.post) });
  }
  return {
    signature: 's',
    slot: 10,
    blockTime: null,
    err,
    accountKeys,
    preTokenBalances: pre,
    postTokenBalances: post,
  };
}

const payment = tx([
  { mint, owner: buyer, pre: 1000n, post: 400n },
  { mint, owner: vendor, pre: 0n, post: 600n },
]);
const buyerPayer = payerOf(payment, mint)!;
const payers: Payer[] = [buyerPayer];

describe('who paid (pure)', () => {
  it('the payer of a transfer is the account of the mint it debited most, with its owner', () => {
    expect(buyerPayer).toEqual({ owner: buyer, account: ata(mint, buyer) });
    expect(payerOf(tx([{ mint, owner: buyer, pre: 5n, post: 0n }], { x: 1 }), mint)).toBeNull();
    expect(payerOf(tx([{ mint: otherMint, owner: buyer, pre: 5n, post: 0n }]), mint)).toBeNull();
    // Someone else's account debited a little in the same transaction does not make them a payer.
    const both = tx([
      { mint, owner: stranger, pre: 5n, post: 4n },
      { mint, owner: buyer, pre: 1000n, post: 400n },
      { mint, owner: vendor, pre: 0n, post: 601n },
    ]);
    expect(payerOf(both, mint)).toEqual({ owner: buyer, account: ata(mint, buyer) });
  });
});

describe('refund check (pure)', () => {
  it('accepts the mint moving from the vendor to the payer; the amount is what the payer received', () => {
    const refund = tx([
      { mint, owner: vendor, pre: 600n, post: 100n },
      { mint, owner: buyer, pre: 400n, post: 900n },
    ]);
    expect(judgeRefund(refund, { mint, vendorOwner: vendor, payers })).toEqual({
      kind: 'refund',
      amountBaseUnits: 500n,
      to: buyerPayer,
    });
    // Without owners in the node's answer: the vendor's associated account and the payer's debited account.
    const noOwners = tx([
      { mint, owner: null, account: ata(mint, vendor), pre: 600n, post: 590n },
      { mint, owner: null, account: ata(mint, buyer), pre: 400n, post: 410n },
    ]);
    expect(judgeRefund(noOwners, { mint, vendorOwner: vendor, payers })).toEqual({
      kind: 'refund',
      amountBaseUnits: 10n,
      to: buyerPayer,
    });
  });

  it('refuses the wrong direction, another receiver, another mint, a failed or empty transaction', () => {
    const judge = (t: PaymentTransaction) => judgeRefund(t, { mint, vendorOwner: vendor, payers }).kind;
    expect(judge(payment)).toBe('wrong_direction');
    expect(
      judge(
        tx([
          { mint, owner: vendor, pre: 600n, post: 100n },
          { mint, owner: stranger, pre: null, post: 500n },
        ]),
      ),
    ).toBe('not_to_payer');
    expect(
      judge(
        tx([
          { mint: otherMint, owner: vendor, pre: 600n, post: 100n },
          { mint: otherMint, owner: buyer, pre: null, post: 500n },
        ]),
      ),
    ).toBe('wrong_mint');
    expect(
      judge(
        tx(
          [
            { mint, owner: vendor, pre: 600n, post: 100n },
            { mint, owner: buyer, pre: 400n, post: 900n },
          ],
          { InstructionError: [0, 'Custom'] },
        ),
      ),
    ).toBe('failed');
    expect(judge(tx([]))).toBe('no_transfer');
  });

  it('refuses a refund that also pays anyone else, or pays several payers at once', () => {
    const other: Payer = { owner: stranger, account: ata(mint, stranger) };
    const toBoth = tx([
      { mint, owner: vendor, pre: 600n, post: 100n },
      { mint, owner: buyer, pre: 400n, post: 800n },
      { mint, owner: stranger, pre: 0n, post: 100n },
    ]);
    expect(judgeRefund(toBoth, { mint, vendorOwner: vendor, payers }).kind).toBe('not_to_payer');
    expect(judgeRefund(toBoth, { mint, vendorOwner: vendor, payers: [buyerPayer, other] }).kind).toBe(
      'several_payers',
    );
    // To the payer's other account of the same owner: still the payer.
    const otherAccount = Keypair.generate().publicKey.toBase58();
    const elsewhere = tx([
      { mint, owner: vendor, pre: 600n, post: 500n },
      { mint, owner: buyer, account: otherAccount, pre: 0n, post: 100n },
    ]);
    expect(judgeRefund(elsewhere, { mint, vendorOwner: vendor, payers })).toEqual({
      kind: 'refund',
      amountBaseUnits: 100n,
      to: buyerPayer,
    });
  });
});
