import type { Shipping, ShippingInternational, ShippingUS } from '../../core/api';

/**
 * The shipping forms of the spec (§3) and their check (§5): required fields must be non-empty; no other
 * format check in the browser (the email input is type=email; the server validates everything on order).
 * Texts kept equal to src/core/order.ts by src/web/lib/shipping.test.ts (importing it here would pull zod in).
 */
export const MISSING_SHIPPING_WALLET = 'Please fill out all required shipping details first!';
export const MISSING_SHIPPING_QR = 'Please fill out all required shipping details.';

export type FormKind = 'international' | 'us';

export const INTERNATIONAL_FIELDS = [
  'fullName',
  'email',
  'address1',
  'address2',
  'city',
  'stateProvince',
  'postalCode',
  'country',
] as const;
export const US_FIELDS = ['fullName', 'email', 'address1', 'address2', 'city', 'usState', 'zip'] as const;
export type ShippingField = (typeof INTERNATIONAL_FIELDS)[number] | (typeof US_FIELDS)[number];
export type ShippingValues = Partial<Record<ShippingField, string>>;

export const FIELD_LABELS: Record<ShippingField, string> = {
  fullName: 'Full Name',
  email: 'Email',
  address1: 'Address Line 1',
  address2: 'Address Line 2 (optional)',
  city: 'City',
  stateProvince: 'State / Province',
  postalCode: 'Postal Code',
  country: 'Country',
  usState: 'State',
  zip: 'ZIP Code',
};

export const fieldsOf = (kind: FormKind): readonly ShippingField[] =>
  kind === 'us' ? US_FIELDS : INTERNATIONAL_FIELDS;
export const isRequired = (field: ShippingField) => field !== 'address2';

/** The required fields left empty (blank counts as empty), in form order. */
export function missingFields(kind: FormKind, values: ShippingValues): ShippingField[] {
  return fieldsOf(kind).filter((f) => isRequired(f) && (values[f] ?? '').trim() === '');
}

/** The message shown next to an empty required field (the spec's alert is shown as well). */
export const requiredText = (field: ShippingField): string => `${FIELD_LABELS[field]} is required.`;

/** The typed shipping value, or null when a required field is empty. */
export function shippingFromValues(kind: FormKind, values: ShippingValues): Shipping | null {
  const v = (f: ShippingField) => (values[f] ?? '').trim();
  if (fieldsOf(kind).some((f) => isRequired(f) && v(f) === '')) return null;
  const address2 = v('address2') || undefined;
  if (kind === 'us') {
    const s: ShippingUS = {
      kind: 'us',
      fullName: v('fullName'),
      email: v('email'),
      address1: v('address1'),
      city: v('city'),
      usState: v('usState'),
      zip: v('zip'),
    };
    return address2 ? { ...s, address2 } : s;
  }
  const s: ShippingInternational = {
    kind: 'international',
    fullName: v('fullName'),
    email: v('email'),
    address1: v('address1'),
    city: v('city'),
    stateProvince: v('stateProvince'),
    postalCode: v('postalCode'),
    country: v('country'),
  };
  return address2 ? { ...s, address2 } : s;
}
