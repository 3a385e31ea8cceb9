import { describe, expect, it } from 'vitest';
import * as order from '../../core/order';
import { US_STATES } from '../data/us-states';
import { MISSING_SHIPPING_QR, MISSING_SHIPPING_WALLET, shippingFromValues } from './shipping';

const full = {
  fullName: ' Ann Lee ',
  email: 'ann@example.com',
  address1: '1 Main St',
  city: 'Austin',
  stateProvince: 'TX',
  postalCode: '73301',
  country: 'US',
};

describe('shipping form check', () => {
  it('keeps the alert texts and the state list equal to src/core/order.ts', () => {
    expect(MISSING_SHIPPING_WALLET).toBe(order.MISSING_SHIPPING_WALLET);
    expect(MISSING_SHIPPING_QR).toBe(order.MISSING_SHIPPING_QR);
    expect(US_STATES.map((s) => [s.code, s.name])).toEqual(order.US_STATES.map((s) => [s.code, s.name]));
    expect(US_STATES).toHaveLength(50);
  });
  it('returns the typed international value, trimmed, address2 optional', () => {
    expect(shippingFromValues('international', full)).toEqual({
      kind: 'international',
      ...full,
      fullName: 'Ann Lee',
    });
    expect(shippingFromValues('international', { ...full, address2: ' Apt 2 ' })).toMatchObject({
      address2: 'Apt 2',
    });
  });
  it('rejects any empty required field (all seven, not only name and email)', () => {
    for (const f of [
      'fullName',
      'email',
      'address1',
      'city',
      'stateProvince',
      'postalCode',
      'country',
    ] as const) {
      expect(shippingFromValues('international', { ...full, [f]: '  ' })).toBeNull();
    }
  });
  it('checks the US form', () => {
    const us = {
      fullName: 'Bo',
      email: 'bo@example.com',
      address1: '2 Elm',
      city: 'Reno',
      usState: 'NV',
      zip: '89501',
    };
    expect(shippingFromValues('us', us)).toEqual({ kind: 'us', ...us });
    expect(shippingFromValues('us', { ...us, usState: '' })).toBeNull();
    expect(shippingFromValues('us', { ...us, zip: '' })).toBeNull();
  });
});
