/**
 * Wide transactions (a transfer to the vendor naming twelve extra keys) on the local network: at most
 * MAX_KEYS_PER_TRANSFER reference-like keys each are kept in the unmatched table, never a program, the mint, a
 * token account or the fee payer; the match after a new order reads that order's range of the index only; the cap
 * drops the oldest rows. (Split from payments-attack.test.ts: it measures storage and one indexed read, not
 * time-to-paid, so it runs beside the other integration files; the read's bound is taken as the best of three
 * reads, so a moment's load on a shared machine is not read as a scan.)
 */
import { describe, expect, it } from 'vitest';
import { Connection, Keypair, PublicKey, Transaction } from '@solana/web3.js';
import { startLocalnet } from '../support/localnet.js';
import { newReference } from '../../src/server/orders/reference.js';
import { chainRpc } from '../../src/server/payments/connection.js';
import { chainPaymentRpc } from '../../src/server/payments/rpc-adapter.js';
import { kyselyScanStore } from '../../src/server/payments/scan-store.js';
import { MAX_KEYS_PER_TRANSFER, referenceLikeKeys } from '../../src/server/payments/watch/unmatched.js';
import { again, faucet, serviceOrders, transferIx, waitFor } from './payments-support.js';

describe('wide transactions and the unmatched table', () => {
  it('1,000 wide transactions: at most 4 reference-like keys each are kept, and the match reads new orders only', async () => {
    // Storage and the match are measured here; the RPC pacing of judging is the test above's (a node without
    // limits lets the thousand transactions be read quickly).
    const net = await startLocalnet({ port: 0, slotMs: 40, finalizeLag: 6 });
    const orders = await serviceOrders(net, () => new Date());
    try {
      const attacker = Keypair.generate();
      await faucet(net, attacker.publicKey, 10, 1_000_000);
      const connection = new Connection(net.rpcUrl, 'confirmed');
      const rpc = chainPaymentRpc(chainRpc(net.rpcUrl));
      const store = kyselyScanStore(orders.store.db);
      const coopers = net.keys!.recipients.coopersglass;
      const signatures: string[] = [];
      for (let from = 0; from < 1000; from += 50) {
        const latest = await again(() => connection.getLatestBlockhash('confirmed'));
        const batch = await Promise.all(
          Array.from({ length: 50 }, (_, j) => {
            const i = from + j;
            const tx = new Transaction({ feePayer: attacker.publicKey, ...latest }).add(
              transferIx({
                from: attacker,
                recipientOwner: coopers,
                mint: net.keys!.mint,
                amount: BigInt(i + 1),
                // A wide transaction: twelve extra read-only keys, made as references are (the store's
                // newReference: 32 random bytes; web3.js's Keypair.generate for 12,000 keys took seconds).
                references: Array.from({ length: 12 }, () => new PublicKey(newReference())),
              }),
            );
            tx.sign(attacker);
            return again(() => connection.sendRawTransaction(tx.serialize(), { skipPreflight: true }));
          }),
        );
        signatures.push(...batch);
      }
      let keys = 0;
      for (const signature of signatures) {
        const tx = await waitFor('the transaction', () =>
          again(() => rpc.getTransaction(signature)).then((t) => t ?? undefined),
        );
        const kept = referenceLikeKeys(tx);
        // Never a program, the mint, a token account or the fee payer.
        expect(kept).not.toContain(net.keys!.mint.toBase58());
        expect(kept).not.toContain(attacker.publicKey.toBase58());
        expect(kept).not.toContain('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA');
        expect(kept.length).toBeLessThanOrEqual(MAX_KEYS_PER_TRANSFER);
        keys += kept.length;
        await store.addUnmatched(signature, kept, new Date());
      }
      expect(await store.countUnmatched()).toBe(keys);
      expect(keys).toBeLessThanOrEqual(1000 * MAX_KEYS_PER_TRANSFER);

      // 3,000 open orders; the match after one more order reads that order only (its range of the index).
      const first = await orders.place();
      const row = await orders.store.db
        .selectFrom('orders')
        .selectAll()
        .where('id', '=', first.orderId)
        .executeTakeFirstOrThrow();
      for (let i = 0; i < 3000; i += 250)
        await orders.store.db
          .insertInto('orders')
          .values(
            Array.from({ length: 250 }, () => ({
              ...row,
              id: crypto.randomUUID(),
              reference: newReference(),
              public_token: null,
            })),
          )
          .execute();
      // The priority checks' expiring orders: a range of the same index, soonest first, bounded.
      expect(await store.expiringSoon(new Date(Date.now() + 5 * 60_000), 20)).toEqual([]);
      expect(await store.expiringSoon(new Date(Date.now() + 16 * 60_000), 20)).toHaveLength(20);
      const since = new Date(Date.now() + 90_000);
      const reads: number[] = [];
      for (let i = 0; i < 3; i++) {
        const t0 = performance.now();
        expect(await store.matchedUnmatched(since)).toEqual([]);
        reads.push(performance.now() - t0);
      }
      expect(Math.min(...reads)).toBeLessThan(50);

      // The cap: the oldest rows beyond it go.
      const dropped = await store.capUnmatched(100);
      expect(dropped).toBeGreaterThanOrEqual(keys - 100);
      expect(await store.countUnmatched()).toBeLessThanOrEqual(100);
    } finally {
      await orders.close();
      await net.close();
    }
  }, 120_000);
});
