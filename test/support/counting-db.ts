/**
 * A Kysely on one PostgreSQL schema whose pool counts the statements whose text matches `pattern` (every client the
 * pool opens): for tests that check how many statements a burst costs (rate-limit counts, a drop line's joins).
 */
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '../../src/server/store/schema';

export function countingDb(
  url: string | undefined,
  schema: string,
  pattern: RegExp,
): { db: Kysely<Database>; count: () => number } {
  let n = 0;
  const pool = new pg.Pool({ connectionString: url, max: 4, options: `-c search_path=${schema}` });
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown;
    (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
      const first = args[0] as string | { text?: string };
      const text = typeof first === 'string' ? first : (first.text ?? '');
      if (pattern.test(text)) n++;
      return query(...args);
    };
  });
  return { db: new Kysely<Database>({ dialect: new PostgresDialect({ pool }) }), count: () => n };
}
