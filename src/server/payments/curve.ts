/**
 * Whether 32 bytes are a point of the ed25519 curve (the y coordinate and x's sign bit, as Solana encodes a public
 * key), for ./ata.ts's program-derived addresses: an address is program-derived only off the curve. The same answer
 * as @solana/addresses' `isOffCurveAddress` (its vendored noble code, checked against it in `curve.test.ts`), on the
 * bytes rather than on a base58 string, and about twice as fast: the field's reduction folds the bits above 2^255
 * (2^255 ≡ 19 mod p) instead of dividing, and the exponent's loops count in numbers, not BigInts. A derivation may try
 * several bumps, and a drop's balance reads derive a dozen at once, on the event loop.
 */

const P = 2n ** 255n - 19n;
const MASK = 2n ** 255n - 1n;
/** The curve's d. */
const D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;

/** `x` mod p, for 0 ≤ x < 2^510 (a product of two reduced numbers). */
function reduce(x: bigint): bigint {
  x = (x & MASK) + 19n * (x >> 255n);
  x = (x & MASK) + 19n * (x >> 255n);
  return x >= P ? x - P : x;
}

const mul = (a: bigint, b: bigint) => reduce(a * b);

/** x^(2^n) mod p. */
function square(x: bigint, n: number): bigint {
  let r = x;
  for (let i = 0; i < n; i++) r = reduce(r * r);
  return r;
}

/** x^((p − 5) / 8) = x^(2^252 − 3) mod p (the addition chain noble uses). */
function powP58(x: bigint): bigint {
  const x2 = mul(x, x);
  const b2 = mul(x2, x);
  const b4 = mul(square(b2, 2), b2);
  const b5 = mul(square(b4, 1), x);
  const b10 = mul(square(b5, 5), b5);
  const b20 = mul(square(b10, 10), b10);
  const b40 = mul(square(b20, 20), b20);
  const b80 = mul(square(b40, 40), b40);
  const b160 = mul(square(b80, 80), b80);
  const b240 = mul(square(b160, 80), b80);
  const b250 = mul(square(b240, 10), b10);
  return mul(square(b250, 2), x);
}

/** Little-endian bytes as a number, the top bit (x's sign) left out. */
function yOf(bytes: Uint8Array): bigint {
  let hex = '';
  for (let i = 31; i >= 0; i--)
    hex += (i === 31 ? bytes[i]! & 0x7f : bytes[i]!).toString(16).padStart(2, '0');
  return BigInt(`0x${hex}`);
}

/**
 * True when `bytes` (32) encode a point of ed25519: x² = (y² − 1) / (d·y² + 1) has a root, and x = 0 does not come
 * with the sign bit set. Anything but 32 bytes is not a point.
 */
export function bytesAreOnCurve(bytes: Uint8Array): boolean {
  if (bytes.length !== 32) return false;
  const y = reduce(yOf(bytes));
  const y2 = mul(y, y);
  const u = y2 === 0n ? P - 1n : y2 - 1n;
  const v = reduce(mul(D, y2) + 1n);
  // noble's uvRatio: x = u·v³·(u·v⁷)^((p−5)/8); a root exists when v·x² is u or −u (x, or x·√−1, is then the
  // root; which one does not matter here).
  const v3 = mul(mul(v, v), v);
  const v7 = mul(mul(v3, v3), v);
  const x = mul(mul(u, v3), powP58(mul(u, v7)));
  const vx2 = mul(v, mul(x, x));
  const minusU = u === 0n ? 0n : P - u;
  if (vx2 !== u && vx2 !== minusU) return false;
  // x = 0 exactly when u = 0 (y = ±1): then the sign bit must be clear.
  return !(u === 0n && (bytes[31]! & 0x80) !== 0);
}
