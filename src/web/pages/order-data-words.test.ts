import { describe, expect, it } from 'vitest';
import { actionWords, historyWords } from './order-data-words';

describe('Download my data in words', () => {
  it('the history reads as events and statuses in words', () => {
    expect(historyWords({ event: 'payment', status: 'paid' })).toBe('payment arrived: Paid');
    expect(historyWords({ event: 'cancelled_by_seller', status: 'cancelled' })).toBe(
      'cancelled by the vendor (you asked): Cancelled',
    );
    expect(historyWords({ event: 'something_new', status: 'final' })).toBe('something new: Paid and settled');
  });

  it('the vendor’s actions: amounts in $CLAIM with separators, the question in words, no field names', () => {
    const refund = actionWords({
      action: 'refunded',
      detail: { signature: 'SIG', exception: 'cancel_requested', amountBaseUnits: '22145485396' },
    });
    expect(refund).toBe(
      'Sent a refund (amount: 22,145.485396 $CLAIM, about: The buyer asked to cancel, transaction: SIG)',
    );
    expect(refund).not.toMatch(/BaseUnits|cancel_requested/);
    expect(actionWords({ action: 'cancelled', detail: {} })).toBe('Cancelled the order (you asked)');
    expect(actionWords({ action: 'shipped', detail: { carrier: 'USPS', trackingNumber: '9400' } })).toBe(
      'Shipped the order (tracking number: 9400, carrier: USPS)',
    );
  });
});
