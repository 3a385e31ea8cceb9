import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  reservedText,
  assertInStock,
  availableOf,
  isSoldOut,
  isStockCount,
  OutOfStockError,
  parseStockTarget,
  saleOutcome,
  shortfall,
  stockKey,
  stockText,
  holdsStock,
  holdLimitRefusal,
  unavailableText,
  formatTimeUtc,
  type StockKey,
} from './stock';

const fixed =
  (levels: Record<string, number>) =>
  (k: StockKey): number =>
    levels[stockKey(k)] ?? 0;

describe('stock rules', () => {
  it('available is on hand minus reserved, never below zero', () => {
    expect(availableOf({ onHand: 5, reserved: 2 })).toBe(3);
    expect(availableOf({ onHand: 1, reserved: 1 })).toBe(0);
    // The seller lowered the stock below what open orders hold: nothing to sell, not a negative count.
    expect(availableOf({ onHand: 1, reserved: 3 })).toBe(0);
  });

  it.each<[number, string | undefined]>([
    [0, 'Sold out'],
    [-2, 'Sold out'],
    [1, 'Only 1 left'],
    [3, 'Only 3 left'],
    [4, undefined],
    [100, undefined],
  ])('stock text for %i', (n, text) => {
    expect(stockText(n)).toBe(text);
  });

  it('finds the first line asking for more than is available, and adds up repeated lines', () => {
    const available = fixed({ 'a/': 1, 'b/zips': 2 });
    expect(shortfall([{ productId: 'a', name: 'A', quantity: 1 }], available)).toBeUndefined();
    expect(shortfall([{ productId: 'a', name: 'A', quantity: 2 }], available)).toEqual({
      line: { productId: 'a', name: 'A', quantity: 2 },
      available: 1,
    });
    const twice = [
      { productId: 'b', variantId: 'zips', name: 'B', quantity: 1 },
      { productId: 'b', variantId: 'zips', name: 'B', quantity: 2 },
    ];
    expect(shortfall(twice, available)?.available).toBe(2);
    // Another variant of the same product is another stock line.
    expect(
      shortfall([{ productId: 'b', variantId: '18ths', name: 'B', quantity: 1 }], available)?.available,
    ).toBe(0);
  });

  it('refuses with a domain error saying "Sold out" or "Only N left"', () => {
    const available = fixed({ 'a/': 0, 'b/': 2 });
    expect(() => assertInStock([{ productId: 'a', name: 'Lilac TipTop', quantity: 1 }], available)).toThrow(
      'Sold out: Lilac TipTop is no longer available.',
    );
    let err: unknown;
    try {
      assertInStock([{ productId: 'b', name: 'Garlic', quantity: 3 }], available);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(OutOfStockError);
    expect((err as OutOfStockError).message).toBe('Only 2 left of Garlic.');
    expect((err as OutOfStockError).available).toBe(2);
    expect(() => assertInStock([{ productId: 'b', name: 'Garlic', quantity: 2 }], available)).not.toThrow();
  });

  it('a sale consumes a held reservation; after release it sells what is left, or the order is oversold', () => {
    expect(saleOutcome(true, 0, 1)).toBe('sold_reserved');
    expect(saleOutcome(false, 1, 1)).toBe('sold_unreserved');
    expect(saleOutcome(false, 0, 1)).toBe('oversold');
    expect(saleOutcome(false, 2, 3)).toBe('oversold');
  });

  it('never sells more than the stock (property: any sequence of reserve/release/sell)', () => {
    type Op = { kind: 'reserve' | 'release' | 'sell'; n: number };
    const opArb: fc.Arbitrary<Op> = fc.record({
      kind: fc.constantFrom('reserve' as const, 'release' as const, 'sell' as const),
      n: fc.integer({ min: 1, max: 3 }),
    });
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 5 }), fc.array(opArb, { maxLength: 30 }), (start, ops) => {
        let onHand = start;
        let reserved = 0;
        let sold = 0;
        const held: number[] = [];
        for (const op of ops) {
          if (op.kind === 'reserve') {
            if (
              shortfall([{ productId: 'p', name: 'P', quantity: op.n }], () =>
                availableOf({ onHand, reserved }),
              )
            )
              continue;
            reserved += op.n;
            held.push(op.n);
          } else {
            const n = held.shift();
            if (n === undefined) continue;
            reserved -= n;
            if (op.kind === 'sell') {
              expect(saleOutcome(true, availableOf({ onHand, reserved }), n)).toBe('sold_reserved');
              onHand -= n;
              sold += n;
            }
          }
          expect(reserved).toBeGreaterThanOrEqual(0);
          expect(onHand).toBeGreaterThanOrEqual(reserved);
        }
        expect(sold).toBeLessThanOrEqual(start);
      }),
    );
  });

  it('sold out is derived: every stock line of the product has nothing available; unknown is not sold out', () => {
    const bath = { id: 'bathsalts', variants: [{ id: '18ths' }, { id: 'zips' }] };
    expect(isSoldOut(bath, (k) => ({ 'bathsalts/18ths': 0, 'bathsalts/zips': 0 })[stockKey(k)])).toBe(true);
    expect(isSoldOut(bath, (k) => ({ 'bathsalts/18ths': 0, 'bathsalts/zips': 1 })[stockKey(k)])).toBe(false);
    expect(isSoldOut({ id: 'a' }, () => 0)).toBe(true);
    expect(isSoldOut({ id: 'a' }, () => undefined)).toBe(false);
  });

  it('parses <productId>[:<variantId>] and validates counts', () => {
    expect(parseStockTarget('bathsalts-flower:zips')).toEqual({
      productId: 'bathsalts-flower',
      variantId: 'zips',
    });
    expect(parseStockTarget('lilac-tiptop')).toEqual({ productId: 'lilac-tiptop' });
    for (const bad of ['', ':zips', 'Lilac', 'a:', 'a:b:c', 'a b', '../x'])
      expect(parseStockTarget(bad)).toBeUndefined();
    expect(isStockCount(0)).toBe(true);
    expect(isStockCount(12)).toBe(true);
    for (const bad of [-1, 1.5, Number.NaN, 2_000_000, '3']) expect(isStockCount(bad)).toBe(false);
  });
});

