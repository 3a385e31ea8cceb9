import { Keypair, PublicKey } from '@solana/web3.js';
import bs58 from 'bs58';
import { getAssociatedTokenAddressSync } from '@solana/spl-token';
import { describe, expect, it } from 'vitest';
import { PaymentRpcTimeoutError, type PaymentRpc, type PaymentTransaction, type SignatureInfo } from './rpc';
import { isSignature } from './signature';
import { classifyTransaction, listSignatures, verifyHint } from './verify';

// Unit level: the port driven by an in-memory ledger. Real transactions are in test/integration/payments*.

const key = () => Keypair.generate().publicKey.toBase58();
const newSignature = () => bs58.encode(Keypair.generate().secretKey.slice(0, 64));

const mint = key();
const otherMint = key();
const recipient = key();
const payer = key();
const reference = key();
const recipientAta = getAssociatedTokenAddressSync(
  new PublicKey(mint),
  new PublicKey(recipient),
  true,
).toBase58();

interface Entry {
  info: SignatureInfo;
  tx: PaymentTransaction;
  mentions: string[];
}

function transfer(opts: {
  amount: bigint;
  pre?: bigint;
  toOwner?: string;
  mint?: string;
  err?: unknown;
  slot: number;
  ownerless?: boolean;
}): Entry {
  const signature = newSignature();
  const toOwner = opts.toOwner ?? recipient;
  const m = opts.mint ?? mint;
  const pre = opts.pre ?? 0n;
  const keys = [payer, key(), opts.ownerless ? recipientAta : key(), reference];
  const tx: PaymentTransaction = {
    signature,
    slot: opts.slot,
    blockTime: 1_700_000_000 + opts.slot,
    err: opts.err ?? null,
    accountKeys: keys,
    preTokenBalances: [
      { accountIndex: 1, mint: m, owner: payer, amount: '1000000000' },
      ...(pre > 0n
        ? [{ accountIndex: 2, mint: m, owner: opts.ownerless ? null : toOwner, amount: pre.toString() }]
        : []),
    ],
    postTokenBalances: [
      {
        accountIndex: 1,
        mint: m,
        owner: payer,
        amount: (1_000_000_000n - (opts.err ? 0n : opts.amount)).toString(),
      },
      {
        accountIndex: 2,
        mint: m,
        owner: opts.ownerless ? null : toOwner,
        amount: (pre + (opts.err ? 0n : opts.amount)).toString(),
      },
    ],
  };
  return {
    info: {
      signature,
      slot: opts.slot,
      err: opts.err ?? null,
      blockTime: tx.blockTime,
      confirmationStatus: 'confirmed',
    },
    tx,
    mentions: keys,
  };
}

function fakeRpc(entries: Entry[], opts: { hang?: boolean } = {}): PaymentRpc & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    async getSignaturesForAddress(address, q) {
      calls.push(`sigs ${q.before ?? ''}`);
      if (opts.hang) await new Promise(() => {});
      const newestFirst = entries
        .filter((e) => e.mentions.includes(address))
        .map((e) => e.info)
        .reverse();
      let start = 0;
      if (q.before) start = newestFirst.findIndex((s) => s.signature === q.before) + 1;
      const limit = q.limit ?? 1000;
      return newestFirst.slice(start, start + limit);
    },
    async getTransaction(signature) {
      calls.push(`tx ${signature}`);
      return entries.find((e) => e.info.signature === signature)?.tx ?? null;
    },
    async getSignatureStatuses(signatures) {
      return signatures.map((s) => {
        const e = entries.find((x) => x.info.signature === s);
        return e
          ? { slot: e.info.slot, err: e.info.err, confirmationStatus: e.info.confirmationStatus }
          : null;
      });
    },
  };
}

const expected = { reference, recipientOwner: recipient, mint, amountBaseUnits: 5_000_000n };

describe('classifyTransaction', () => {
  it('counts the raw balance change, not the post balance', () => {
    const e = transfer({ amount: 2n, pre: 10_000_000n, slot: 1 });
    expect(classifyTransaction(e.tx, expected)).toEqual({ kind: 'Transfer', receivedBaseUnits: 2n });
  });
  it('falls back to the associated token account address when the node omits owners', () => {
    const e = transfer({ amount: 7n, slot: 1, ownerless: true });
    expect(classifyTransaction(e.tx, expected)).toEqual({ kind: 'Transfer', receivedBaseUnits: 7n });
  });
  it('reports a wrong mint and a wrong recipient', () => {
    expect(
      classifyTransaction(transfer({ amount: 5_000_000n, mint: otherMint, slot: 1 }).tx, expected).kind,
    ).toBe('WrongMint');
    expect(
      classifyTransaction(transfer({ amount: 5_000_000n, toOwner: key(), slot: 1 }).tx, expected).kind,
    ).toBe('WrongRecipient');
  });
});

