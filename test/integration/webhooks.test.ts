/**
 * Webhooks end to end (issue 35): the whole store (localnet, payment watcher, SQLite file, SMTP on loopback) and
 * a real HTTPS receiver on loopback (allowed by WEBHOOKS_ALLOW_PRIVATE=1, its test CA trusted through the
 * sender's explicit test-only setting) that verifies every delivery with `standardwebhooks`. A purchase paid on
 * the localnet produces order.paid (and stock.sold_out for the one-of-a-kind piece); shipping, an extra payment
 * and its refund produce theirs; an endpoint that leaves the address out gets none; a receiver answering 500
 * three times then 200 gets the same webhook-id four times; a 410 disables the endpoint.
 */
import { Connection, Keypair, PublicKey } from '@solana/web3.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderCreated, QuoteResponse } from '../../src/core/api';
import type {
  WebhookDeliveriesView,
  WebhookEndpointView,
  WebhookEndpointWithSecret,
} from '../../src/core/webhook-api';
import { demoRecipientKeypair } from '../support/demo-keypairs';
import { startStack, type Stack } from '../support/stack';
import { startReceiver, type Receiver } from '../support/webhook-receiver';
import { testResolver } from '../support/webhook-resolver';
import { ownerTransferIxs, pay, send, waitFor } from './payments-support';

const SHIPPING = {
  kind: 'international',
  fullName: 'Ada Lovelace',
  email: 'ada@example.com',
  address1: '12 Analytical Row',
  city: 'London',
  stateProvince: 'Greater London',
  postalCode: 'N1 9GU',
  country: 'United Kingdom',
};

