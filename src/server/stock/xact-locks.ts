/**
 * PostgreSQL's transaction-scoped advisory locks, taken once per transaction: the order's transaction asks for the
 * wallet's lock (the balance rule) and the client's (the per-client cap), and a drop's per-buyer limit asks for
 * both again; a lock already held by this transaction is re-entrant, so asking again is one round trip for
 * nothing (on a 2-core machine in a drop, each round trip of the order's transaction waits its turn for the CPU).
 * Remembered per transaction object; a transaction the map does not know asks (re-entrant: still correct).
 */
import { sql, type Transaction } from 'kysely';
import type { Database } from '../store/schema';

const held = new WeakMap<Transaction<Database>, Set<string>>();

/** `select pg_advisory_xact_lock(…)` on `key`, unless this transaction holds it already. */
export async function xactLock(trx: Transaction<Database>, key: string): Promise<void> {
  const keys = held.get(trx);
  if (keys?.has(key)) return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${key}::text, 0))`.execute(trx);
  if (keys) keys.add(key);
  else held.set(trx, new Set([key]));
}
