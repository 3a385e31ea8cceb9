import { describe, expect, it } from 'vitest';
import type {
  AnyOrderCreated,
  AnyQuoteResponse,
  OrderPublic,
  OrderRequest,
  ShippingUS,
} from '../../../core/api';
import { ApiRequestError } from '../../lib/call';
import { CONFIRM_POLL_MS, CONFIRM_WAIT_MS, QrConfirmation, type ConfirmInputs } from './confirm';
import type { StoredQrOrder } from './order-store';
import type { QuoteState } from './useQuote';

const ID = '0123abcd-0000-4000-8000-000000000001';
const TOKEN = '0123456789abcdef0123456789abcdef';
const shipping: ShippingUS = {
  kind: 'us',
  fullName: 'Ada Lovelace',
  email: 'ada@example.com',
  address1: '1 Main St',
  city: 'Springfield',
  usState: 'IL',
  zip: '62701',
};

type Mail = OrderPublic['emails'][number];
const mail = (recipient: 'seller' | 'buyer', state: Mail['state'], attempts = 1): Mail => ({
  kind: 'order_confirmation',
  recipient,
  state,
  attempts,
});

function snapshot(
  status: OrderPublic['status'],
  emails: Mail[] = [],
  amount: string | null = '1.000000',
): OrderPublic {
  return {
    orderId: ID,
    status,
    paymentMethod: 'qr',
    reference: 'Ref',
    amount,
    amountBaseUnits: amount === null ? null : '1000000',
    totalCents: 100,
    expiresAt: '2026-01-01T00:15:00.000Z',
    payments: [],
    history: [],
    shippingDetails: 'given',
    emails,
  };
}

function stored(over: Partial<StoredQrOrder> = {}): StoredQrOrder {
  return {
    orderId: ID,
    productId: 'p1',
    orderUrl: `https://shop.example/order/${TOKEN}`,
    solanaPayUrl: 'solana:Seller?amount=1',
    amount: '1.000000',
    quantity: 1,
    quote: 'q1',
    expiresAt: '2026-01-01T00:15:00.000Z',
    detailsSent: false,
    confirmed: false,
    ...over,
  };
}

const unpricedQuote: QuoteState = {
  status: 'ready',
  key: 'k',
  quote: {
    quote: 'uq1',
    items: [],
    totalCents: 100,
    priceUsd: null,
    amountBaseUnits: null,
    amount: null,
    reference: 'Ref',
    recipient: 'Seller',
    mint: 'Mint',
    solanaPayUrl: null,
    expiresAt: '2026-01-01T00:05:00.000Z',
  } as AnyQuoteResponse,
};

/** A fake shop on a fake clock: the confirmation answers `first`, then each poll the next of `polls`. */
function harness(opts: { first?: OrderPublic | Error; polls?: OrderPublic[]; create?: Error } = {}) {
  let t = 0;
  let keys = 0;
  const log: string[] = [];
  const records: StoredQrOrder[] = [];
  const creates: { req: OrderRequest; key: string }[] = [];
  const polls = [...(opts.polls ?? [])];
  const flow = new QrConfirmation({
    createOrder: async (req, key) => {
      creates.push({ req, key });
      log.push('create');
      if (opts.create) throw opts.create;
      const created: AnyOrderCreated = {
        orderId: ID,
        reference: 'Ref',
        solanaPayUrl: null,
        amount: null,
        amountBaseUnits: null,
        recipient: 'Seller',
        mint: 'Mint',
        expiresAt: '2026-01-01T00:15:00.000Z',
        orderUrl: `https://shop.example/order/${TOKEN}`,
      };
      return created;
    },
    requestConfirmation: async (orderId, pageToken, s) => {
      log.push(`confirm ${orderId} ${pageToken} ${s.fullName}`);
      const first = opts.first ?? snapshot('paid', [mail('seller', 'sent'), mail('buyer', 'sent')]);
      if (first instanceof Error) throw first;
      return first;
    },
    getOrder: async () => {
      log.push('poll');
      return polls.length > 1 ? polls.shift()! : polls[0]!;
    },
    newKey: () => `key${++keys}`,
    now: () => t,
    sleep: async (ms) => {
      t += ms;
    },
    record: (o) => {
      records.push(o);
      log.push(`record details=${o.detailsSent} confirmed=${o.confirmed}`);
    },
    detailsAttached: () => log.push('attached'),
  });
  const inputs = (over: Partial<ConfirmInputs> = {}): ConfirmInputs => ({
    order: stored(),
    quote: { status: 'idle' },
    quantity: 1,
    productId: 'p1',
    shipping,
    referrer: undefined,
    ...over,
  });
  return { flow, inputs, log, records, creates, elapsed: () => t };
}

