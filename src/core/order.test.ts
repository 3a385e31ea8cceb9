import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { isEmailAddress } from './email-address';
import {
  InternationalShippingFormSchema,
  InternationalShippingSchema,
  joinShippingAddress,
  MAX_EMAIL,
  OrderRequestSchema,
  QuantitySchema,
  QuoteRequestSchema,
  ShippingSchema,
  shippingSchemaFor,
  US_STATES,
  UsShippingSchema,
  describeIssues,
  missingShippingMessage,
} from './order';
import { INTERNATIONAL_SHIPPING } from '../../test/support/fixtures';

const intl = { ...INTERNATIONAL_SHIPPING };
const us = {
  kind: 'us' as const,
  fullName: 'Grace Hopper',
  email: 'grace@example.com',
  address1: '1 Navy Way',
  address2: 'Apt 2',
  city: 'Arlington',
  usState: 'VA',
  zip: '22202',
};

const firstMessage = (r: {
  success: boolean;
  error?: { issues: { message: string; path: (string | number)[] }[] };
}) => ({
  message: r.error?.issues[0]?.message,
  path: r.error?.issues[0]?.path.join('.'),
});

describe('US_STATES', () => {
  it('has the 50 states with unique two-letter codes and names', () => {
    expect(US_STATES).toHaveLength(50);
    expect(new Set(US_STATES.map((s) => s.code)).size).toBe(50);
    expect(US_STATES.every((s) => /^[A-Z]{2}$/.test(s.code) && s.name.length > 3)).toBe(true);
    expect(US_STATES.map((s) => s.code)).not.toContain('DC');
  });
});

describe('international shipping (wallet pages)', () => {
  it('accepts a complete form and trims every field', () => {
    const r = InternationalShippingSchema.parse({ ...intl, fullName: '  Ada Lovelace ', address2: '  ' });
    expect(r.fullName).toBe('Ada Lovelace');
    expect(r.address2).toBeUndefined();
  });
  it.each(['fullName', 'email', 'address1', 'city', 'stateProvince', 'postalCode', 'country'])(
    'requires %s',
    (field) => {
      const missing = InternationalShippingSchema.safeParse({ ...intl, [field]: undefined });
      expect(missing.success).toBe(false);
      expect(firstMessage(missing)).toMatchObject({
        path: field,
        message: expect.stringContaining('required'),
      });
      const blank = InternationalShippingSchema.safeParse({ ...intl, [field]: '   ' });
      expect(blank.success).toBe(false);
      expect(firstMessage(blank).path).toBe(field);
    },
  );
  it('keeps address2 optional', () => {
    expect(InternationalShippingSchema.safeParse(intl).success).toBe(true);
    expect(InternationalShippingSchema.parse({ ...intl, address2: 'Flat 3' }).address2).toBe('Flat 3');
  });
  it.each([
    'plainaddress',
    'a@',
    '@b.com',
    'a b@c.com',
    'a@b..com',
    'a@-b.com',
    // The browser accepts these, but no mail server delivers to them: refused with the order, not after it.
    'buyer@localhost',
    'a@b',
    'a@b.c',
    'a@b.123',
  ])('rejects the e-mail %j', (email) => {
    const r = InternationalShippingSchema.safeParse({ ...intl, email });
    expect(firstMessage(r)).toMatchObject({
      path: 'email',
      message: expect.stringContaining('e-mail address'),
    });
  });
  it('accepts deliverable e-mails the browser accepts (the mailer uses the same check)', () => {
    for (const email of [
      'a@b.io',
      'first.last+tag@sub.example.co.uk',
      "o'neil@example.com",
      'x@xn--bcher-kva.xn--p1ai',
    ]) {
      expect(isEmailAddress(email)).toBe(true);
      expect(InternationalShippingSchema.safeParse({ ...intl, email }).success).toBe(true);
    }
  });
  it('caps e-mail at 254 characters and text at 200', () => {
    const atMax = `${'a'.repeat(64)}@${'b'.repeat(61)}.${'c'.repeat(61)}.${'d'.repeat(61)}.com`;
    expect(atMax.length).toBe(MAX_EMAIL);
    expect(InternationalShippingSchema.safeParse({ ...intl, email: atMax }).success).toBe(true);
    const over = `${'a'.repeat(64)}@${'b'.repeat(62)}.${'c'.repeat(61)}.${'d'.repeat(61)}.com`;
    expect(over.length).toBe(MAX_EMAIL + 1);
    expect(firstMessage(InternationalShippingSchema.safeParse({ ...intl, email: over })).message).toContain(
      'at most 254',
    );
    expect(
      firstMessage(InternationalShippingSchema.safeParse({ ...intl, city: 'x'.repeat(201) })).message,
    ).toContain('at most 200');
    expect(InternationalShippingSchema.safeParse({ ...intl, city: 'x'.repeat(200) }).success).toBe(true);
  });
  it.each([
    ['U+202E right-to-left override', 'Ada\u202eecnelovoL'],
    ['U+2066 left-to-right isolate', 'Ada \u2066Lovelace\u2069'],
    ['U+200B zero-width space', 'Ada\u200bLovelace'],
    ['U+FEFF byte order mark', 'Ada\ufeffLovelace'],
    ['U+00AD soft hyphen', 'Ada\u00adLovelace'],
  ])('rejects Unicode format characters in every text field: %s', (_name, value) => {
    for (const field of [
      'fullName',
      'address1',
      'address2',
      'city',
      'stateProvince',
      'postalCode',
      'country',
    ]) {
      const r = InternationalShippingSchema.safeParse({ ...intl, [field]: value });
      expect(firstMessage(r), field).toMatchObject({
        path: field,
        message: expect.stringContaining('invisible formatting characters'),
      });
    }
  });
  it('rejects unknown fields, control characters and non-text', () => {
    const unknown = InternationalShippingSchema.safeParse({ ...intl, isAdmin: true });
    expect(unknown.success).toBe(false);
    expect(describeIssues(unknown.error!)[0]?.message).toContain('isAdmin');
    expect(InternationalShippingSchema.safeParse({ ...intl, fullName: 'Ada\r\nBcc: x@y.z' }).success).toBe(
      false,
    );
    expect(firstMessage(InternationalShippingSchema.safeParse({ ...intl, city: 42 })).message).toContain(
      'must be text',
    );
    expect(InternationalShippingFormSchema.safeParse({ ...intl, kind: undefined }).success).toBe(false);
  });
});

