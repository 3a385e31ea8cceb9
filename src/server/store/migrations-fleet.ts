/** Migrations 0025–0029 (issue 31: a fleet of instances on one PostgreSQL store); see ./migrations.ts. */
import { sql, SqliteAdapter, type Kysely, type Migration } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export const fleetMigrations: Record<string, Migration> = {
  /**
   * The fleet's Solana RPC budget (src/server/payments/fleet-budget.ts): requests granted per time slot of the
   * fleet (`slot` = Unix ms / slot length), per method and in all (`method` '*'). Instances claim small grants
   * from it and give back what they did not send. Only PostgreSQL fills it (SQLite: one instance, the budget is
   * the process's own); unlogged there like the rate limits (a PostgreSQL crash empties it: one window forgotten).
   * Expand-only: the previous release never reads it.
   */
  '0025_rpc_budget_slots': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('rpc_budget_slots')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('slot', 'bigint', (c) => c.notNull())
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('used', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('rpc_budget_slots_pk', ['scope', 'slot', 'method'])
        .execute();
      if (db.getExecutor().adapter instanceof SqliteAdapter) return;
      await sql`alter table rpc_budget_slots set unlogged`.execute(db);
    },
  },
  /**
   * What the fleet's one price poller has (src/server/price/shared.ts): the current price, the last failure and
   * whether the sources disagree, as JSON, rewritten after each refresh; the other instances serve it. Expand-only.
   */
  '0026_price_current': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('price_current')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('snapshot_json', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
    },
  },
};
