/**
 * The reference price: what quotes and late-payment valuations use instead of the pool's spot price.
 *
 *   reference = min(spot, average of the samples of the last `windowMs`)
 *
 * where the average is time-weighted: each sample counts for the time it was the latest price (until the next
 * sample, at most `MAX_HOLD_MS`), clipped to the window. Rule `median` (the default) takes the weighted lower
 * median, so a rise is honoured only once it has lasted half the window; rule `twap` takes the weighted mean
 * (a spike moves it in proportion to its length). Either way a fall is honoured at once (the minimum with the
 * spot price): the vendor never receives less than the market value. Prices stay exact rationals (no floats).
 * docs/decisions/price-and-mail.md has the attacker's arithmetic.
 */
import { parsePriceUsd, type ExactPrice } from '../../core/money';
import type { PricePoint } from './history';

export type ReferenceRule = 'median' | 'twap';

export interface ReferenceConfig {
  rule: ReferenceRule;
  windowMs: number;
}

export interface ReferencePrice {
  /** The reference price, a plain decimal string. */
  priceUsd: string;
  /** The spot price it was computed against. */
  spotUsd: string;
  /** Samples (with weight) the window held. */
  samples: number;
}

/** A sample stands for the price until the next one, but for at most this long (a gap is not evidence). */
export const MAX_HOLD_MS = 60_000;
/** Digits kept when a mean is not a terminating decimal (rounded down: the vendor's side). */
const MEAN_DECIMALS = 18;

export function compareExact(a: ExactPrice, b: ExactPrice): number {
  const l = a.num * b.den;
  const r = b.num * a.den;
  return l < r ? -1 : l > r ? 1 : 0;
}

function tryParse(text: string): ExactPrice | undefined {
  try {
    return parsePriceUsd(text);
  } catch {
    return undefined;
  }
}

/**
 * The reference at `atMs` from `points` (oldest first or not; only those at or before `atMs` count) and the spot
 * price `spotUsd` (by default the last point at or before `atMs`). Undefined when there is no valid spot price.
 */
export function referencePrice(
  points: readonly PricePoint[],
  atMs: number,
  cfg: ReferenceConfig,
  spotUsd?: string,
): ReferencePrice | undefined {
  const from = atMs - cfg.windowMs;
  // The window's samples plus the last one before it (it was the price when the window opened).
  const inWindow: { t: number; p: ExactPrice }[] = [];
  let carry: { t: number; p: ExactPrice } | undefined;
  for (const pt of points) {
    const t = pt.t.getTime();
    if (!(t <= atMs)) continue;
    const p = tryParse(pt.priceUsd);
    if (!p) continue;
    if (t >= from) inWindow.push({ t, p });
    else if (!carry || t > carry.t) carry = { t, p };
  }
  inWindow.sort((a, b) => a.t - b.t);
  const samples = carry ? [carry, ...inWindow] : inWindow;
  const last = samples[samples.length - 1];
  const spot = spotUsd !== undefined ? tryParse(spotUsd) : last?.p;
  if (!spot) return undefined;

  const weighted: { p: ExactPrice; w: number }[] = [];
  for (let i = 0; i < samples.length; i++) {
    const s = samples[i] as { t: number; p: ExactPrice };
    const end = Math.min(samples[i + 1]?.t ?? atMs, atMs, s.t + MAX_HOLD_MS);
    const w = end - Math.max(s.t, from);
    if (w > 0) weighted.push({ p: s.p, w });
  }
  let average: ExactPrice | undefined;
  if (weighted.length === 0) average = undefined;
  else if (cfg.rule === 'twap') average = weightedMean(weighted);
  else average = weightedLowerMedian(weighted);
  const ref = average && compareExact(average, spot) < 0 ? average : spot;
  return { priceUsd: ref.text, spotUsd: spot.text, samples: weighted.length };
}

function weightedLowerMedian(items: { p: ExactPrice; w: number }[]): ExactPrice {
  const sorted = [...items].sort((a, b) => compareExact(a.p, b.p));
  const total = sorted.reduce((n, s) => n + s.w, 0);
  let acc = 0;
  for (const s of sorted) {
    acc += s.w;
    if (acc * 2 >= total) return s.p;
  }
  return (sorted[sorted.length - 1] as { p: ExactPrice }).p;
}

function weightedMean(items: { p: ExactPrice; w: number }[]): ExactPrice {
  // Σ wᵢ·numᵢ/denᵢ ÷ Σ wᵢ over a common denominator (the largest power of ten among the dens).
  const den = items.reduce((d, s) => (s.p.den > d ? s.p.den : d), 1n);
  let sum = 0n;
  let total = 0n;
  for (const s of items) {
    sum += BigInt(s.w) * s.p.num * (den / s.p.den);
    total += BigInt(s.w);
  }
  const scale = 10n ** BigInt(MEAN_DECIMALS);
  const units = (sum * scale) / (total * den); // rounded down
  if (units === 0n) return (items[0] as { p: ExactPrice }).p;
  const text = units.toString().padStart(MEAN_DECIMALS + 1, '0');
  const plain = `${text.slice(0, -MEAN_DECIMALS)}.${text.slice(-MEAN_DECIMALS)}`.replace(/\.?0+$/, '');
  return parsePriceUsd(plain);
}
