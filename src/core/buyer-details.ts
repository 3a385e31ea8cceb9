/**
 * The buyer's details as their order page shows them (docs/decisions/privacy.md, "The buyer in control"): the
 * name and the address as typed, on the lines a parcel carries, and the e-mail masked (the page is a link the
 * buyer may forward; the address is what the confirmation went to, and the buyer knows it). Browser-safe.
 */

// The address on its lines is ./address-lines.ts, the packing slip's rule: one rule for both.

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
