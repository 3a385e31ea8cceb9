/**
 * Stores migrate while another client drops its schemas (as parallel test files and a fleet's old test schemas
 * do): Kysely's introspection reads every schema's tables, so a schema dropped at that moment fails it with
 * 'schema "…" does not exist'. Both the store's migration and the tests' older-release stores try again, so
 * neither fails for a schema that is not theirs. PostgreSQL only (TEST_DATABASE_URL).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/server/store/migrations';
import { openStore } from '../../src/server/store/store';
import { migrationsBefore, storeMigratedWith } from '../support/old-store';
import { postgresBackend } from './orders-support';

const backend = postgresBackend();

describe('migrating while another client drops schemas', () => {
  afterAll(() => backend.cleanup());
  it.runIf(backend.enabled)(
    'neither an older release nor the store fails on a schema it does not own',
    async () => {
      const churn = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
      await churn.connect();
      let stop = false;
      let churned = 0;
      const loop = (async () => {
        while (!stop) {
          const names = Array.from({ length: 4 }, () => `churn_${randomBytes(5).toString('hex')}`);
          for (const n of names)
            await churn.query(`create schema "${n}"; create table "${n}".t (id serial primary key, v text)`);
          for (const n of names) await churn.query(`drop schema "${n}" cascade`);
          churned += names.length;
          await new Promise((r) => setTimeout(r, 20));
        }
      })();
      try {
        for (let i = 0; i < 3; i++) {
          const config = await backend.fresh();
          const old = await storeMigratedWith(config, migrationsBefore(migrations, '0011'));
          await old.destroy();
          const store = await openStore(config);
          expect(store.ready()).toBe(true);
          await store.close();
        }
      } finally {
        stop = true;
        await loop;
        await churn.end();
      }
      expect(churned).toBeGreaterThan(0);
    },
    120_000,
  );
});
