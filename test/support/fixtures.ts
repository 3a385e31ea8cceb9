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

/**
 * DATA_KEYS for tests and benchmarks that run in production mode (SOLANA_RPC_URL set): two fixed 32-byte keys,
 * 'test2' seals, both open. Never a real key.
 */
export const TEST_DATA_KEYS = `test2:${Buffer.alloc(32, 2).toString('base64')},test1:${Buffer.alloc(32, 1).toString('base64')}`;
