/**
 * Exact handling of the decimal price strings DexScreener sends ("0.0001234"). No floats: the string is
 * checked and normalised as text, and handed on unchanged when it is already a plain positive decimal.
 */

const PLAIN = /^(0|[1-9]\d*)(\.\d+)?$/;
const SCIENTIFIC = /^(\d+)(?:\.(\d+))?[eE]([+-]?\d{1,3})$/;
/** Longer strings are not a price anybody sends; refusing them bounds the work. */
const MAX_LENGTH = 64;

export type DecimalCheck = { ok: true; value: string } | { ok: false; reason: string };

/** Accepts a positive decimal string (plain, or in e-notation which is rewritten as plain). */
export function parsePositiveDecimal(raw: unknown, field = 'priceUsd'): DecimalCheck {
  if (typeof raw !== 'string')
    return {
      ok: false,
      reason: `${field} is ${raw === undefined ? 'missing' : `not a string (${raw === null ? 'null' : typeof raw})`}`,
    };
  const s = raw.trim();
  if (s === '') return { ok: false, reason: `${field} is empty` };
  if (s.length > MAX_LENGTH) return { ok: false, reason: `${field} is too long` };
  if (s.startsWith('-')) return { ok: false, reason: `${field} is negative ('${s}')` };
  let plain: string;
  if (PLAIN.test(s)) plain = s;
  else {
    const m = SCIENTIFIC.exec(s);
    if (!m) return { ok: false, reason: `${field} is not a decimal number ('${s.slice(0, 32)}')` };
    plain = fromScientific(m[1] ?? '0', m[2] ?? '', Number(m[3]));
  }
  if (!/[1-9]/.test(plain)) return { ok: false, reason: `${field} is zero ('${s}')` };
  return { ok: true, value: plain };
}

/**
 * A USD amount that the source sends as a JSON number (DexScreener's `liquidity.usd`) or a decimal string
 * (GeckoTerminal's `reserve_in_usd`). A number is taken through its shortest round-trip decimal text
 * (`String(n)`: the literal itself for up to 15 significant digits), then checked as text like a price:
 * NaN, infinities, zero, negatives and non-numbers are refused. No arithmetic on the float.
 */
export function parseLiquidityUsd(raw: unknown, field: string): DecimalCheck {
  if (typeof raw === 'number') {
    if (!Number.isFinite(raw)) return { ok: false, reason: `${field} is not a finite number` };
    return parsePositiveDecimal(String(raw), field);
  }
  return parsePositiveDecimal(raw, field);
}

/** Whole US dollars (rounded down) of a plain positive decimal string. */
export function wholeDollars(plain: string): bigint {
  return BigInt(plain.split('.')[0] ?? '0');
}

function fromScientific(intPart: string, fracPart: string, exp: number): string {
  const digits = (intPart + fracPart).replace(/^0+(?=\d)/, '');
  // position of the decimal point counted from the left of `digits` (before stripping zeros: intPart.length)
  const stripped = (intPart + fracPart).length - digits.length;
  const point = intPart.length - stripped + exp;
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  if (out.includes('.')) out = out.replace(/0+$/, '').replace(/\.$/, '');
  return out.replace(/^0+(?=\d)/, '');
}