describe('holds on intent', () => {
  it('a view holds nothing; details and Buy Now hold; a payment sells, expiry releases', () => {
    expect(holdsStock('view')).toBe(false);
    expect(holdsStock('details')).toBe(false);
    expect(holdsStock('buy_now')).toBe(true);
    expect(holdsStock('payment')).toBe(false);
    expect(holdsStock('expiry')).toBe(false);
  });

  it('a payment of a record that never held: sold while the units are there, else oversold', () => {
    expect(saleOutcome(false, 1, 1)).toBe('sold_unreserved');
    expect(saleOutcome(false, 0, 1)).toBe('oversold');
    expect(saleOutcome(false, 2, 3)).toBe('oversold');
    expect(saleOutcome(true, 0, 1)).toBe('sold_reserved');
  });

  it('the per-client cap: up to the limit, then a plain 429 refusal naming when one comes back', () => {
    expect(holdLimitRefusal(0, 5, 5, undefined)).toBeUndefined();
    expect(holdLimitRefusal(4, 1, 5, undefined)).toBeUndefined();
    expect(holdLimitRefusal(100, 1, 0, undefined)).toBeUndefined(); // 0: no cap
    const r = holdLimitRefusal(5, 1, 5, '2026-11-24T16:35:00.000Z');
    expect(r?.kind).toBe('rate_limited');
    expect(r?.code).toBe('hold_limit');
    expect(r?.message).toBe(
      'You already have 5 pieces reserved and unpaid, and one buyer can reserve at most 5 at once. Pay for them or wait before reserving more. The first comes back at 16:35 UTC if unpaid.',
    );
    expect(holdLimitRefusal(1, 5, 5, undefined)?.message).toMatch(/^You already have 1 piece reserved/);
  });

  it('nothing available: "Reserved" while unpaid holds may come back, "Sold out" when sold', () => {
    expect(unavailableText({ available: 0, held: 1, heldUntil: '2026-11-24T16:35:00Z' })).toBe('Reserved');
    expect(unavailableText({ available: 0 })).toBe('Sold out');
    expect(unavailableText({ available: 0, held: 0 })).toBe('Sold out');
    expect(unavailableText({ available: 2, held: 1 })).toBe('Only 2 left');
    expect(formatTimeUtc('2026-11-24T09:05:59Z')).toBe('09:05 UTC');
  });
});

describe('reservedText', () => {
  it('"Reserved: may come back in N minutes", N rounded up to the first hold\'s deadline, at least 1', () => {
    const now = Date.parse('2026-11-24T16:30:00Z');
    expect(reservedText('2026-11-24T16:35:00Z', now)).toBe('Reserved: may come back in 5 minutes');
    expect(reservedText('2026-11-24T16:30:01Z', now)).toBe('Reserved: may come back in 1 minute');
    expect(reservedText('2026-11-24T16:29:00Z', now)).toBe('Reserved: may come back in 1 minute');
    expect(reservedText('2026-11-24T16:34:01Z', now)).toBe('Reserved: may come back in 5 minutes');
  });
});
