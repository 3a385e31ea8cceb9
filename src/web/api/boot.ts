/**
 * The data the server sends inside the page's HTML (src/server/http/boot-data.ts): the public config and the
 * price at the moment the page was served, so a first visit does not wait two more round trips for them. Read
 * once (./boot-block.ts); the price only while the page is young (its age is the document's: performance.now()
 * counts from the navigation), after which the page asks GET /api/price as before.
 */
import type { PriceOk, PublicConfig } from '../../core/api';
import { bootBlock, bootYoung, BOOT_MAX_AGE_MS } from './boot-block';

/** An inline price older than this (the page's own age) is not used: the page asks for a fresh one. */
export const BOOT_PRICE_MAX_AGE_MS = BOOT_MAX_AGE_MS;

let priceTaken = false;

/** The public config the page was served with, or null. */
export function bootConfig(): PublicConfig | null {
  const c = bootBlock().config as Partial<PublicConfig> | null | undefined;
  return c && typeof c.claimMint === 'string' && typeof c.pairAddress === 'string'
    ? (c as PublicConfig)
    : null;
}

/**
 * The price the page was served with, once per visit, while the page is younger than BOOT_PRICE_MAX_AGE_MS;
 * `ageSeconds` counts the time since it was served. Null otherwise (then the page fetches it).
 */
export function takeBootPrice(): PriceOk | null {
  const price = priceTaken ? null : (bootBlock().price as Partial<PriceOk> | null | undefined);
  priceTaken = true;
  if (!price || typeof price.priceUsd !== 'string' || !bootYoung()) return null;
  const served = typeof price.ageSeconds === 'number' ? price.ageSeconds : 0;
  return { ...(price as PriceOk), ageSeconds: served + Math.floor(performance.now() / 1000) };
}
