/**
 * The whole server (not just the watcher) stopped while a buyer pays: after the restart on the same database,
 * the payment is found and recorded, and the seller is told. Real SQLite file, localnet, SMTP on loopback.
 */
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderCreated, OrderPublic, QuoteResponse } from '../../src/core/api';
import { startStack, type Stack } from '../support/stack';
import { pay, waitFor } from './payments-support';

const US_SHIPPING = {
  kind: 'us',
  fullName: 'Grace Hopper',
  email: 'grace@example.com',
  address1: '1 Navy Way',
  city: 'Arlington',
  usState: 'VA',
  zip: '22202',
};

describe('a payment made while the server is down', () => {
  let stack: Stack;
  const buyer = Keypair.generate();

  beforeAll(async () => {
    stack = await startStack({ slotMs: 50, finalizeLag: 4 });
    await stack.fund(buyer.publicKey.toBase58(), { sol: 1, claim: 1_000_000 });
  });
  afterAll(async () => {
    await stack?.close();
  });

  async function api<T>(path: string, init?: { body: unknown; key?: string }): Promise<T> {
    const res = await fetch(`${stack.url}${path}`, {
      method: init ? 'POST' : 'GET',
      headers: { 'content-type': 'application/json', ...(init?.key ? { 'idempotency-key': init.key } : {}) },
      ...(init ? { body: JSON.stringify(init.body) } : {}),
    });
    expect(res.status, `${path}: ${res.status}`).toBeLessThan(300);
    return (await res.json()) as T;
  }

  it('is matched after the restart, and the seller gets the confirmation e-mail', async () => {
    // Wait for the demo price so a priced quote can be issued.
    await waitFor('price', async () => ((await fetch(`${stack.url}/api/price`)).ok ? true : undefined));
    const quote = await api<QuoteResponse>('/api/quotes', {
      body: { items: [{ productId: 'honey-dew-papaya-live-rosin', quantity: 2 }] },
    });
    const order = await api<OrderCreated>('/api/orders', {
      body: { quote: quote.quote, shipping: US_SHIPPING, paymentMethod: 'qr' },
      key: 'restart-1',
    });

    await stack.stopServer();
    const connection = new Connection(stack.localnet.rpcUrl, 'confirmed');
    const signature = await pay(connection, {
      from: buyer,
      recipientOwner: new PublicKey(order.recipient),
      mint: new PublicKey(order.mint),
      amount: BigInt(order.amountBaseUnits),
      references: [new PublicKey(order.reference)],
      createRecipientAta: true,
    });
    await new Promise((r) => setTimeout(r, 500)); // the chain moves on while nobody listens

    await stack.startServer();
    const paid = await waitFor(
      'order paid after restart',
      async () => {
        const o = await api<OrderPublic>(`/api/orders/${order.orderId}`);
        return o.status === 'paid' || o.status === 'final' ? o : undefined;
      },
      20_000,
    );
    expect(paid.signature).toBe(signature);
    expect(paid.receivedBaseUnits).toBe(order.amountBaseUnits);
    expect(paid.history.map((h) => h.status)).toContain('awaiting_payment');

    // The details were sent with the order, so the payment sends the confirmation pair (nothing went before it).
    const mails = await stack.mail.waitFor(2, 20_000);
    const note = mails.find((m) => (m.subject ?? '').startsWith('New order'));
    expect(note, mails.map((m) => m.subject).join(' | ')).toBeDefined();
    expect(note?.text).toContain('Honey Dew Papaya Live Rosin');
    const to = note?.to;
    expect(to && !Array.isArray(to) ? to.value.map((a) => a.address) : []).toEqual([
      stack.settings.mail.sellerEmail,
    ]);
  });
});
