import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { startLocalnet, type Localnet } from '../support/localnet.js';
import { chainRpc } from '../../src/server/payments/connection.js';
import { chainPaymentRpc } from '../../src/server/payments/rpc-adapter.js';
import type { PaymentRpc } from '../../src/server/payments/rpc.js';
import {
  classifyTransaction,
  listSignatures,
  verifyHint,
  type ExpectedPayment,
} from '../../src/server/payments/verify.js';
import {
  computeBudgetIxs,
  createOtherMint,
  faucet,
  memoIx,
  pay,
  send,
  transferIx,
} from './payments-support.js';

// Real transactions on the local SVM, read back through the real JSON-RPC with @solana/web3.js, judged by what
// production runs: verifyHint (one reported signature) and classifyTransaction over listSignatures (the sweeps).

describe('payment verification against the localnet', () => {
  let net: Localnet;
  let connection: Connection;
  let rpc: PaymentRpc;
  let mint: PublicKey;
  let coopers: PublicKey;
  let gorilla: PublicKey;
  const buyer = Keypair.generate();
  const PRICE = 12_345_678n; // 12.345678 $CLAIM

  beforeAll(async () => {
    // The gorilla vendor starts without its token account (the seed's option): a payment that creates it is judged.
    net = await startLocalnet({ port: 0, slotMs: 40, finalizeLag: 4, withoutTokenAccount: ['gorilla'] });
    if (!net.keys) throw new Error('localnet not seeded');
    mint = net.keys.mint;
    coopers = net.keys.recipients.coopersglass;
    gorilla = net.keys.recipients.gorilla;
    connection = new Connection(net.rpcUrl, 'confirmed');
    rpc = chainPaymentRpc(chainRpc(net.rpcUrl), { timeoutMs: 5000 });
    await faucet(net, buyer.publicKey, 10, 10_000);
  });
  afterAll(async () => {
    await net.close();
  });

  const order = (over: Partial<ExpectedPayment> = {}): ExpectedPayment & { ref: PublicKey } => {
    const ref = Keypair.generate().publicKey;
    return {
      ref,
      reference: ref.toBase58(),
      recipientOwner: coopers.toBase58(),
      mint: mint.toBase58(),
      amountBaseUnits: PRICE,
      ...over,
    };
  };

  it('lists nothing before anyone pays', async () => {
    expect(await listSignatures(rpc, order().reference)).toEqual([]);
  });

  it('accepts the exact payment (Paid, not overpaid, with slot and blockTime)', async () => {
    const o = order();
    const signature = await pay(connection, {
      from: buyer,
      recipientOwner: coopers,
      mint,
      amount: PRICE,
      references: [o.ref],
    });
    const out = await verifyHint(rpc, o, signature);
    expect(out).toMatchObject({ kind: 'Paid', signature, receivedBaseUnits: PRICE, overpaid: false });
    if (out.kind !== 'Paid') throw new Error('unreachable');
    expect(out.slot).toBeGreaterThan(0);
    expect(typeof out.blockTime).toBe('number');
    expect(['confirmed', 'finalized']).toContain(out.confirmationStatus);
  });

  it('flags an overpayment and keeps the amount received', async () => {
    const o = order();
    const signature = await pay(connection, {
      from: buyer,
      recipientOwner: coopers,
      mint,
      amount: PRICE + 1n,
      references: [o.ref],
    });
    expect(await verifyHint(rpc, o, signature)).toMatchObject({
      kind: 'Paid',
      receivedBaseUnits: PRICE + 1n,
      overpaid: true,
    });
  });

  it('reports an underpayment by one base unit', async () => {
    const o = order();
    const signature = await pay(connection, {
      from: buyer,
      recipientOwner: coopers,
      mint,
      amount: PRICE - 1n,
      references: [o.ref],
    });
    expect(await verifyHint(rpc, o, signature)).toMatchObject({
      kind: 'Underpaid',
      signature,
      receivedBaseUnits: PRICE - 1n,
    });
  });

  it('rejects the right amount of another mint (WrongMint)', async () => {
    const other = await createOtherMint(connection, buyer, buyer.publicKey, 10n ** 12n);
    const o = order();
    const signature = await pay(connection, {
      from: buyer,
      recipientOwner: coopers,
      mint: other,
      amount: PRICE,
      references: [o.ref],
      createRecipientAta: true,
    });
    expect(await verifyHint(rpc, o, signature)).toEqual({ kind: 'WrongMint', signature });
  });

  it('rejects a payment to another wallet (WrongRecipient)', async () => {
    const o = order();
    const stranger = Keypair.generate().publicKey;
    const signature = await pay(connection, {
      from: buyer,
      recipientOwner: stranger,
      mint,
      amount: PRICE,
      references: [o.ref],
      createRecipientAta: true,
    });
    expect(await verifyHint(rpc, o, signature)).toEqual({ kind: 'WrongRecipient', signature });
  });

  it('reports a transaction that landed with an error (Failed)', async () => {
    const poor = Keypair.generate();
    await faucet(net, poor.publicKey, 1, 1); // 1 $CLAIM, the order asks for 12.3
    const o = order();
    const signature = await pay(connection, {
      from: poor,
      recipientOwner: coopers,
      mint,
      amount: PRICE,
      references: [o.ref],
      skipPreflight: true,
    });
    const tx = await connection.getTransaction(signature, {
      commitment: 'confirmed',
      maxSupportedTransactionVersion: 0,
    });
    expect(tx?.meta?.err).not.toBeNull();
    expect(await verifyHint(rpc, o, signature)).toMatchObject({ kind: 'Failed', signature });
  });

  it('does not let one signature pay two orders (AlreadyUsed)', async () => {
    const a = order();
    const b = order();
    // One transfer carrying both references: valid for either order, but only one may have it.
    const signature = await pay(connection, {
      from: buyer,
      recipientOwner: coopers,
      mint,
      amount: PRICE,
      references: [a.ref, b.ref],
    });
    const owners = new Map<string, string>();
    const first = await verifyHint(
      rpc,
      { ...a, usedSignature: (s) => owners.has(s) && owners.get(s) !== 'a' },
      signature,
    );
    expect(first).toMatchObject({ kind: 'Paid', signature });
    owners.set(signature, 'a');
    expect(
      await verifyHint(
        rpc,
        { ...b, usedSignature: async (s) => owners.has(s) && owners.get(s) !== 'b' },
        signature,
      ),
    ).toEqual({
      kind: 'AlreadyUsed',
      signature,
    });
  });

  it('finds the real payment behind dust sent with the reference first', async () => {
    const o = order();
    const attacker = Keypair.generate();
    await faucet(net, attacker.publicKey, 1, 1);
    const dust1 = await pay(connection, {
      from: attacker,
      recipientOwner: coopers,
      mint,
      amount: 1n,
      references: [o.ref],
    });
    const dust2 = await pay(connection, {
      from: attacker,
      recipientOwner: coopers,
      mint,
      amount: 2n,
      references: [o.ref],
    });
    const real = await pay(connection, {
      from: buyer,
      recipientOwner: coopers,
      mint,
      amount: PRICE,
      references: [o.ref],
    });
    expect(dust1).not.toBe(real);
    // Page size 1: the listing must follow `before` through every page, not stop at the oldest.
    const listed = await listSignatures(rpc, o.reference, { pageSize: 1 });
    expect(listed.map((s) => s.signature)).toEqual([dust1, dust2, real]);
    const judged = await Promise.all(
      listed.map(async (s) => {
        const tx = await rpc.getTransaction(s.signature);
        if (!tx) throw new Error('listed but not served');
        return classifyTransaction(tx, o);
      }),
    );
    // Each is judged by its own balance change: the dust as the dust it is, the real payment in full.
    expect(judged).toEqual([
      { kind: 'Transfer', receivedBaseUnits: 1n },
      { kind: 'Transfer', receivedBaseUnits: 2n },
      { kind: 'Transfer', receivedBaseUnits: PRICE },
    ]);
    expect(await verifyHint(rpc, o, real)).toMatchObject({ kind: 'Paid', signature: real });
  });

  it('finds the transfer among wallet instructions before and after it (ComputeBudget, memo)', async () => {
    const o = order();
    const signature = await pay(connection, {
      from: buyer,
      recipientOwner: coopers,
      mint,
      amount: PRICE,
      references: [o.ref],
      before: [...computeBudgetIxs(), memoIx('wallet safety note', buyer.publicKey)],
      after: [memoIx('order 42', buyer.publicKey)],
    });
    expect(await verifyHint(rpc, o, signature)).toMatchObject({ kind: 'Paid', signature, overpaid: false });
  });

  it('accepts a payment into a recipient token account created in the same transaction', async () => {
    // The gorilla vendor's token account does not exist yet on this localnet (withoutTokenAccount).
    expect(
      await connection.getAccountInfo(
        new PublicKey(net.recipientTokenAccounts?.gorilla ?? PublicKey.default),
      ),
    ).toBeNull();
    const o = order({ recipientOwner: gorilla.toBase58() });
    const signature = await pay(connection, {
      from: buyer,
      recipientOwner: gorilla,
      mint,
      amount: PRICE,
      references: [o.ref],
      createRecipientAta: true,
    });
    expect(await verifyHint(rpc, o, signature)).toMatchObject({
      kind: 'Paid',
      signature,
      receivedBaseUnits: PRICE,
    });
  });

  it('treats the browser hint as a hint: re-reads the chain and requires the order reference', async () => {
    const o = order();
    const signature = await send(
      connection,
      [
        ...computeBudgetIxs(),
        transferIx({ from: buyer, recipientOwner: coopers, mint, amount: PRICE, references: [o.ref] }),
      ],
      [buyer],
    );
    expect(await verifyHint(rpc, o, signature)).toMatchObject({ kind: 'Paid', signature });
    // Someone else's real payment reported for this order does not count.
    const other = order();
    expect(await verifyHint(rpc, other, signature)).toEqual({
      kind: 'NotFound',
      reason: 'reference_missing',
    });
    expect(await verifyHint(rpc, { ...o, usedSignature: () => true }, signature)).toEqual({
      kind: 'AlreadyUsed',
      signature,
    });
    expect(await verifyHint(rpc, { ...o, amountBaseUnits: PRICE + 1n }, signature)).toMatchObject({
      kind: 'Underpaid',
      receivedBaseUnits: PRICE,
    });
  });
});
