import { describe, expect, it } from 'vitest';
import { orderNumberOf } from './order-number';

describe('orderNumberOf', () => {
  it('is the first 8 characters of the id, upper case, the same everywhere', () => {
    expect(orderNumberOf('7f3a9c2e-1b4d-4e8f-9a0b-123456789abc')).toBe('7F3A9C2E');
  });
});
