import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { FULLY_PAID, HAS_PAYMENT, ORDER_STATUSES, transition, type OrderEvent, type OrderStatus } from './order-status';

const pay = (received: bigint, expected: bigint, o: { finalized?: boolean; late?: boolean } = {}): OrderEvent => ({
  type: 'payment',
  receivedBaseUnits: received,
  expectedBaseUnits: expected,
  finalized: o.finalized ?? false,
  late: o.late ?? false,
});

describe('transition', () => {
  it.each<[OrderStatus, OrderEvent, OrderStatus]>([
    ['awaiting_payment', pay(100n, 100n), 'paid'],
    ['awaiting_payment', pay(101n, 100n), 'paid'],
    ['awaiting_payment', pay(100n, 100n, { finalized: true }), 'final'],
    ['awaiting_payment', pay(99n, 100n), 'underpaid'],
    ['awaiting_payment', pay(99n, 100n, { late: true }), 'underpaid'],
    ['awaiting_payment', pay(100n, 100n, { late: true }), 'paid_late'],
    ['expired', pay(100n, 100n), 'paid_late'],
    ['expired', pay(1n, 100n), 'underpaid'],
    ['paid', { type: 'finalized' }, 'final'],
    ['final', { type: 'finalized' }, 'final'],
    ['paid_late', { type: 'finalized' }, 'paid_late'],
    ['underpaid', { type: 'finalized' }, 'underpaid'],
    ['awaiting_payment', { type: 'expire' }, 'expired'],
  ])('case %# from %s', (from, event, to) => {
    expect(transition(from, event)).toEqual({ ok: true, next: to });
  });

  it.each<[OrderStatus, OrderEvent, string]>([
    ['paid', pay(100n, 100n), 'already_has_payment'],
    ['final', pay(100n, 100n), 'already_has_payment'],
    ['underpaid', pay(100n, 100n), 'already_has_payment'],
    ['paid_late', pay(100n, 100n), 'already_has_payment'],
    ['awaiting_payment', { type: 'finalized' }, 'not_paid_yet'],
    ['expired', { type: 'finalized' }, 'not_paid_yet'],
    ['paid', { type: 'expire' }, 'not_awaiting_payment'],
    ['expired', { type: 'expire' }, 'not_awaiting_payment'],
  ])('refusal %# from %s', (from, event, reason) => {
    const r = transition(from, event);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.refusal).toEqual({ reason, status: from });
  });

  const statusArb = fc.constantFrom(...ORDER_STATUSES);
  const eventArb: fc.Arbitrary<OrderEvent> = fc.oneof(
    fc.record({
      type: fc.constant('payment' as const),
      receivedBaseUnits: fc.bigInt({ min: 0n, max: 10n ** 18n }),
      expectedBaseUnits: fc.bigInt({ min: 1n, max: 10n ** 18n }),
      finalized: fc.boolean(),
      late: fc.boolean(),
    }),
    fc.constant({ type: 'finalized' as const }),
    fc.constant({ type: 'expire' as const }),
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
            expect(FULLY_PAID.has(r.next)).toBe(e.receivedBaseUnits >= e.expectedBaseUnits);
          }
          s = r.next;
        }
      }),
    );
  });

  it('is idempotent for finalized and refuses a second payment (property)', () => {
    fc.assert(
      fc.property(statusArb, (s) => {
        const once = transition(s, { type: 'finalized' });
        if (once.ok) expect(transition(once.next, { type: 'finalized' })).toEqual(once);
        if (HAS_PAYMENT.has(s)) expect(transition(s, pay(1n, 1n)).ok).toBe(false);
      }),
    );
  });
});
