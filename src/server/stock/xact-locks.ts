/**
 * PostgreSQL's transaction-scoped advisory locks, taken once per transaction: the order's transaction asks for the
 * wallet's lock (the balance rule) and the client's (the per-client cap, a drop's per-buyer limit) before its one
 * read of what those rules need (./hold-facts.ts); a lock already held by this transaction is re-entrant, so asking
 * again (the cap's own check, ./holds.ts `assertUnderCap`) is one round trip for nothing (on a 2-core machine in a
 * drop, each round trip of the order's transaction waits its turn for the CPU). Remembered per transaction object;
 * a transaction the map does not know asks (re-entrant: still correct). A hold takes the wallet's and the client's
 * in one statement (`lockBuyer`).
 */
import { sql, type RawBuilder, type Transaction } from 'kysely';
import type { Database } from '../store/schema';
import { inlineParameters } from '../store/pg-simple';

/**
 * A lock statement without parameters (the keys written in as literals): the simple protocol, so a transaction's
 * `begin` goes in the same query when the lock is its first statement (../store/pg-simple.ts).
 */
const runLiteral = (trx: Transaction<Database>, q: RawBuilder<unknown>) =>
  sql.raw(inlineParameters(q.compile(trx))).execute(trx);

const held = new WeakMap<Transaction<Database>, Set<string>>();

/** `select pg_advisory_xact_lock(…)` on `key`, unless this transaction holds it already. */
export async function xactLock(trx: Transaction<Database>, key: string): Promise<void> {
  const keys = held.get(trx);
  if (keys?.has(key)) return;
  await runLiteral(trx, sql`select pg_advisory_xact_lock(hashtextextended(${key}::text, 0))`);
  if (keys) keys.add(key);
  else held.set(trx, new Set([key]));
}

/**
 * The locks of a buyer's hold, in one round trip: the wallet's (the balance rule, ./wallet-holds.ts), then the
 * client's (the per-client cap and a drop's per-buyer limit, ./holds.ts), in that order, the order every hold
 * takes them in (wallet first, in ./hold-facts.ts `readHoldFacts`), so two holds never wait for each other crosswise. PostgreSQL's
 * select list is evaluated left to right. Those already held by this transaction are not asked again; later
 * `xactLock` calls for them cost nothing.
 */
export async function lockBuyer(
  trx: Transaction<Database>,
  wallet: string,
  holder: string | undefined,
): Promise<void> {
  const keys = [`wallet:${wallet}`, ...(holder ? [`hold:${holder}`] : [])].filter(
    (k) => !held.get(trx)?.has(k),
  );
  if (keys.length === 0) return;
  if (keys.length === 1) return xactLock(trx, keys[0]!);
  await runLiteral(
    trx,
    sql`select ${sql.join(keys.map((k) => sql`pg_advisory_xact_lock(hashtextextended(${k}::text, 0))`))}`,
  );
  const set = held.get(trx) ?? new Set<string>();
  for (const k of keys) set.add(k);
  held.set(trx, set);
}
