import { section, type Reader } from './schema';
import type { Settings } from './types';

/** A 1/0 setting (also true/false, yes/no, on/off): its value, or undefined when unset or not one of those. */
function flag(r: Reader, name: string): boolean | undefined {
  const raw = r.get(name);
  if (raw === undefined) return undefined;
  if (/^(1|true|yes|on)$/i.test(raw)) return true;
  if (/^(0|false|no|off)$/i.test(raw)) return false;
  r.problem(`${name}: must be 1 or 0 (got '${raw}')`);
  return undefined;
}

/**
 * The database: a SQLite file, or PostgreSQL for several API instances; and whether the server applies pending
 * migrations at start (MIGRATE_ON_START) or leaves that to the release step, `npm run migrate`.
 */
export const storeSection = section({
  title: 'Store',
  settings: {
    DATABASE_URL: {
      doc: 'The database: a SQLite file path or sqlite: URL, or postgres://user@host:5432/db for several instances.',
      default: 'var/store.sqlite',
    },
    MIGRATE_ON_START: {
      doc: "1: the server applies pending migrations when it starts (for platforms without a release step). 0: it refuses to start on a database behind this release's migrations, naming `npm run migrate` (the release step runs them once, before the new instances start).",
      defaultDoc: '1 in demo mode, 0 otherwise',
      values: '1, 0',
    },
    DATABASE_POOL_WARM: {
      doc: "PostgreSQL only. 1: the instance opens its pool's 10 connections when it starts, warms each (its catalogue caches loaded, the schema's functions compiled) and keeps them open, so a sudden busy second (a drop's start) sets none up (each is a new PostgreSQL backend: set-up work on the database's CPU and round trips). 0: connections open when needed and close after 10 s idle.",
      default: '0',
      values: '1, 0',
    },
    DATABASE_NAMED_STATEMENTS: {
      doc: 'PostgreSQL only. 1: a statement the instance sends again and again is prepared once per connection (named) and PostgreSQL keeps its plan, instead of parsing and planning it each time. 0: every statement unnamed, for a connection pooler that does not keep prepared statements across transactions (PgBouncer in transaction mode before 1.21, or without max_prepared_statements).',
      default: '1',
      values: '1, 0',
    },
  },
  read(
    r,
    needs: { demo: boolean },
  ): Pick<Settings, 'database' | 'migrateOnStart' | 'databasePoolWarm' | 'databaseNamedStatements'> {
    const migrateOnStart = flag(r, 'MIGRATE_ON_START') ?? needs.demo;
    const databasePoolWarm = flag(r, 'DATABASE_POOL_WARM') ?? false;
    const databaseNamedStatements = flag(r, 'DATABASE_NAMED_STATEMENTS') ?? true;
    let database: Settings['database'] = { kind: 'sqlite', file: 'var/store.sqlite' };
    const dbRaw = r.get('DATABASE_URL');
    if (dbRaw !== undefined) {
      if (/^postgres(ql)?:\/\//.test(dbRaw)) {
        try {
          new URL(dbRaw);
          database = { kind: 'postgres', url: dbRaw };
        } catch {
          r.problem(`DATABASE_URL: not a valid postgres:// URL`);
        }
      } else if (dbRaw.startsWith('sqlite:')) {
        const file = dbRaw.replace(/^sqlite:(\/\/)?/, '');
        if (!file) r.problem('DATABASE_URL: sqlite: URL needs a file path');
        else database = { kind: 'sqlite', file };
      } else if (/^[a-z]+:\/\//i.test(dbRaw)) {
        r.problem(`DATABASE_URL: must be a file path, a sqlite: URL or a postgres:// URL`);
      } else {
        database = { kind: 'sqlite', file: dbRaw };
      }
    }
    return { database, migrateOnStart, databasePoolWarm, databaseNamedStatements };
  },
});
