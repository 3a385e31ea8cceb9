/** Shipping details used across tests and benchmarks: one valid buyer per form kind. */
import type { ShippingInternational } from '../../src/core/api';

export const INTERNATIONAL_SHIPPING = {
  kind: 'international',
  fullName: 'Ada Lovelace',
  email: 'ada@example.com',
  address1: '12 St James Square',
  city: 'London',
  stateProvince: 'Greater London',
  postalCode: 'SW1Y 4JH',
  country: 'United Kingdom',
} as const satisfies ShippingInternational;
