import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  FULLY_PAID,
  HAS_PAYMENT,
  ORDER_STATUSES,
  PAYMENT_ROLES,
  TAKES_EXTRAS,
  transition,
  type OrderEvent,
  type OrderStatus,
  type PaymentRole,
} from './order-status';

const pay = (
  received: bigint,
  expected: bigint,
  o: {
    finalized?: boolean;
    late?: boolean;
    before?: bigint;
    stockLost?: boolean;
    belowDust?: boolean;
    closed?: boolean;
  } = {},
): OrderEvent => ({
  ...(o.stockLost !== undefined ? { stockLost: o.stockLost } : {}),
  ...(o.belowDust !== undefined ? { belowDust: o.belowDust } : {}),
  ...(o.closed !== undefined ? { closed: o.closed } : {}),
  type: 'payment',
  receivedBaseUnits: received,
  expectedBaseUnits: expected,
  paidBeforeBaseUnits: o.before ?? 0n,
  finalized: o.finalized ?? false,
  late: o.late ?? false,
});

describe('transition', () => {
  it.each<[OrderStatus, OrderEvent, OrderStatus, PaymentRole]>([
    ['awaiting_payment', pay(100n, 100n), 'paid', 'payment'],
    ['awaiting_payment', pay(101n, 100n), 'paid', 'payment'],
    ['awaiting_payment', pay(100n, 100n, { finalized: true }), 'final', 'payment'],
    // Short while the quote is open: recorded as partial, the order stays payable (dust cannot block it).
    ['awaiting_payment', pay(99n, 100n), 'awaiting_payment', 'partial'],
    ['awaiting_payment', pay(1n, 100n), 'awaiting_payment', 'partial'],
    ['awaiting_payment', pay(99n, 100n, { late: true }), 'underpaid', 'partial'],
    ['awaiting_payment', pay(100n, 100n, { late: true }), 'paid_late', 'payment'],
    // Split payments add up.
    ['awaiting_payment', pay(50n, 100n, { before: 50n }), 'paid', 'payment'],
    ['awaiting_payment', pay(49n, 100n, { before: 50n }), 'awaiting_payment', 'partial'],
    ['awaiting_payment', pay(60n, 100n, { before: 50n, late: true }), 'paid_late', 'payment'],
    // Time is the chain's: a block before the expiry pays on time even when the order was already expired.
    ['expired', pay(100n, 100n), 'paid', 'payment'],
    ['expired', pay(100n, 100n, { late: true }), 'paid_late', 'payment'],
    ['expired', pay(1n, 100n, { late: true }), 'underpaid', 'partial'],
    // Dust (the sum stays below the dust threshold) never makes an exception.
    ['expired', pay(1n, 100n, { late: true, belowDust: true }), 'expired', 'partial'],
    ['awaiting_payment', pay(1n, 100n, { late: true, belowDust: true }), 'expired', 'partial'],
    ['awaiting_payment', pay(1n, 100n, { belowDust: true }), 'awaiting_payment', 'partial'],
    // A top-up completes an underpaid order: late (after expiry) → paid_late; block before expiry → paid.
    ['underpaid', pay(50n, 100n, { before: 50n, late: true }), 'paid_late', 'top_up'],
    ['underpaid', pay(50n, 100n, { before: 50n }), 'paid', 'top_up'],
    ['underpaid', pay(10n, 100n, { before: 50n, late: true }), 'underpaid', 'partial'],
    // Anything after the full amount is an extra payment; the status does not move.
    ['paid', pay(100n, 100n, { before: 100n }), 'paid', 'extra'],
    ['final', pay(1n, 100n, { before: 100n }), 'final', 'extra'],
    ['paid_late', pay(100n, 100n, { before: 120n, late: true }), 'paid_late', 'extra'],
    ['paid', pay(5n, 100n), 'paid', 'extra'], // a status fully paid before the ledger existed
    ['shipped', pay(5n, 100n, { before: 100n }), 'shipped', 'extra'],
    ['delivered', pay(5n, 100n, { before: 100n, late: true }), 'delivered', 'extra'],
    // The reservation lapsed and the stock went to someone else: the full amount makes the order oversold.
    ['expired', pay(100n, 100n, { late: true, stockLost: true }), 'oversold', 'payment'],
    ['awaiting_payment', pay(100n, 100n, { late: true, stockLost: true }), 'oversold', 'payment'],
    ['underpaid', pay(50n, 100n, { before: 50n, late: true, stockLost: true }), 'oversold', 'top_up'],
    // A short sum stays short whatever the stock; and oversold records later transfers as extras.
    ['expired', pay(10n, 100n, { stockLost: true }), 'underpaid', 'partial'],
    ['oversold', pay(100n, 100n, { before: 100n }), 'oversold', 'extra'],
  ])('payment %# from %s', (from, event, to, role) => {
    expect(transition(from, event)).toEqual({ ok: true, next: to, role });
  });

  it.each<[OrderStatus, OrderEvent, OrderStatus]>([
    ['paid', { type: 'finalized' }, 'final'],
    ['final', { type: 'finalized' }, 'final'],
    ['paid_late', { type: 'finalized' }, 'paid_late'],
    ['underpaid', { type: 'finalized' }, 'underpaid'],
    ['oversold', { type: 'finalized' }, 'oversold'],
    ['awaiting_payment', { type: 'expire' }, 'expired'],
    ['awaiting_payment', { type: 'expire', receivedBaseUnits: 0n }, 'expired'],
    // A partial sum at expiry is an underpayment (the seller is told).
    ['awaiting_payment', { type: 'expire', receivedBaseUnits: 1n }, 'underpaid'],
    // The seller ships a fully paid order, then may mark it delivered (again: idempotent).
    ['paid', { type: 'ship' }, 'shipped'],
    ['final', { type: 'ship' }, 'shipped'],
    ['paid_late', { type: 'ship' }, 'shipped'],
    ['shipped', { type: 'deliver' }, 'delivered'],
    ['delivered', { type: 'deliver' }, 'delivered'],
    // Payments and finalization after shipping change nothing.
    ['shipped', { type: 'finalized' }, 'shipped'],
    ['delivered', { type: 'finalized' }, 'delivered'],
  ])('case %# from %s', (from, event, to) => {
    expect(transition(from, event)).toEqual({ ok: true, next: to });
  });

  it.each<[OrderStatus, OrderEvent, string]>([
    ['awaiting_payment', { type: 'finalized' }, 'not_paid_yet'],
    ['expired', { type: 'finalized' }, 'not_paid_yet'],
    ['paid', { type: 'expire' }, 'not_awaiting_payment'],
    ['expired', { type: 'expire' }, 'not_awaiting_payment'],
    ['underpaid', { type: 'expire', receivedBaseUnits: 5n }, 'not_awaiting_payment'],
    // Only a fully paid order ships, once.
    ['awaiting_payment', { type: 'ship' }, 'not_paid_yet'],
    ['underpaid', { type: 'ship' }, 'not_paid_yet'],
    ['expired', { type: 'ship' }, 'not_paid_yet'],
    ['shipped', { type: 'ship' }, 'already_shipped'],
    ['delivered', { type: 'ship' }, 'already_shipped'],
    ['paid', { type: 'deliver' }, 'not_shipped'],
    ['awaiting_payment', { type: 'deliver' }, 'not_shipped'],
    ['shipped', { type: 'expire' }, 'not_awaiting_payment'],
    ['oversold', { type: 'expire' }, 'not_awaiting_payment'],
  ])('refusal %# from %s', (from, event, reason) => {
    const r = transition(from, event);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.refusal).toEqual({ reason, status: from });
  });

  it('never refuses a payment: every transfer gets a role', () => {
    for (const s of ORDER_STATUSES) {
      const r = transition(s, pay(1n, 100n));
      expect(r.ok && r.role !== undefined && PAYMENT_ROLES.includes(r.role)).toBe(true);
    }
  });

  const statusArb = fc.constantFrom(...ORDER_STATUSES);
  const eventArb: fc.Arbitrary<OrderEvent> = fc.oneof(
    fc.record({
      type: fc.constant('payment' as const),
      receivedBaseUnits: fc.bigInt({ min: 1n, max: 10n ** 18n }),
      paidBeforeBaseUnits: fc.bigInt({ min: 0n, max: 10n ** 18n }),
      expectedBaseUnits: fc.bigInt({ min: 1n, max: 10n ** 18n }),
      finalized: fc.boolean(),
      late: fc.boolean(),
      stockLost: fc.boolean(),
    }),
    fc.constant({ type: 'finalized' as const }),
    fc.record({
      type: fc.constant('expire' as const),
      receivedBaseUnits: fc.bigInt({ min: 0n, max: 10n ** 18n }),
    }),
    fc.constant({ type: 'ship' as const }),
    fc.constant({ type: 'deliver' as const }),
  );

  it('never leaves the closed set, never un-pays, and a full payment is never reported short (property)', () => {
    fc.assert(
      fc.property(statusArb, fc.array(eventArb, { maxLength: 8 }), (start, events) => {
        let s = start;
        for (const e of events) {
          const r = transition(s, e);
          if (!r.ok) continue;
          expect(ORDER_STATUSES).toContain(r.next);
          if (HAS_PAYMENT.has(s)) expect(HAS_PAYMENT.has(r.next)).toBe(true);
          if (e.type === 'payment') {
            const before = e.paidBeforeBaseUnits ?? 0n;
            const sum = before + e.receivedBaseUnits;
            // Fully paid exactly when the ledger sum reaches the amount (or it already was).
            if (!TAKES_EXTRAS.has(s)) expect(FULLY_PAID.has(r.next)).toBe(sum >= e.expectedBaseUnits);
            // A payment never un-pays and never changes a fully paid (or cancelled) status.
            if (TAKES_EXTRAS.has(s)) expect(r).toEqual({ ok: true, next: s, role: 'extra' });
            expect(r.role).toBe(
              TAKES_EXTRAS.has(s)
                ? 'extra'
                : sum >= e.expectedBaseUnits
                  ? s === 'underpaid'
                    ? 'top_up'
                    : 'payment'
                  : 'partial',
            );
          }
          s = r.next;
        }
      }),
    );
  });

  it('is idempotent for finalized, and a payment after the full amount is an extra that changes nothing (property)', () => {
    fc.assert(
      fc.property(statusArb, fc.bigInt({ min: 1n, max: 10n ** 12n }), (s, amount) => {
        const once = transition(s, { type: 'finalized' });
        if (once.ok) expect(transition(once.next, { type: 'finalized' })).toEqual(once);
        if (TAKES_EXTRAS.has(s))
          expect(transition(s, pay(1n, amount, { before: amount }))).toEqual({
            ok: true,
            next: s,
            role: 'extra',
          });
        else
          expect(transition(s, pay(1n, amount, { before: amount }))).toMatchObject({
            ok: true,
            role: s === 'underpaid' ? 'top_up' : 'payment',
          });
      }),
    );
  });

  it('a partial payment before expiry never moves awaiting_payment, whatever its size (property: dust cannot block)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 2n, max: 10n ** 12n }),
        fc.bigInt({ min: 1n, max: 10n ** 12n }),
        (amount, part) => {
          const short = part % amount || 1n;
          expect(transition('awaiting_payment', pay(short, amount))).toEqual({
            ok: true,
            next: 'awaiting_payment',
            role: 'partial',
          });
          expect(
            transition('awaiting_payment', pay(amount - short, amount, { before: short })),
          ).toMatchObject({ ok: true, next: 'paid', role: 'payment' });
        },
      ),
    );
  });

  it('cancels a paid or underpaid order not shipped; a cancelled order ships no more and takes later transfers as extras', () => {
    for (const s of ['paid', 'final', 'paid_late', 'underpaid'] as const)
      expect(transition(s, { type: 'cancel' })).toEqual({ ok: true, next: 'cancelled' });
    expect(transition('shipped', { type: 'cancel' })).toMatchObject({
      ok: false,
      refusal: { reason: 'already_shipped' },
    });
    expect(transition('delivered', { type: 'cancel' })).toMatchObject({
      ok: false,
      refusal: { reason: 'already_shipped' },
    });
    expect(transition('cancelled', { type: 'cancel' })).toMatchObject({
      ok: false,
      refusal: { reason: 'cancelled' },
    });
    for (const s of ['awaiting_payment', 'expired', 'oversold'] as const)
      expect(transition(s, { type: 'cancel' })).toMatchObject({
        ok: false,
        refusal: { reason: 'not_paid_yet' },
      });
    expect(transition('cancelled', { type: 'ship' })).toMatchObject({
      ok: false,
      refusal: { reason: 'cancelled' },
    });
    expect(transition('cancelled', pay(5n, 100n, { before: 100n }))).toEqual({
      ok: true,
      next: 'cancelled',
      role: 'extra',
    });
    expect(transition('cancelled', { type: 'finalized' })).toEqual({ ok: true, next: 'cancelled' });
  });

  it('a refund closed the order: a later transfer is an extra, never the completion', () => {
    // Underpaid 90 %, the vendor returned the 90 % (net 0), the buyer pays only the 10 % "top-up".
    expect(transition('underpaid', pay(10n, 100n, { late: true, before: 0n, closed: true }))).toEqual({
      ok: true,
      next: 'underpaid',
      role: 'extra',
    });
    // Even a transfer of the whole amount does not reopen a closed order: it goes back too.
    expect(transition('underpaid', pay(100n, 100n, { late: true, before: 0n, closed: true }))).toEqual({
      ok: true,
      next: 'underpaid',
      role: 'extra',
    });
  });
});
