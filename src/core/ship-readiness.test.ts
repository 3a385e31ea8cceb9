import { describe, expect, it } from 'vitest';
import { shipBlockOf, type ShippingDetailsState } from './ship-readiness';

describe('shipBlockOf: can a paid order ship, as far as its address goes', () => {
  it('ships with the details given', () => {
    expect(shipBlockOf('given')).toBeUndefined();
  });

  it.each<[ShippingDetailsState, string, RegExp]>([
    ['none', 'no_shipping_details', /no shipping address.*paid without sending their shipping details/i],
    ['erased', 'details_erased', /no shipping address.*deleted their name and address/i],
    ['unreadable', 'details_unreadable', /shipping address cannot be read/i],
  ])('%s: refused as %s, saying what is missing in words', (details, code, words) => {
    const block = shipBlockOf(details);
    expect(block?.code).toBe(code);
    expect(block?.message).toMatch(words);
    // A sentence for people: no code, no field name, no status word in it.
    expect(block?.message).not.toMatch(/_|shipping_json|null/);
  });
});
