/**
 * Durable commits on SQLite without blocking the event loop: group commit.
 *
 * With `synchronous = FULL`, better-sqlite3 fsyncs the WAL inside COMMIT, on the event loop: on a disk where an
 * fsync takes 5 ms every request waits behind every commit and 200 orders/s saturate the process. Instead the
 * connection runs with `synchronous = NORMAL` (COMMIT writes the WAL frames but does not fsync; checkpoints still
 * fsync the WAL before and the database after), and every Kysely transaction or autocommit write that changed
 * something awaits an fsync of the WAL file, run on libuv's thread pool, *after* releasing the connection. One
 * fsync covers every commit made before it started, so concurrent commits share it; a commit made while an fsync
 * is running waits for the next one. The caller's promise resolves only once its commit is on disk: the same
 * guarantee as FULL (an acknowledged order survives a power cut), at a fraction of the cost.
 */
import { open } from 'node:fs/promises';
import {
  SqliteDialect,
  type CompiledQuery,
  type DatabaseConnection,
  type Driver,
  type QueryResult,
  type SqliteDatabase,
  type TransactionSettings,
} from 'kysely';
import type SQLite from 'better-sqlite3';

/** Group fsync of one file: `flush()` resolves after an fsync that started after the call. */
export function createGroupSync(sync: () => Promise<void>): {
  flush(): Promise<void>;
  readonly syncs: number;
} {
  let running: Promise<void> | undefined;
  let queued: Promise<void> | undefined;
  let syncs = 0;
  const start = (): Promise<void> => {
    syncs++;
    running = sync().finally(() => {
      running = undefined;
    });
    return running;
  };
  const flush = (): Promise<void> => {
    if (!running) return start();
    queued ??= running
      .catch(() => undefined)
      .then(() => {
        queued = undefined;
        return flush();
      });
    return queued;
  };
  return {
    flush,
    get syncs() {
      return syncs;
    },
  };
}

/** fsync of the database's WAL file (falls back to the database file when there is no WAL yet). */
export function walSync(file: string): () => Promise<void> {
  if (file === ':memory:') return async () => undefined;
  return async () => {
    let fh;
    try {
      fh = await open(`${file}-wal`, 'r');
    } catch {
      fh = await open(file, 'r');
    }
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
  };
}

/** Statements that cannot change the database (anything else, `with …` included, counts as a write). */
const READ_ONLY = /^\s*(select|pragma|begin|savepoint|release|rollback)\b/i;

/**
 * Wraps Kysely's SqliteDriver: marks the connection dirty on every statement that may write and, on release,
 * awaits the group fsync when it is dirty and no transaction is open.
 */
export class GroupCommitDriver implements Driver {
  private dirty = false;

  constructor(
    private readonly inner: Driver,
    private readonly sqlite: SQLite.Database,
    private readonly group: { flush(): Promise<void> },
  ) {}

  init(): Promise<void> {
    return this.inner.init();
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const conn = await this.inner.acquireConnection();
    return {
      executeQuery: <R>(q: CompiledQuery): Promise<QueryResult<R>> => {
        if (!READ_ONLY.test(q.sql)) this.dirty = true;
        return conn.executeQuery<R>(q);
      },
      streamQuery: <R>(q: CompiledQuery, chunkSize?: number) => conn.streamQuery<R>(q, chunkSize),
      // Kept so releaseConnection can hand the inner connection back.
      inner: conn,
    } as DatabaseConnection & { inner: DatabaseConnection };
  }

  beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.inner.beginTransaction(conn, settings);
  }

  commitTransaction(conn: DatabaseConnection): Promise<void> {
    return this.inner.commitTransaction(conn);
  }

  rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    return this.inner.rollbackTransaction(conn);
  }

  async releaseConnection(conn: DatabaseConnection): Promise<void> {
    const mustSync = this.dirty && !this.sqlite.inTransaction;
    if (mustSync) this.dirty = false;
    await this.inner.releaseConnection(
      (conn as DatabaseConnection & { inner?: DatabaseConnection }).inner ?? conn,
    );
    if (mustSync) await this.group.flush();
  }

  destroy(): Promise<void> {
    return this.inner.destroy();
  }
}

/** How many distinct SQL texts keep their prepared statement (the store's queries are a few dozen shapes). */
export const STATEMENT_CACHE_SIZE = 256;

/**
 * better-sqlite3 behind Kysely, with its prepared statements reused: Kysely prepares the SQL text of every query
 * it runs, and preparing (parsing and planning) cost as much as running on the order route. A statement is
 * reusable once its call returns (all/run are synchronous); a statement being iterated (Kysely's stream(), which
 * the store does not use) gets a fresh one. Least recently used texts are dropped past STATEMENT_CACHE_SIZE.
 */
export function cachedStatements(sqlite: SQLite.Database, size = STATEMENT_CACHE_SIZE): SqliteDatabase {
  const cache = new Map<string, SQLite.Statement>();
  return {
    close: () => {
      cache.clear();
      sqlite.close();
    },
    prepare: (text: string) => {
      const hit = cache.get(text);
      if (hit && !hit.busy) {
        cache.delete(text);
        cache.set(text, hit);
        return hit;
      }
      const stmt = sqlite.prepare(text);
      if (hit) return stmt;
      cache.set(text, stmt);
      if (cache.size > size) cache.delete(cache.keys().next().value as string);
      return stmt;
    },
  };
}

/** Kysely's SqliteDialect with group-committed durable writes (see above) and reused prepared statements. */
export class GroupCommitSqliteDialect extends SqliteDialect {
  constructor(
    private readonly sqlite: SQLite.Database,
    private readonly group: { flush(): Promise<void> },
  ) {
    super({ database: cachedStatements(sqlite) });
  }

  override createDriver(): Driver {
    return new GroupCommitDriver(super.createDriver(), this.sqlite, this.group);
  }
}
