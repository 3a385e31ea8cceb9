/**
 * A store as an older release left it: only the migrations in `set` applied (a migration test then opens it with
 * openStore, which applies the rest). SQLite file or PostgreSQL schema, through a bare Kysely.
 */
import SQLite from 'better-sqlite3';
import { Kysely, Migrator, PostgresDialect, SqliteDialect, sql, type Migration } from 'kysely';
import pg from 'pg';
import { migrateToLatestPatiently, type StoreConfig } from '../../src/server/store/store';

/* eslint-disable @typescript-eslint/no-explicit-any */
export async function storeMigratedWith(
  config: StoreConfig,
  set: Record<string, Migration>,
): Promise<Kysely<any>> {
  let db: Kysely<any>;
  if (config.kind === 'sqlite')
    db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SQLite(config.file) }) });
  else {
    const pool = new pg.Pool({
      connectionString: config.url,
      max: 2,
      options: `-c search_path=${config.schema ?? 'public'}`,
    });
    db = new Kysely<any>({ dialect: new PostgresDialect({ pool }) });
    await sql`create schema if not exists ${sql.id(config.schema ?? 'public')}`.execute(db);
  }
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => set },
    migrationTableName: 'store_migration',
    migrationLockTableName: 'store_migration_lock',
    ...(config.kind === 'postgres' ? { migrationTableSchema: config.schema ?? 'public' } : {}),
  });
  const { error } = await migrateToLatestPatiently(migrator, config);
  if (error) throw error;
  return db;
}

/** The migrations named before `name` (an older release's set). */
export function migrationsBefore(all: Record<string, Migration>, name: string): Record<string, Migration> {
  return Object.fromEntries(Object.entries(all).filter(([n]) => n < name));
}
