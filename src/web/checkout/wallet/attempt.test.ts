import { describe, expect, it } from 'vitest';
import type {
  OrderCreated,
  OrderPublic,
  OrderRequest,
  QuoteRequest,
  QuoteResponse,
  Shipping,
} from '../../../core/api';
import { ApiRequestError } from '../../lib/call';
import { OrderAttempt, fingerprintOf, type AttemptInputs, type Payable } from './attempt';
import { CheckoutStop, ShortfallStop } from './stops';

const MINT = 'Mint1111111111111111111111111111111111111111';
const shipping: Shipping = {
  kind: 'us',
  fullName: 'Ada Lovelace',
  email: 'ada@example.com',
  address1: '1 Main St',
  city: 'Springfield',
  usState: 'IL',
  zip: '62701',
};

/** A fake store on a fake clock: counts quotes and orders, answers the order's status as told. */
function harness() {
  let t = Date.parse('2026-01-01T00:00:00Z');
  let n = 0;
  const calls = { quotes: [] as QuoteRequest[], orders: [] as { req: OrderRequest; key: string }[], gets: 0 };
  const failNext: { quote?: unknown; order?: unknown } = {};
  let status: OrderPublic['status'] = 'awaiting_payment';
  let mint = MINT;
  const quote = (): QuoteResponse => ({
    quote: `q${++n}`,
    items: [],
    totalCents: 100,
    priceUsd: '1',
    amountBaseUnits: '1000000',
    amount: '1.000000',
    reference: `ref${n}`,
    recipient: 'Seller',
    mint,
    solanaPayUrl: 'solana:x',
    expiresAt: new Date(t + 120_000).toISOString(),
  });
  let keys = 0;
  const attempt = new OrderAttempt({
    requestQuote: async (req) => {
      calls.quotes.push(req);
      if (failNext.quote) {
        const e = failNext.quote;
        delete failNext.quote;
        throw e;
      }
      return quote();
    },
    createOrder: async (req, key) => {
      calls.orders.push({ req, key });
      if (failNext.order) {
        const e = failNext.order;
        delete failNext.order;
        throw e;
      }
      const o: OrderCreated = {
        orderId: `order-for-${key}`,
        reference: 'ref',
        solanaPayUrl: 'solana:x',
        amount: '1.000000',
        amountBaseUnits: '1000000',
        recipient: 'Seller',
        mint,
        expiresAt: new Date(t + 15 * 60_000).toISOString(),
        orderUrl: '/order/x',
      };
      return o;
    },
    getOrder: async (id) => {
      calls.gets++;
      return { orderId: id, status } as OrderPublic;
    },
    newKey: () => `key${++keys}`,
    now: () => t,
  });
  const checked: Payable[] = [];
  const inputs = (over: Partial<AttemptInputs> = {}): AttemptInputs => ({
    productId: 'product9',
    variantId: undefined,
    quantity: 1,
    shipping,
    mint: MINT,
    check: async (what) => {
      checked.push(what);
    },
    ...over,
  });
  return {
    attempt,
    calls,
    checked,
    inputs,
    failNext,
    advance: (ms: number) => (t += ms),
    setStatus: (s: OrderPublic['status']) => (status = s),
    setMint: (m: string) => (mint = m),
  };
}

const WALLET_ADDRESS = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';