describe('US shipping (QR pages)', () => {
  it('accepts a complete form, upper-cases the state', () => {
    expect(UsShippingSchema.parse({ ...us, usState: 'ca' }).usState).toBe('CA');
  });
  it.each(['fullName', 'email', 'address1', 'city', 'usState', 'zip'])('requires %s', (field) => {
    const r = UsShippingSchema.safeParse({ ...us, [field]: '' });
    expect(r.success).toBe(false);
    expect(firstMessage(r).path).toBe(field);
  });
  it('accepts only the 50 states', () => {
    for (const s of US_STATES)
      expect(UsShippingSchema.safeParse({ ...us, usState: s.code }).success).toBe(true);
    for (const bad of ['DC', 'PR', 'XX', 'Virginia']) {
      expect(firstMessage(UsShippingSchema.safeParse({ ...us, usState: bad })).message).toContain(
        '50 US states',
      );
    }
  });
  it('checks the ZIP code', () => {
    expect(UsShippingSchema.safeParse({ ...us, zip: '22202-1234' }).success).toBe(true);
    for (const bad of ['2220', 'ABCDE', '222021234', '22202-12'])
      expect(UsShippingSchema.safeParse({ ...us, zip: bad }).success).toBe(false);
  });
  it('refuses an international form where a US one is needed', () => {
    expect(shippingSchemaFor('qr').safeParse(intl).success).toBe(false);
    expect(shippingSchemaFor('wallet').safeParse(us).success).toBe(false);
    expect(ShippingSchema.safeParse(us).success).toBe(true);
    expect(ShippingSchema.safeParse({ ...us, kind: 'mars' }).success).toBe(false);
  });
  it('gives the spec alerts', () => {
    expect(missingShippingMessage('wallet')).toBe('Please fill out all required shipping details first!');
    expect(missingShippingMessage('qr')).toBe('Please fill out all required shipping details.');
  });
});

describe('joinShippingAddress', () => {
  it('joins with commas and skips an absent line 2', () => {
    expect(joinShippingAddress(InternationalShippingSchema.parse(intl))).toBe(
      '12 St James Square, London, Greater London, SW1Y 4JH, United Kingdom',
    );
    expect(joinShippingAddress(UsShippingSchema.parse(us))).toBe('1 Navy Way, Apt 2, Arlington, VA, 22202');
  });
});

describe('quantity and requests', () => {
  it('accepts whole numbers 1..99 only (property)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.integer(), fc.double(), fc.string()), (q) => {
        const ok = typeof q === 'number' && Number.isInteger(q) && q >= 1 && q <= 99;
        expect(QuantitySchema.safeParse(q).success).toBe(ok);
      }),
    );
  });
  it('validates quote requests', () => {
    expect(
      QuoteRequestSchema.safeParse({ items: [{ productId: 'garlic-amaretto-live-resin', quantity: 2 }] })
        .success,
    ).toBe(true);
    expect(QuoteRequestSchema.safeParse({ items: [] }).success).toBe(false);
    expect(QuoteRequestSchema.safeParse({ items: [{ productId: 'x', quantity: 0 }] }).success).toBe(false);
    expect(QuoteRequestSchema.safeParse({ items: [{ productId: 'x', quantity: 1, price: 1 }] }).success).toBe(
      false,
    );
    expect(QuoteRequestSchema.safeParse({ items: [{ productId: '../etc', quantity: 1 }] }).success).toBe(
      false,
    );
    // The connected wallet (Buy Now): a Solana address, else refused in words.
    const items = [{ productId: 'x', quantity: 1 }];
    expect(
      QuoteRequestSchema.safeParse({ items, wallet: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM' }).success,
    ).toBe(true);
    const bad = QuoteRequestSchema.safeParse({ items, wallet: 'not-a-wallet' });
    expect(bad.success ? undefined : bad.error.issues[0]?.message).toBe(
      'wallet must be a Solana address (base58)',
    );
  });
  it('validates order requests', () => {
    expect(OrderRequestSchema.safeParse({ quote: 'q', shipping: {}, paymentMethod: 'wallet' }).success).toBe(
      true,
    );
    expect(
      OrderRequestSchema.parse({ quote: 'q', shipping: {}, paymentMethod: 'qr', referrer: '' }).referrer,
    ).toBeUndefined();
    expect(OrderRequestSchema.safeParse({ quote: 'q', shipping: {}, paymentMethod: 'card' }).success).toBe(
      false,
    );
    expect(OrderRequestSchema.safeParse({ quote: '', shipping: {}, paymentMethod: 'qr' }).success).toBe(
      false,
    );
    expect(
      OrderRequestSchema.safeParse({ quote: 'q', shipping: {}, paymentMethod: 'qr', extra: 1 }).success,
    ).toBe(false);
  });
});
