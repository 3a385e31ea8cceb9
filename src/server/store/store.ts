/**
 * The store: Kysely over SQLite (better-sqlite3, WAL, durable group commits so a committed order survives a
 * power cut: durable-sqlite.ts) or PostgreSQL (pg Pool) for several API instances. At open, pending migrations
 * are applied (`migrate`, the default: the release step and MIGRATE_ON_START=1) or, with `migrate: false`, refused
 * with MigrationsPendingError; a database that has every migration this code knows (and maybe newer ones, from
 * the next release: expand, then contract) opens without taking the migration lock. `ready()` is true once open.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, sql, type MigrationResultSet } from 'kysely';
import pg from 'pg';
import { createGroupSync, GroupCommitSqliteDialect, walSync } from './durable-sqlite';
import { migrations } from './migrations';
import { answerEndedTransactions } from './pg-simple';
import { StatementNames } from './pg-named';
import { warmClients } from './pg-warm';
import type { Database } from './schema';

export type StoreConfig =
  { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string; schema?: string; poolSize?: number };

export interface Store {
  readonly db: Kysely<Database>;
  readonly dialect: 'sqlite' | 'postgres';
  /** PostgreSQL: the pool's open connections now (SQLite: undefined). */
  connections(): number | undefined;
  /** Open and migrated. */
  ready(): boolean;
  /** A cheap round trip (health). */
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export class StoreError extends Error {
  override name = 'StoreError';
}

/** The database is behind this code's migrations and the store was opened without migrating. */
export class MigrationsPendingError extends StoreError {
  override name = 'MigrationsPendingError';
  constructor(readonly pending: string[]) {
    super(
      `The database is behind this release: ${pending.length} ${pending.length === 1 ? 'migration' : 'migrations'} not applied (${pending[0]}${pending.length > 1 ? ', …' : ''}). Run \`npm run migrate\` (the release step) first, or set MIGRATE_ON_START=1 to migrate at start.`,
    );
  }
}

export interface OpenOptions {
  /** Apply pending migrations (default true); false: refuse with MigrationsPendingError when any is pending. */
  migrate?: boolean;
  /**
   * PostgreSQL: open the pool's connections before the store is returned and keep them open (DATABASE_POOL_WARM).
   * Without it a connection closes after 10 s idle, and a sudden busy second sets up a new backend for each one.
   */
  warmPool?: boolean;
  /**
   * PostgreSQL: statements sent again and again are named, parsed once per connection (./pg-named.ts; default true,
   * DATABASE_NAMED_STATEMENTS). False for a pooler that does not keep prepared statements.
   */
  namedStatements?: boolean;
}

/** A pool's connections idle this long close, unless kept warm. */
const POOL_IDLE_MS = 10_000;

/** The names of the migrations applied to `db` (none when the migration table does not exist yet). */
async function appliedMigrations(db: Kysely<Database>): Promise<Set<string>> {
  try {
    const r = await sql<{ name: string }>`select name from ${sql.table(MIGRATION_TABLE)}`.execute(db);
    return new Set(r.rows.map((x) => x.name));
  } catch (err) {
    const e = err as { code?: unknown; message?: unknown };
    if (e.code === '42P01' || (typeof e.message === 'string' && /no such table/i.test(e.message)))
      return new Set();
    throw err;
  }
}

const MIGRATION_TABLE = 'store_migration';
const MIGRATION_LOCK_TABLE = 'store_migration_lock';