describe('webhooks from a real store', () => {
  let stack: Stack;
  let receiver: Receiver;
  let cookie = '';
  const buyer = Keypair.generate();
  const vendor = demoRecipientKeypair('coopersglass');

  beforeAll(async () => {
    receiver = await startReceiver();
    stack = await startStack({
      slotMs: 50,
      finalizeLag: 4,
      env: { WEBHOOKS_ALLOW_PRIVATE: '1', SOLANA_RPC_BUDGET: '1000' },
      server: {
        webhooks: {
          resolve: testResolver(),
          extraCa: [receiver.ca],
          baseDelayMs: 30,
          maxDelayMs: 120,
          pollMs: 100,
        },
      },
    });
    await stack.fund(buyer.publicKey.toBase58(), { sol: 1, claim: 1_000_000 });
    await stack.fund(vendor.publicKey.toBase58(), { sol: 1 });
    const r = await fetch(`${stack.url}/api/seller/demo-session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: stack.url },
      body: JSON.stringify({ vendorId: 'coopersglass' }),
    });
    expect(r.status).toBe(200);
    cookie = /claim_seller=[^;]+/.exec(r.headers.get('set-cookie') ?? '')?.[0] ?? '';
  });
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  async function api<T>(method: string, path: string, body?: unknown, key?: string): Promise<T> {
    const res = await fetch(`${stack.url}${path}`, {
      method,
      headers: {
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
        origin: stack.url,
        cookie,
        ...(key ? { 'idempotency-key': key } : {}),
      },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const text = await res.text();
    expect(res.status, `${method} ${path}: ${text}`).toBeLessThan(300);
    return JSON.parse(text) as T;
  }

  async function endpoint(path: string, extra: Record<string, unknown> = {}): Promise<WebhookEndpointView> {
    const { endpoint: ep, secret } = await api<WebhookEndpointWithSecret>('POST', '/api/seller/webhooks', {
      url: `${receiver.origin}${path}`,
      ...extra,
    });
    receiver.secrets(path, secret);
    return ep;
  }

  const eventsAt = (path: string) => receiver.received(path).map((r) => r.event?.type);

  it('a purchase paid on the localnet, shipping, an extra payment and its refund: each event, verified', async () => {
    await endpoint('/all');
    await endpoint('/no-address', { events: ['order.paid'], includeShipping: false });
    await waitFor('price', async () => ((await fetch(`${stack.url}/api/price`)).ok ? true : undefined));
    const quote = await api<QuoteResponse>('POST', '/api/quotes', {
      items: [{ productId: 'lilac-tiptop', quantity: 1 }],
    });
    const order = await api<OrderCreated>(
      'POST',
      '/api/orders',
      { quote: quote.quote, shipping: SHIPPING, paymentMethod: 'wallet' },
      'hooks-1',
    );
    const connection = new Connection(stack.localnet.rpcUrl, 'confirmed');
    const payment = {
      from: buyer,
      recipientOwner: new PublicKey(order.recipient),
      mint: new PublicKey(order.mint),
      references: [new PublicKey(order.reference)],
      createRecipientAta: true,
    };
    const signature = await pay(connection, { ...payment, amount: BigInt(order.amountBaseUnits) });

    const paid = await waitFor(
      'order.paid at the receiver',
      () => receiver.received('/all').find((r) => r.event?.type === 'order.paid'),
      20_000,
    );
    expect(paid.verified).toBe(true);
    expect(paid.event?.version).toBe(1);
    const data = paid.event?.data as {
      order: { id: string; vendorId: string; shipping?: { name: string; city: string }; totalUSD: string };
      payment: { signature: string };
    };
    expect(data.order).toMatchObject({ id: order.orderId, vendorId: 'coopersglass' });
    expect(data.order.shipping).toMatchObject({ name: 'Ada Lovelace', city: 'London' });
    expect(data.payment.signature).toBe(signature);
    expect(paid.body).not.toContain('ada@example.com'); // the buyer's e-mail never rides along
    // The one-of-a-kind piece is sold out with this sale.
    const soldOut = await waitFor('stock.sold_out', () =>
      receiver.received('/all').find((r) => r.event?.type === 'stock.sold_out'),
    );
    expect(soldOut.event?.data).toMatchObject({ product: { id: 'lilac-tiptop', vendorId: 'coopersglass' } });
    // The endpoint that leaves the address out got order.paid without it.
    const [bare] = await receiver.waitFor('/no-address', 1);
    expect(bare?.verified).toBe(true);
    expect(bare?.body).not.toContain('Ada Lovelace');
    expect(bare?.body).not.toContain('Analytical');

    // Shipping.
    await api('POST', `/api/seller/orders/${order.orderId}/ship`, {
      trackingNumber: '1Z999AA10123456784',
      carrier: 'UPS',
    });
    const shipped = await waitFor('order.shipped', () =>
      receiver.received('/all').find((r) => r.event?.type === 'order.shipped'),
    );
    expect(shipped.event?.data).toMatchObject({
      shipment: { trackingNumber: '1Z999AA10123456784', carrier: 'UPS' },
      order: { status: 'shipped' },
    });

    // An extra payment opens an exception; refunding it records the refund and settles the exception.
    // Well above the dust threshold (1 % of the amount, at most 50 cents' worth).
    const extra = BigInt(order.amountBaseUnits) / 5n;
    await pay(connection, { ...payment, amount: extra });
    const opened = await waitFor('order.exception_opened', () =>
      receiver.received('/all').find((r) => r.event?.type === 'order.exception_opened'),
    );
    expect(opened.event?.data).toMatchObject({ exception: { kind: 'extra_payment' } });
    const refundSig = await send(connection, ownerTransferIxs(payment.mint, vendor, buyer.publicKey, extra), [
      vendor,
    ]);
    await api('POST', `/api/seller/orders/${order.orderId}/refund`, {
      exception: 'extra_payment',
      signature: refundSig,
    });
    const refunded = await waitFor('order.refund_recorded', () =>
      receiver.received('/all').find((r) => r.event?.type === 'order.refund_recorded'),
    );
    expect(refunded.event?.data).toMatchObject({
      refund: { signature: refundSig, exception: 'extra_payment' },
    });
    await waitFor('order.exception_settled', () =>
      receiver.received('/all').find((r) => r.event?.type === 'order.exception_settled'),
    );
    await api('POST', `/api/seller/orders/${order.orderId}/delivered`);
    await waitFor('order.delivered', () =>
      receiver.received('/all').find((r) => r.event?.type === 'order.delivered'),
    );

    expect(receiver.received('/all').every((r) => r.verified)).toBe(true);
    expect(eventsAt('/all')).toEqual([
      'order.paid',
      'stock.sold_out',
      'order.shipped',
      'order.exception_opened',
      'order.refund_recorded',
      'order.exception_settled',
      'order.delivered',
    ]);
    // One event, one delivery, one webhook-id each.
    const ids = receiver.received('/all').map((r) => r.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(eventsAt('/no-address')).toEqual(['order.paid']);
  });

  it('500 three times, then 200: the same webhook-id four times, every attempt kept', async () => {
    const ep = await endpoint('/flaky', { events: ['order.cancelled'] });
    receiver.answer('/flaky', 500, 500, 500);
    const { delivery } = await api<{ delivery: { id: string } }>(
      'POST',
      `/api/seller/webhooks/${ep.id}/test`,
    );
    const got = await receiver.waitFor('/flaky', 4, 20_000);
    expect(got.map((r) => r.id)).toEqual([delivery.id, delivery.id, delivery.id, delivery.id]);
    expect(got.map((r) => r.status)).toEqual([500, 500, 500, 200]);
    expect(got.every((r) => r.verified)).toBe(true);
    const log = await waitFor('delivered in the log', async () => {
      const l = await api<WebhookDeliveriesView>('GET', `/api/seller/webhooks/${ep.id}/deliveries`);
      return l.deliveries[0]?.state === 'delivered' ? l : undefined;
    });
    expect(log.deliveries[0]).toMatchObject({ attempts: 4, lastStatus: 200, lastError: null });
    const attempts = await stack.server.store.db
      .selectFrom('webhook_attempts')
      .select('status')
      .where('delivery_id', '=', delivery.id)
      .orderBy('at')
      .execute();
    expect(attempts.map((a) => a.status)).toEqual([500, 500, 500, 200]);
  });

  it('410 Gone disables the endpoint', async () => {
    const ep = await endpoint('/gone');
    receiver.answer('/gone', 410);
    const { delivery } = await api<{ delivery: { id: string } }>(
      'POST',
      `/api/seller/webhooks/${ep.id}/test`,
    );
    await receiver.waitFor('/gone', 1);
    const after = await waitFor('disabled', async () => {
      const list = await api<{ endpoints: WebhookEndpointView[] }>('GET', '/api/seller/webhooks');
      const mine = list.endpoints.find((e) => e.id === ep.id);
      return mine?.state === 'disabled' ? mine : undefined;
    });
    expect(after.stateReason).toBe('gone');
    const log = await api<WebhookDeliveriesView>('GET', `/api/seller/webhooks/${ep.id}/deliveries`);
    expect(log.deliveries[0]).toMatchObject({
      id: delivery.id,
      state: 'failed',
      attempts: 1,
      lastStatus: 410,
    });
    // Nothing more is sent to it.
    await api('POST', `/api/seller/webhooks/${ep.id}/test`);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received('/gone')).toHaveLength(1);
  });
});