describe('listSignatures (port level)', () => {
  it('pages past a screenful of dust, oldest first, and the real payment is judged a transfer', async () => {
    const dust = Array.from({ length: 25 }, (_, i) => transfer({ amount: 1n, slot: i + 1 }));
    const real = transfer({ amount: 5_000_000n, slot: 100 });
    const last = transfer({ amount: 3n, slot: 101 });
    const rpc = fakeRpc([...dust, real, last]);
    const listed = await listSignatures(rpc, reference, { pageSize: 10 });
    expect(listed.map((s) => s.signature)).toEqual([...dust, real, last].map((e) => e.info.signature));
    expect(rpc.calls.filter((c) => c.startsWith('sigs')).length).toBe(3);
    expect(classifyTransaction(real.tx, expected)).toEqual({
      kind: 'Transfer',
      receivedBaseUnits: 5_000_000n,
    });
  });

  it('stops at maxSignatures (spam bound)', async () => {
    const dust = Array.from({ length: 30 }, (_, i) => transfer({ amount: 1n, slot: i + 1 }));
    const listed = await listSignatures(fakeRpc(dust), reference, { pageSize: 10, maxSignatures: 20 });
    expect(listed).toHaveLength(20);
  });

  it('judges a transaction that landed with an error as Failed', () => {
    const failed = transfer({ amount: 5_000_000n, slot: 1, err: { InstructionError: [0, { Custom: 1 }] } });
    expect(classifyTransaction(failed.tx, expected)).toMatchObject({ kind: 'Failed' });
  });

  it('times out a hanging RPC with a typed error', async () => {
    await expect(
      listSignatures(fakeRpc([], { hang: true }), reference, { timeoutMs: 50 }),
    ).rejects.toBeInstanceOf(PaymentRpcTimeoutError);
  });
});

describe('verifyHint', () => {
  it('re-reads the chain and requires the order reference', async () => {
    const real = transfer({ amount: 5_000_000n, slot: 1 });
    const rpc = fakeRpc([real]);
    expect(await verifyHint(rpc, expected, real.info.signature)).toMatchObject({
      kind: 'Paid',
      signature: real.info.signature,
    });
    expect(await verifyHint(rpc, { ...expected, reference: key() }, real.info.signature)).toEqual({
      kind: 'NotFound',
      reason: 'reference_missing',
    });
    expect(await verifyHint(rpc, expected, newSignature())).toEqual({
      kind: 'NotFound',
      reason: 'not_confirmed',
    });
    expect(await verifyHint(rpc, expected, 'not-a-signature')).toEqual({
      kind: 'NotFound',
      reason: 'malformed_signature',
    });
    expect(isSignature(real.info.signature)).toBe(true);
  });
});

describe('processed-only statuses and a node that does not serve the transaction (ledger invariants)', () => {
  it('a hinted signature only processed is not a payment, even when the node already serves its transaction', async () => {
    const real = transfer({ amount: 5_000_000n, slot: 1 });
    real.info.confirmationStatus = 'processed';
    const rpc = fakeRpc([real]);
    expect(await verifyHint(rpc, expected, real.info.signature)).toEqual({
      kind: 'NotFound',
      reason: 'not_confirmed',
    });
    // Confirmed a moment later: now it is the payment.
    real.info.confirmationStatus = 'confirmed';
    expect(await verifyHint(rpc, expected, real.info.signature)).toMatchObject({
      kind: 'Paid',
      signature: real.info.signature,
      confirmationStatus: 'confirmed',
    });
  });

  it('a confirmed status whose transaction the node returns as null is not a payment yet', async () => {
    const real = transfer({ amount: 5_000_000n, slot: 1 });
    const rpc = fakeRpc([real]);
    const served = rpc.getTransaction.bind(rpc);
    let serve = false;
    rpc.getTransaction = async (signature) => (serve ? served(signature) : null);
    expect(await verifyHint(rpc, expected, real.info.signature)).toEqual({
      kind: 'NotFound',
      reason: 'not_confirmed',
    });
    serve = true;
    expect(await verifyHint(rpc, expected, real.info.signature)).toMatchObject({ kind: 'Paid' });
  });
});
