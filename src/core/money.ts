/**
 * Money, exactly. USD travels as integer cents, $CLAIM as bigint base units (6 decimals). Token prices arrive
 * as decimal strings (DexScreener's `priceUsd`) and are held as exact rationals `num / den` (den a power of 10),
 * never as floats. Pure and browser-safe.
 */

export const TOKEN_DECIMALS = 6;
const BASE = 10n ** BigInt(TOKEN_DECIMALS);

/** A positive decimal price held exactly: value = num / den. */
export interface ExactPrice {
  num: bigint;
  den: bigint;
  /** The canonical decimal text (no exponent, no trailing zeros). */
  text: string;
}

export class MoneyError extends Error {
  override name = 'MoneyError';
}

const DECIMAL = /^(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d{1,3}))?$/;
const MAX_PRICE_TEXT = 64;
const MAX_EXPONENT = 40;

/**
 * Parses a USD price string exactly: "0.000123", "12", "1.5e-7" (exponent forms are handled exactly).
 * Rejects missing, empty, zero, negative, signed, non-numeric, NaN/Infinity, whitespace and absurd exponents.
 */
export function parsePriceUsd(input: unknown): ExactPrice {
  if (typeof input !== 'string') throw new MoneyError('price is missing');
  if (input.length === 0) throw new MoneyError('price is empty');
  if (input.length > MAX_PRICE_TEXT) throw new MoneyError('price text is too long');
  const m = DECIMAL.exec(input);
  if (!m) throw new MoneyError(`price '${input}' is not a plain positive decimal number`);
  const intPart = m[1] ?? '0';
  const frac = m[2] ?? '';
  const exp = m[3] === undefined ? 0 : Number(m[3]);
  if (Math.abs(exp) > MAX_EXPONENT) throw new MoneyError(`price '${input}' has an exponent out of range`);
  // value = digits × 10^(exp − frac.length)
  let num = BigInt(intPart + frac);
  const shift = exp - frac.length;
  let den = 1n;
  if (shift >= 0) num *= 10n ** BigInt(shift);
  else den = 10n ** BigInt(-shift);
  if (num === 0n) throw new MoneyError('price must be greater than zero');
  // Normalise: strip common factors of 10.
  while (den > 1n && num % 10n === 0n) {
    num /= 10n;
    den /= 10n;
  }
  return { num, den, text: rationalToDecimalText(num, den) };
}

function rationalToDecimalText(num: bigint, den: bigint): string {
  // den is a power of ten here.
  const scale = den.toString().length - 1;
  if (scale === 0) return num.toString();
  const s = num.toString().padStart(scale + 1, '0');
  return `${s.slice(0, s.length - scale)}.${s.slice(s.length - scale)}`;
}

/** Integer division of non-negative bigints rounded half-up. */
export function divRoundHalfUp(n: bigint, d: bigint): bigint {
  if (d <= 0n || n < 0n) throw new MoneyError('divRoundHalfUp needs n ≥ 0 and d > 0');
  return (2n * n + d) / (2n * d);
}

/**
 * Token base units for a USD total: totalCents / 100 / priceUsd × 10^6, rounded half-up to a whole base unit
 * (i.e. to six decimals of a token). Exact.
 */
export function tokenBaseUnitsForCents(totalCents: number | bigint, price: string | ExactPrice): bigint {
  const cents = typeof totalCents === 'bigint' ? totalCents : BigInt(assertCents(totalCents));
  if (cents < 0n) throw new MoneyError('total must not be negative');
  const p = typeof price === 'string' ? parsePriceUsd(price) : price;
  // cents/100 / (num/den) × BASE = cents × den × BASE / (100 × num)
  return divRoundHalfUp(cents * p.den * BASE, 100n * p.num);
}

function assertCents(n: number): number {
  if (!Number.isSafeInteger(n)) throw new MoneyError(`cents must be a whole number (got ${n})`);
  return n;
}

/** "1234.500000" from 1234500000n. */
export function formatBaseUnits(units: bigint): string {
  const neg = units < 0n;
  const abs = neg ? -units : units;
  const whole = abs / BASE;
  const frac = (abs % BASE).toString().padStart(TOKEN_DECIMALS, '0');
  return `${neg ? '-' : ''}${whole}.${frac}`;
}

/**
 * Thousands separators in the whole part of a decimal text, for reading ("650000.000000" → "650,000.000000",
 * "1300.00" → "1,300.00"); anything that is not a plain decimal ('N/A', 'unknown') is returned unchanged.
 */
export function groupThousands(text: string): string {
  const m = /^(-?)(\d+)(\.\d+)?$/.exec(text);
  if (!m) return text;
  return `${m[1] ?? ''}${(m[2] ?? '').replace(/\B(?=(\d{3})+(?!\d))/g, ',')}${m[3] ?? ''}`;
}

/** Inverse of formatBaseUnits: exactly six decimals required ("1.5" is refused; use parseTokenAmount). */
export function parseBaseUnitsText(text: string): bigint {
  const m = /^(\d+)\.(\d{6})$/.exec(text);
  if (!m) throw new MoneyError(`'${text}' is not a six-decimal token amount`);
  return BigInt(m[1] ?? '0') * BASE + BigInt(m[2] ?? '0');
}

/** "325.00" from 32500. */
export function formatCents(cents: number): string {
  assertCents(cents);
  const neg = cents < 0;
  const abs = Math.abs(cents);
  return `${neg ? '-' : ''}${Math.trunc(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}

/** Parses a base-units integer string (as stored and sent in the API). */
export function parseBaseUnits(text: string): bigint {
  if (!/^\d{1,30}$/.test(text)) throw new MoneyError(`'${text}' is not a base-unit amount`);
  return BigInt(text);
}
