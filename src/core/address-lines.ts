/**
 * A shipping address on the lines a parcel carries (the packing slip): street, second line if any, "city, state
 * postal code", country (international form). Browser-safe.
 */
import type { ShippingInput } from './order';

export function addressLines(s: ShippingInput): string[] {
  const line2 = s.address2 && s.address2.trim() !== '' ? [s.address2] : [];
  if (s.kind === 'us') return [s.address1, ...line2, `${s.city}, ${s.usState} ${s.zip}`];
  return [s.address1, ...line2, `${s.city}, ${s.stateProvince} ${s.postalCode}`, s.country];
}
