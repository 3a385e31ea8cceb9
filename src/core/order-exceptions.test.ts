import { describe, expect, it } from 'vitest';
import { exceptionsOf, type ExceptionFacts } from './order-exceptions';

const facts = (more: Partial<ExceptionFacts>): ExceptionFacts => ({
  status: 'paid',
  hasShipping: true,
  hasExtra: false,
  ...more,
});

describe('exceptionsOf', () => {
  it('a paid order with nothing odd has none', () => {
    expect(exceptionsOf(facts({}))).toEqual([]);
  });

  it('an overpayment inside the completing transfer is an exception of its own (overpaid)', () => {
    expect(exceptionsOf(facts({ overpaid: true }))).toEqual(['overpaid']);
    expect(exceptionsOf(facts({ status: 'paid_late', overpaid: true }))).toEqual(['paid_late', 'overpaid']);
    expect(exceptionsOf(facts({ overpaid: true, hasExtra: true }))).toEqual(['extra_payment', 'overpaid']);
    // When the whole order is owed back, its own exception covers the over-amount.
    expect(exceptionsOf(facts({ status: 'oversold', overpaid: true }))).toEqual(['oversold']);
    expect(exceptionsOf(facts({ status: 'cancelled', overpaid: true }))).toEqual([]);
  });

  it('a buyer’s cancel request on a paid order not shipped is open for the vendor, and stays after the vendor cancels', () => {
    for (const status of ['paid', 'final', 'paid_late', 'underpaid'] as const)
      expect(exceptionsOf(facts({ status, cancelAsked: true }))).toContain('cancel_requested');
    expect(exceptionsOf(facts({ status: 'cancelled', cancelAsked: true }))).toEqual(['cancel_requested']);
    // Once cancelled, everything is owed under the request: a later transfer is no exception of its own.
    expect(exceptionsOf(facts({ status: 'cancelled', cancelAsked: true, hasExtra: true }))).toEqual([
      'cancel_requested',
    ]);
    // Shipped or not paid: nothing for the vendor to cancel.
    for (const status of ['shipped', 'delivered', 'awaiting_payment', 'expired', 'oversold'] as const)
      expect(exceptionsOf(facts({ status, cancelAsked: true }))).not.toContain('cancel_requested');
  });

  it('missing shipping details wait for the grace: no exception while the buyer may still be typing them', () => {
    expect(exceptionsOf(facts({ hasShipping: false, detailsAwaited: true }))).toEqual([]);
    expect(exceptionsOf(facts({ hasShipping: false, detailsAwaited: false }))).toEqual([
      'no_shipping_details',
    ]);
    // The grace is about the details only: other exceptions of the same order are open at once.
    expect(exceptionsOf(facts({ status: 'underpaid', hasShipping: false, detailsAwaited: true }))).toEqual([
      'underpaid',
    ]);
  });

  it('a cancelled order without shipping details does not ship: no missing-details exception', () => {
    expect(exceptionsOf(facts({ status: 'cancelled', hasShipping: false }))).toEqual([]);
    expect(exceptionsOf(facts({ status: 'paid', hasShipping: false }))).toEqual(['no_shipping_details']);
  });

  it('a transaction the store could not read that may pay the order is an exception whatever the status', () => {
    for (const status of ['awaiting_payment', 'expired', 'paid', 'underpaid', 'shipped'] as const)
      expect(exceptionsOf(facts({ status, unreadablePayment: true }))).toContain('unreadable_payment');
    expect(exceptionsOf(facts({ status: 'expired' }))).not.toContain('unreadable_payment');
  });
});
