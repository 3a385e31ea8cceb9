/**
 * The reference price at a past instant, from the price history stored in the database (table price_history,
 * SQLite or PostgreSQL): the same rule as quotes (reference.ts) applied to the samples of the window that ended
 * at that instant. Late payments are valued with it at their block time. Reads only; pass the caller's
 * transaction to read inside it.
 */
import type { Kysely, Transaction } from 'kysely';
import { divRoundHalfUp, parsePriceUsd } from '../../core/money';
import type { Database } from '../store/schema';
import { MAX_HOLD_MS, referencePrice, type ReferenceConfig, type ReferencePrice } from './reference';

/** No reference when the last stored sample before the instant is older than this. */
export const SPOT_MAX_AGE_MS = 15 * 60_000;

type Db = Kysely<Database> | Transaction<Database>;

/** The reference price at `atMs` (ms since epoch), or null when the history holds no recent enough sample. */
export async function referencePriceAt(
  db: Db,
  atMs: number,
  cfg: ReferenceConfig,
): Promise<ReferencePrice | null> {
  if (!Number.isFinite(atMs)) return null;
  const at = new Date(atMs).toISOString();
  const rows = await db
    .selectFrom('price_history')
    .select(['t', 'price_usd'])
    .where('t', '>=', new Date(atMs - cfg.windowMs - MAX_HOLD_MS).toISOString())
    .where('t', '<=', at)
    .orderBy('t')
    .execute();
  const last = rows[rows.length - 1];
  if (!last || atMs - Date.parse(last.t) > SPOT_MAX_AGE_MS) return null;
  const points = rows.map((r) => ({ t: new Date(r.t), priceUsd: r.price_usd }));
  return referencePrice(points, atMs, cfg) ?? null;
}

/**
 * The USD value in cents (half-up) of `baseUnits` $CLAIM base units (6 decimals) at `atMs`, valued with the
 * reference price then; null without one.
 */
export async function usdCentsAt(
  db: Db,
  baseUnits: bigint,
  atMs: number,
  cfg: ReferenceConfig,
): Promise<number | null> {
  const ref = await referencePriceAt(db, atMs, cfg);
  if (!ref) return null;
  const p = parsePriceUsd(ref.priceUsd);
  // baseUnits / 10^6 tokens × num/den USD × 100 cents
  return Number(divRoundHalfUp(baseUnits * p.num * 100n, p.den * 1_000_000n));
}