describe('QrConfirmation: a press of Send Order Confirmation', () => {
  it('no record and no unpriced quote: not ready, nothing sent', async () => {
    for (const over of [
      { quote: { status: 'loading' } as QuoteState },
      { quote: { ...unpricedQuote, quote: { ...unpricedQuote.quote, amount: '1.000000' } } as QuoteState },
      { quote: unpricedQuote, quantity: null },
    ]) {
      const h = harness();
      expect(await h.flow.send(h.inputs({ order: null, ...over }))).toEqual({ kind: 'not_ready' });
      expect(h.log).toEqual([]);
    }
  });

  it('an unpriced quote: the order is made with the details at once, then the confirmations are awaited', async () => {
    const h = harness();
    const out = await h.flow.send(
      h.inputs({ order: null, quote: unpricedQuote, quantity: 3, referrer: 'ref-code' }),
    );
    expect(out).toEqual({ kind: 'sent' });
    expect(h.creates).toEqual([
      { req: { quote: 'uq1', shipping, paymentMethod: 'qr', referrer: 'ref-code' }, key: 'key1' },
    ]);
    expect(h.records[0]).toMatchObject({ orderId: ID, quantity: 3, solanaPayUrl: null, detailsSent: true });
    expect(h.log).toEqual([
      'create',
      'record details=true confirmed=false',
      `confirm ${ID} ${TOKEN} Ada Lovelace`,
      'attached',
      'record details=true confirmed=true',
    ]);
  });

  it('a retry of the same unpriced order replays its key; other details or forget() make a fresh one', async () => {
    const h = harness({ create: new ApiRequestError(0, 'network', 'offline') });
    const i = h.inputs({ order: null, quote: unpricedQuote });
    expect(await h.flow.send(i)).toEqual({ kind: 'failed' });
    await h.flow.send(i);
    await h.flow.send({ ...i, shipping: { ...shipping, city: 'Chicago' } });
    h.flow.forget();
    await h.flow.send({ ...i, shipping: { ...shipping, city: 'Chicago' } });
    expect(h.creates.map((c) => c.key)).toEqual(['key1', 'key1', 'key2', 'key3']);
  });

  it('the details attach to the record with its page token; unpaid: pay next, nothing awaited', async () => {
    for (const status of ['awaiting_payment', 'expired'] as const) {
      const h = harness({ first: snapshot(status) });
      expect(await h.flow.send(h.inputs())).toEqual({ kind: 'pay_next' });
      expect(h.log).toEqual([
        `confirm ${ID} ${TOKEN} Ada Lovelace`,
        'record details=true confirmed=false',
        'attached',
      ]);
    }
  });

  it('a record whose details were already in is not recorded again before waiting', async () => {
    const h = harness({ first: snapshot('awaiting_payment') });
    expect(await h.flow.send(h.inputs({ order: stored({ detailsSent: true }) }))).toEqual({
      kind: 'pay_next',
    });
    expect(h.log).toEqual([`confirm ${ID} ${TOKEN} Ada Lovelace`, 'attached']);
  });

  it('a record without a page link sends an empty token (the server refuses it)', async () => {
    const h = harness({ first: snapshot('awaiting_payment') });
    await h.flow.send(h.inputs({ order: stored({ orderUrl: null }) }));
    expect(h.log[0]).toBe(`confirm ${ID}  Ada Lovelace`);
  });

  it('paid: waits for both e-mails, polling every second, then sent (the record is confirmed)', async () => {
    const pending = snapshot('paid', [mail('seller', 'pending', 0), mail('buyer', 'pending', 0)]);
    const h = harness({
      first: pending,
      polls: [pending, snapshot('paid', [mail('seller', 'sent'), mail('buyer', 'sent')])],
    });
    expect(await h.flow.send(h.inputs())).toEqual({ kind: 'sent' });
    expect(h.log.filter((l) => l === 'poll')).toHaveLength(2);
    expect(h.elapsed()).toBe(2 * CONFIRM_POLL_MS);
    expect(h.records.at(-1)).toMatchObject({ detailsSent: true, confirmed: true });
  });

  it('an unpriced order (no amount) waits for the e-mails even while awaiting payment', async () => {
    const h = harness({
      first: snapshot('awaiting_payment', [mail('seller', 'sent'), mail('buyer', 'sent')], null),
    });
    expect(await h.flow.send(h.inputs({ order: stored({ solanaPayUrl: null, amount: null }) }))).toEqual({
      kind: 'sent',
    });
  });

  it('one e-mail failed for good: failed at once, the record stays unconfirmed', async () => {
    const h = harness({ first: snapshot('paid', [mail('seller', 'sent'), mail('buyer', 'failed', 5)]) });
    expect(await h.flow.send(h.inputs())).toEqual({ kind: 'failed' });
    expect(h.records.some((r) => r.confirmed)).toBe(false);
  });

  it('a retrying e-mail failed again since the press: failed', async () => {
    const before = snapshot('paid', [mail('seller', 'sent'), mail('buyer', 'retrying', 2)]);
    const h = harness({
      first: before,
      polls: [snapshot('paid', [mail('seller', 'sent'), mail('buyer', 'retrying', 3)])],
    });
    expect(await h.flow.send(h.inputs())).toEqual({ kind: 'failed' });
    expect(h.log.filter((l) => l === 'poll')).toHaveLength(1);
  });

  it('still pending after 30 s: failed (the server keeps retrying)', async () => {
    const pending = snapshot('paid', [mail('seller', 'pending', 0)]);
    const h = harness({ first: pending, polls: [pending] });
    expect(await h.flow.send(h.inputs())).toEqual({ kind: 'failed' });
    expect(h.elapsed()).toBe(CONFIRM_WAIT_MS);
  });

  it("a refusal by the shop (4xx) is its own sentence; a server or network failure is 'failed'", async () => {
    const refused = harness({
      first: new ApiRequestError(409, 'details_already_sent', 'The details were already sent.'),
    });
    expect(await refused.flow.send(refused.inputs())).toEqual({
      kind: 'refused',
      message: 'The details were already sent.',
    });
    expect(refused.log).not.toContain('attached');
    for (const err of [
      new ApiRequestError(500, 'http_error', 'boom'),
      new ApiRequestError(0, 'network', 'x'),
      new Error('x'),
    ]) {
      const h = harness({ first: err });
      expect(await h.flow.send(h.inputs())).toEqual({ kind: 'failed' });
    }
  });
});
