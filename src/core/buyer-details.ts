/**
 * The buyer's details as their order page shows them (docs/decisions/privacy.md, "The buyer in control"): the
 * name and the address as typed, on the lines a parcel carries, and the e-mail masked (the page is a link the
 * buyer may forward; the address is what the confirmation went to, and the buyer knows it). Browser-safe.
 */
import type { ShippingInput } from './order';

/** The address on its lines: street, second line if any, "city, state postal code", country (international). */
export function addressLinesOf(s: ShippingInput): string[] {
  const line2 = s.address2 && s.address2.trim() !== '' ? [s.address2] : [];
  if (s.kind === 'us') return [s.address1, ...line2, `${s.city}, ${s.usState} ${s.zip}`];
  return [s.address1, ...line2, `${s.city}, ${s.stateProvince} ${s.postalCode}`, s.country];
}

/**
 * "g•••@buyer.test": the first character of the local part, then dots; the domain kept (the buyer recognises
 * their own address, someone given the link learns little). One-character local parts show no character.
 */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@');
  if (at <= 0) return '•••';
  const local = email.slice(0, at);
  const shown = local.length > 1 ? local.slice(0, 1) : '';
  return `${shown}•••${email.slice(at)}`;
}
