import { describe, expect, it } from 'vitest';
import type { OrderPageView } from '../../core/api';
import { nextSteps, statusLine } from './order-page-words';

const view = (more: Partial<OrderPageView>): OrderPageView =>
  ({
    status: 'final',
    shippingDetails: 'given',
    privacy: { cancel: 'none' },
    owed: { remainingBaseUnits: '0', refundedBaseUnits: '0', perPayment: [] },
    amount: '100.000000',
    amountBaseUnits: '100000000',
    receivedBaseUnits: '100000000',
    ...more,
  }) as unknown as OrderPageView;

describe('the order page in words', () => {
  it('paid without details: says what the seller sees now, not that they were told (they are e-mailed only after the grace)', () => {
    const text = nextSteps(view({ shippingDetails: 'awaiting' }));
    expect(text).toContain('not your shipping details yet');
    expect(text).toContain('The seller sees the order as paid and waiting for your details.');
    expect(text).not.toContain('has been told');
    // Once the grace is over the seller is e-mailed, and the page says so.
    expect(nextSteps(view({ shippingDetails: 'missing' }))).toMatch(/The seller has been told\.$/);
  });

  it('a requested cancel is followed in the status and the next step, never "final"', () => {
    const asked = view({ privacy: { cancel: 'requested' } as OrderPageView['privacy'] });
    expect(statusLine(asked, Date.now())).toBe('Cancellation requested: waiting for the seller');
    expect(nextSteps(asked)).toMatch(/^You asked the seller to cancel this order/);
  });
});
