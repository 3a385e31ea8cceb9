/**
 * The one e-mail address check, shared by the order schema (what we accept from a buyer), the mailer (what we
 * hand to a transport) and the settings (the seller's address), so an address accepted with an order can be
 * delivered to: WHATWG's <input type=email> syntax, a domain of at least two labels whose last is a real
 * top-level name (letters, or an IDN `xn--` label), at most 64 characters before the @ and 254 in all.
 * `buyer@localhost` passes the browser's check but no public mail server delivers to it, so it is refused here.
 */
const SYNTAX =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)+$/;
const TLD = /^(?:[a-zA-Z]{2,63}|xn--[a-zA-Z0-9-]{1,59})$/;

export const MAX_EMAIL_LENGTH = 254;

export function isEmailAddress(value: string): boolean {
  if (value.length > MAX_EMAIL_LENGTH || !SYNTAX.test(value)) return false;
  const at = value.lastIndexOf('@');
  if (at > 64) return false;
  const tld = value.slice(value.lastIndexOf('.') + 1);
  return TLD.test(tld);
}

/**
 * Characters never accepted in a text field: C0/C1 controls, line/paragraph separators, and Unicode format
 * characters (\p{Cf}: bidirectional overrides and isolates U+202A–202E / U+2066–2069, zero-width space/joiners,
 * the BOM, soft hyphen…), which can make a seller e-mail display something other than what it says.
 */
// eslint-disable-next-line no-control-regex
export const FORBIDDEN_TEXT = /[\u0000-\u001f\u007f-\u009f\u200b\u2028\u2029\p{Cf}]/u;
