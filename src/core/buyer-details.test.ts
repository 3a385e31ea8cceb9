import { describe, expect, it } from 'vitest';
import { addressLines } from './address-lines';
import { maskEmail } from './buyer-details';

describe('buyer details on the order page', () => {
  it('puts an international address on its lines, without an empty second line', () => {
    expect(
      addressLines({
        kind: 'international',
        fullName: 'Grace Hopper',
        email: 'grace@buyer.test',
        address1: '2 Harbor Rd',
        address2: '',
        city: 'Arlington',
        stateProvince: 'VA',
        postalCode: '22201',
        country: 'USA',
      }),
    ).toEqual(['2 Harbor Rd', 'Arlington, VA 22201', 'USA']);
  });

  it('keeps a US second line', () => {
    expect(
      addressLines({
        kind: 'us',
        fullName: 'Erin Eagle',
        email: 'e@x.test',
        address1: '12 Elm St',
        address2: 'Apt 4',
        city: 'Reno',
        usState: 'NV',
        zip: '89501',
      }),
    ).toEqual(['12 Elm St', 'Apt 4', 'Reno, NV 89501']);
  });

  it('masks the e-mail but keeps its domain', () => {
    expect(maskEmail('grace@buyer.test')).toBe('g•••@buyer.test');
    expect(maskEmail('g@buyer.test')).toBe('•••@buyer.test');
    expect(maskEmail('a@b@c.test')).toBe('a•••@c.test');
    expect(maskEmail('nonsense')).toBe('•••');
  });
});