export async function openStore(config: StoreConfig, opts: OpenOptions = {}): Promise<Store> {
  let db: Kysely<Database>;
  let pool: pg.Pool | undefined;
  if (config.kind === 'sqlite') {
    if (config.file !== ':memory:') mkdirSync(dirname(config.file), { recursive: true });
    const sqlite = new SQLite(config.file);
    sqlite.pragma('journal_mode = WAL');
    // Durable commits by group commit: NORMAL here, and every write awaits a shared fsync of the WAL before it
    // resolves (durable-sqlite.ts). Same guarantee as FULL without an fsync per commit on the event loop.
    sqlite.pragma('synchronous = NORMAL');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('busy_timeout = 5000');
    db = new Kysely<Database>({
      dialect: new GroupCommitSqliteDialect(sqlite, createGroupSync(walSync(config.file))),
    });
  } else {
    if (config.schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(config.schema))
      throw new StoreError(`bad schema name '${config.schema}'`);
    const size = config.poolSize ?? 10;
    pool = new pg.Pool({
      connectionString: config.url,
      max: size,
      // Kept warm: none of the pool's connections closes for being idle.
      min: opts.warmPool ? size : 0,
      idleTimeoutMillis: POOL_IDLE_MS,
      ...(config.schema ? { options: `-c search_path=${config.schema}` } : {}),
    });
    // A commit already carried by its transaction's last statement is not sent again (./pg-simple.ts); statements
    // sent again and again are parsed once per connection (./pg-named.ts).
    const names = opts.namedStatements === false ? undefined : new StatementNames();
    pool.on('connect', (client) => answerEndedTransactions(client, names));
    db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
    if (config.schema) await sql`create schema if not exists ${sql.id(config.schema)}`.execute(db);
  }

  let migrated = false;
  let closed = false;
  try {
    const applied = await appliedMigrations(db);
    const pending = Object.keys(migrations)
      .sort()
      .filter((name) => !applied.has(name));
    if (pending.length > 0 && opts.migrate === false) throw new MigrationsPendingError(pending);
    if (pending.length > 0) await migrate(db, config);
    migrated = true;
  } catch (err) {
    await db.destroy();
    throw err;
  }
  if (pool && opts.warmPool) await warm(pool);

  return {
    db,
    dialect: config.kind,
    ready: () => migrated && !closed,
    connections: () => pool?.totalCount,
    async ping() {
      if (closed) return false;
      try {
        await sql`select 1`.execute(db);
        return true;
      } catch {
        return false;
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      await db.destroy();
    },
  };
}

/** Kysely's migrator, under its lock (instances starting at once wait instead of racing). */
async function migrate(db: Kysely<Database>, config: StoreConfig): Promise<void> {
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => migrations },
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: MIGRATION_LOCK_TABLE,
    // On PostgreSQL, name the schema: Kysely looks for its tables through introspection of every schema.
    ...(config.kind === 'postgres' ? { migrationTableSchema: config.schema ?? 'public' } : {}),
  });
  const { error } = await migrateToLatestPatiently(migrator, config);
  if (error)
    throw new StoreError(`migrations failed: ${error instanceof Error ? error.message : String(error)}`);
}

/**
 * The migrator's migrateToLatest, tried again while another client's dropped schema fails it. Kysely's PostgreSQL
 * introspection reads the tables of every schema (pg_get_serial_sequence by name): a schema that another client
 * drops at that moment fails it with 'schema "…" does not exist' (3F000), though nothing is wrong with ours
 * (likewise a table or column of another schema). Nothing was migrated then: try again, for up to 20 s (a client
 * dropping a hundred schemas one by one takes seconds on a loaded machine). Tests building an older release's store
 * use it too.
 */
export async function migrateToLatestPatiently(
  migrator: Migrator,
  config: StoreConfig,
): Promise<MigrationResultSet> {
  let result = await migrator.migrateToLatest();
  const giveUpAt = Date.now() + 20_000;
  for (
    let attempt = 1;
    result.error && Date.now() < giveUpAt && isOtherSchemaGone(result.error, config);
    attempt++
  ) {
    await new Promise((r) => setTimeout(r, Math.min(50 * attempt, 500)));
    result = await migrator.migrateToLatest();
  }
  return result;
}

/** UNIQUE / PRIMARY KEY violation on either dialect. */
export function isUniqueViolation(err: unknown): boolean {
  const e = err as { code?: unknown } | null;
  return (
    e?.code === '23505' ||
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
  );
}

/** Names the unique constraint/column a violation hit, where the driver says. */
export function uniqueViolationTarget(err: unknown): string {
  const e = err as { constraint?: string; message?: string } | null;
  return `${e?.constraint ?? ''} ${e?.message ?? ''}`;
}

/** A PostgreSQL 'schema "x" does not exist' (3F000) naming a schema other than the store's own. */
function isOtherSchemaGone(error: unknown, config: StoreConfig): boolean {
  if (config.kind !== 'postgres') return false;
  const e = error as { code?: unknown; message?: unknown };
  if (typeof e.message !== 'string') return false;
  if (e.code === '3F000') {
    const named = /schema "([^"]+)" does not exist/.exec(e.message)?.[1];
    return named !== undefined && named !== (config.schema ?? 'public');
  }
  // The same race one level down: a table or column of another schema dropped or altered between Kysely's listing
  // and its pg_get_serial_sequence call ('column "seq" of relation "order_history" does not exist'). PostgreSQL
  // runs the migrations in one transaction, so the failed attempt changed nothing and a genuine error repeats.
  return e.code === '42703' || e.code === '42P01';
}

/**
 * Opens the pool's `max` connections at once, warms each (./pg-warm.ts: its catalog caches loaded, the schema's
 * functions compiled) and gives them back (they stay: the pool's `min`). Best effort: a connection the database
 * refuses now (its connection limit) is opened later, when needed, as without warming.
 */
async function warm(pool: pg.Pool): Promise<void> {
  const opened = await Promise.allSettled(Array.from({ length: pool.options.max }, () => pool.connect()));
  await warmClients(opened.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : [])));
}