describe('the wallet order attempt', () => {
  it('quotes, checks the wallet against the quote, then records the order with one key', async () => {
    const h = harness();
    const order = await h.attempt.ensure(h.inputs({ referrer: 'friend' }));
    expect(h.calls.quotes).toEqual([{ items: [{ productId: 'product9', quantity: 1 }] }]);
    expect(h.checked.map((c) => c.amountBaseUnits)).toEqual(['1000000']);
    expect(h.calls.orders).toEqual([
      { req: { quote: 'q1', shipping, paymentMethod: 'wallet', referrer: 'friend' }, key: 'key1' },
    ]);
    expect(order.orderId).toBe('order-for-key1');
    expect(h.attempt.current).toMatchObject({ fingerprint: fingerprintOf(h.inputs()), key: 'key1', order });
  });

  it('sends the connected wallet with the quote (a drop reads its balance while it signs)', async () => {
    const h = harness();
    await h.attempt.ensure(h.inputs({ wallet: WALLET_ADDRESS }));
    expect(h.calls.quotes).toEqual([
      { items: [{ productId: 'product9', quantity: 1 }], wallet: WALLET_ADDRESS },
    ]);
  });

  it("the wallet's hold proof is asked once per quote, after the checks, and sent with the order; a decline makes no order", async () => {
    const h = harness();
    const signed: string[] = [];
    let decline = true;
    const prove = async (reference: string) => {
      signed.push(reference);
      if (decline) throw Object.assign(new Error('User rejected the request.'), { code: 4001 });
      return { address: 'Buyer', signature: `sig-of-${reference}` };
    };
    await expect(h.attempt.ensure(h.inputs({ prove }))).rejects.toThrow('User rejected');
    expect(h.checked).toHaveLength(1); // the balance checks came first
    expect(h.calls.orders).toEqual([]);
    decline = false;
    h.failNext.order = new ApiRequestError(0, 'network', 'The store could not be reached.');
    await expect(h.attempt.ensure(h.inputs({ prove }))).rejects.toThrow('could not be reached');
    await h.attempt.ensure(h.inputs({ prove }));
    // Signed for the one quote: asked again after the decline, not again for the replay.
    expect(signed).toEqual(['ref1', 'ref1']);
    expect(h.calls.orders.map((o) => [o.key, o.req.payer])).toEqual([
      ['key1', { address: 'Buyer', signature: 'sig-of-ref1' }],
      ['key1', { address: 'Buyer', signature: 'sig-of-ref1' }],
    ]);
  });

  it('a network failure keeps the key and the quote: the retry replays the same request', async () => {
    const h = harness();
    h.failNext.order = new ApiRequestError(0, 'network', 'The store could not be reached.');
    await expect(h.attempt.ensure(h.inputs())).rejects.toThrow('could not be reached');
    await h.attempt.ensure(h.inputs());
    expect(h.calls.quotes).toHaveLength(1);
    expect(h.calls.orders.map((o) => [o.key, o.req.quote])).toEqual([
      ['key1', 'q1'],
      ['key1', 'q1'],
    ]);
  });

  it('a refusal by the store drops the attempt: the next Buy Now starts afresh', async () => {
    const h = harness();
    h.failNext.order = new ApiRequestError(409, 'out_of_stock', 'Sold out');
    await expect(h.attempt.ensure(h.inputs())).rejects.toThrow('Sold out');
    expect(h.attempt.current).toBeNull();
    await h.attempt.ensure(h.inputs());
    expect(h.calls.orders.map((o) => [o.key, o.req.quote])).toEqual([
      ['key1', 'q1'],
      ['key2', 'q2'],
    ]);
  });

  it('a wallet stop keeps the key but drops the quote (re-quoted next time); no order is made', async () => {
    for (const stop of [new ShortfallStop({ kind: 'claim', have: 1n, need: 2n }), new CheckoutStop('x')]) {
      const h = harness();
      await expect(h.attempt.ensure(h.inputs({ check: () => Promise.reject(stop) }))).rejects.toBe(stop);
      expect(h.calls.orders).toHaveLength(0);
      expect(h.attempt.current).toMatchObject({ key: 'key1' });
      expect(h.attempt.current?.quote).toBeUndefined();
      await h.attempt.ensure(h.inputs());
      expect(h.calls.quotes).toHaveLength(2);
      expect(h.calls.orders.map((o) => [o.key, o.req.quote])).toEqual([['key1', 'q2']]);
    }
  });

  it('the same inputs pay the same order while the server says it awaits payment (checked again)', async () => {
    const h = harness();
    const first = await h.attempt.ensure(h.inputs());
    h.advance(60_000);
    const again = await h.attempt.ensure(h.inputs());
    expect(again).toBe(first);
    expect(h.calls.gets).toBe(1);
    expect(h.calls.quotes).toHaveLength(1);
    expect(h.calls.orders).toHaveLength(1);
    expect(h.checked).toHaveLength(2);
  });

  it('a kept order that is no longer awaiting payment, or about to expire, gives a fresh attempt', async () => {
    const h = harness();
    await h.attempt.ensure(h.inputs());
    h.setStatus('expired');
    await h.attempt.ensure(h.inputs());
    expect(h.calls.orders.map((o) => o.key)).toEqual(['key1', 'key2']);
    h.setStatus('awaiting_payment');
    h.advance(15 * 60_000 - 59_000); // 59 s left on order 2: not asked, not reused
    const gets = h.calls.gets;
    await h.attempt.ensure(h.inputs());
    expect(h.calls.gets).toBe(gets);
    expect(h.calls.orders.map((o) => o.key)).toEqual(['key1', 'key2', 'key3']);
  });

  it('other inputs (quantity, shipping, variant) start a fresh attempt', async () => {
    const h = harness();
    await h.attempt.ensure(h.inputs());
    await h.attempt.ensure(h.inputs({ quantity: 2 }));
    await h.attempt.ensure(h.inputs({ quantity: 2, shipping: { ...shipping, zip: '62702' } }));
    await h.attempt.ensure(h.inputs({ quantity: 2, variantId: 'zips' }));
    expect(h.calls.orders.map((o) => o.key)).toEqual(['key1', 'key2', 'key3', 'key4']);
    expect(h.calls.quotes.at(-1)).toEqual({
      items: [{ productId: 'product9', variantId: 'zips', quantity: 2 }],
    });
  });

  it('a kept quote with under 30 s left is not used: new key and quote', async () => {
    const h = harness();
    h.failNext.order = new ApiRequestError(0, 'network', 'down');
    await expect(h.attempt.ensure(h.inputs())).rejects.toThrow();
    h.advance(91_000); // the quote had 120 s: 29 s left
    await h.attempt.ensure(h.inputs());
    expect(h.calls.orders.map((o) => [o.key, o.req.quote])).toEqual([
      ['key1', 'q1'],
      ['key2', 'q2'],
    ]);
  });

  it('an order naming another mint is refused', async () => {
    const h = harness();
    h.setMint('OtherMint');
    await expect(h.attempt.ensure(h.inputs())).rejects.toThrow('different token mint');
  });

  it('paid() and reset() forget the attempt: the same inputs make a new order', async () => {
    const h = harness();
    await h.attempt.ensure(h.inputs());
    h.attempt.paid();
    expect(h.attempt.current).toBeNull();
    await h.attempt.ensure(h.inputs());
    h.attempt.reset();
    await h.attempt.ensure(h.inputs());
    expect(h.calls.orders.map((o) => o.key)).toEqual(['key1', 'key2', 'key3']);
    expect(h.calls.gets).toBe(0);
  });

  it('resumes a kept attempt after a reload (initial state) and pays its order', async () => {
    const h = harness();
    const order = await h.attempt.ensure(h.inputs());
    const resumed = new OrderAttempt(
      {
        requestQuote: () => Promise.reject(new Error('not asked')),
        createOrder: () => Promise.reject(new Error('not asked')),
        getOrder: async (id) => ({ orderId: id, status: 'awaiting_payment' }) as OrderPublic,
        newKey: () => 'never',
        now: () => Date.parse(order.expiresAt) - 120_000,
      },
      { fingerprint: fingerprintOf(h.inputs()), key: 'key1', order },
    );
    expect(await resumed.ensure(h.inputs())).toBe(order);
  });
});
