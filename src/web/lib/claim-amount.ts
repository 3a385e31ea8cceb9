import { formatBaseUnits, groupThousands, tokenBaseUnitsForCents } from '../../core/money';

/** The exact $CLAIM total for a USD total at a price, or null when either is unusable (exact: src/core/money). */
export function claimBaseUnits(totalCents: number | null, priceUsd: string | undefined): bigint | null {
  if (totalCents === null || priceUsd === undefined) return null;
  try {
    const units = tokenBaseUnitsForCents(totalCents, priceUsd);
    return units > 0n ? units : null;
  } catch {
    return null;
  }
}

export { formatBaseUnits, groupThousands };

/** "$325.00" for 32500. */
export function formatUsd(cents: number): string {
  const whole = Math.floor(cents / 100);
  const rest = String(cents % 100).padStart(2, '0');
  return `$${whole.toLocaleString('en-US')}.${rest}`;
}

/** "1,166,666.666667": a $CLAIM amount for reading, with thousands separators (six decimals kept, exact). */
export function formatClaim(units: bigint): string {
  return groupThousands(formatBaseUnits(units));
}
