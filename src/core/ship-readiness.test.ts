import { describe, expect, it } from 'vitest';
import { shipBlockOf, type ShipFacts, type ShippingDetailsState } from './ship-readiness';

const paid: ShipFacts = { shippingDetails: 'given', refundedExceptions: [], closedByRefund: false };

describe('shipBlockOf: can a fully paid order ship, as far as its money and its address go', () => {
  it('ships with the details given and nothing refunded', () => {
    expect(shipBlockOf(paid)).toBeUndefined();
  });

  it.each<[ShippingDetailsState, string, RegExp]>([
    ['none', 'no_shipping_details', /no shipping address.*paid without sending their shipping details/i],
    ['erased', 'details_erased', /no shipping address.*deleted their name and address/i],
    ['unreadable', 'details_unreadable', /shipping address cannot be read/i],
  ])('%s: refused as %s, saying what is missing in words', (details, code, words) => {
    const block = shipBlockOf({ ...paid, shippingDetails: details });
    expect(block?.code).toBe(code);
    expect(block?.message).toMatch(words);
    // A sentence for people: no code, no field name, no status word in it.
    expect(block?.message).not.toMatch(/_|shipping_json|null/);
  });

  it('an extra payment or an over-amount refunded (in part or settled) leaves the goods paid: it ships', () => {
    expect(shipBlockOf({ ...paid, refundedExceptions: ['extra_payment'] })).toBeUndefined();
    expect(
      shipBlockOf({ ...paid, refundedExceptions: ['overpaid', 'overpaid', 'extra_payment'] }),
    ).toBeUndefined();
  });

  it.each([
    'paid_late',
    'no_shipping_details',
    'unreadable_payment',
    'cancel_requested',
    'oversold',
    'underpaid',
  ])(
    'refunded against %s and settled (the order closed): refused as refunded, whatever the address',
    (exception) => {
      for (const shippingDetails of ['given', 'none', 'erased'] as const) {
        const block = shipBlockOf({
          shippingDetails,
          refundedExceptions: ['extra_payment', exception],
          closedByRefund: true,
        });
        expect(block?.code).toBe('refunded');
        expect(block?.message).toMatch(/does not ship: it was refunded.*went back to them/);
        expect(block?.message).not.toMatch(/_/);
      }
    },
  );

  it('a refund begun against an exception that returns the order (part went back, not settled): refused as begun', () => {
    const block = shipBlockOf({ ...paid, refundedExceptions: ['paid_late'] });
    expect(block?.code).toBe('refund_begun');
    expect(block?.message).toMatch(/does not ship: you have begun refunding.*went back to them/);
    // Before the address: the money decides first.
    expect(
      shipBlockOf({ ...paid, shippingDetails: 'none', refundedExceptions: ['no_shipping_details'] })?.code,
    ).toBe('refund_begun');
  });
});
