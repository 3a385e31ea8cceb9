/**
 * Named statements on PostgreSQL (DATABASE_NAMED_STATEMENTS, src/server/store/pg-named.ts): a statement sent again is
 * prepared once on its connection; a statement whose result changed shape under it (another instance's migration
 * changed a column's type) fails once and is sent unnamed from then on; off, nothing is prepared.
 */
import { sql, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/server/store/store';
import { PG_URL, postgresBackend } from './orders-support';

const backend = postgresBackend();
afterAll(() => backend.cleanup());

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Db = Kysely<any>;

/** The statements prepared on the (only) connection. */
async function prepared(db: Db): Promise<string[]> {
  const r = await sql<{
    statement: string;
  }>`select statement from pg_prepared_statements where ${1} = 1`.execute(db);
  return r.rows.map((row) => row.statement);
}

const readV = (db: Db, id: number) =>
  db.selectFrom('t').select('v').where('id', '=', id).executeTakeFirstOrThrow();
/** A fresh schema, on a pool of one connection (so every statement shares it). */
async function oneConnection() {
  const config = await backend.fresh();
  if (config.kind !== 'postgres') throw new Error('a PostgreSQL backend was expected');
  return { ...config, poolSize: 1 };
}

const READ_V = 'select "v" from "t" where "id" = $1';

describe.runIf(PG_URL)('named statements (PostgreSQL)', () => {
  it('a statement sent again is prepared once on its connection; a reshaped result fails once, then goes unnamed', async () => {
    const store = await openStore(await oneConnection());
    const db = store.db as Db;
    try {
      await sql`create table t (id integer primary key, v integer not null)`.execute(db);
      await sql`insert into t values (1, 10), (2, 20)`.execute(db);
      expect(await readV(db, 1)).toEqual({ v: 10 });
      expect(await prepared(db)).not.toContain(READ_V);
      expect(await readV(db, 2)).toEqual({ v: 20 });
      expect(await prepared(db)).toContain(READ_V);
      // In a transaction too, and a rollback leaves the statement prepared (it is not transactional).
      await db
        .transaction()
        .execute(async (trx) => {
          expect(await readV(trx, 1)).toEqual({ v: 10 });
          await trx.updateTable('t').set({ v: 11 }).where('id', '=', 1).execute();
          throw new Error('roll back');
        })
        .catch(() => undefined);
      expect(await readV(db, 1)).toEqual({ v: 10 });
      expect(await prepared(db)).toContain(READ_V);

      // Another instance's migration changes the column's type: the prepared plan's result would change shape.
      await sql`alter table t alter column v type text`.execute(db);
      await expect(readV(db, 1)).rejects.toThrow(/cached plan must not change result type/);
      expect(await readV(db, 1)).toEqual({ v: '10' });
      expect(await readV(db, 2)).toEqual({ v: '20' });
    } finally {
      await store.close();
    }
  });

  it('off (DATABASE_NAMED_STATEMENTS=0): nothing is prepared', async () => {
    const store = await openStore(await oneConnection(), { namedStatements: false });
    const db = store.db as Db;
    try {
      await sql`create table t (id integer primary key, v integer not null)`.execute(db);
      await sql`insert into t values (1, 10)`.execute(db);
      for (let i = 0; i < 3; i++) expect(await readV(db, 1)).toEqual({ v: 10 });
      expect(await prepared(db)).toEqual([]);
    } finally {
      await store.close();
    }
  });
});
