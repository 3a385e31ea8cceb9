/**
 * A new PostgreSQL connection's first statements are its dearest: the backend loads each table's and index's
 * catalog entries on its first use of them (~1–3 ms a table here, against ~0.5 ms once loaded) and compiles a
 * PL/pgSQL function on its first call (the drop line's advance: 12–17 ms on its first call, 1–2 ms after, and it
 * holds the line's lock while its statements are planned). A pool opened at start and kept (DATABASE_POOL_WARM)
 * otherwise pays that on the first busy second that reaches each connection: a drop's start, where twenty cold
 * connections across two instances did it at once (docs/decisions/drops.md "Cold connections at the drop's start").
 *
 * `warmClients` runs on each connection, in one simple-protocol query (`warmQuery`), a plan-and-open of every
 * table of the store's schema (`select * … limit 0`: opened, planned with its indexes, nothing read) and a call of
 * each PL/pgSQL function of the schema that `WARM_CALLS` names, inside a transaction that is rolled back. What it
 * costs is paid at start, ~10 ms a connection.
 */
import type pg from 'pg';

/**
 * The schema's PL/pgSQL functions, each called once so the connection compiles it: with arguments that name
 * nothing (no product has the empty id), in a transaction rolled back. A function not (yet) in the schema is left
 * out.
 */
export const WARM_CALLS: readonly { signature: string; call: string }[] = [
  {
    signature: 'drop_line_advance(text,text,text)',
    call: `select * from drop_line_advance('', '', '')`,
  },
  {
    signature: 'drop_line_join(text,text[],float8[],text[],text,text)',
    call: `select * from drop_line_join('', '{}', '{}', '{}', '', '')`,
  },
  {
    // Its lock's key is the empty text's, not the fleet budget's.
    signature: 'rpc_budget_claim(text,text,jsonb,bigint,jsonb)',
    call: `select * from rpc_budget_claim('', '', '[]', 0, '[]')`,
  },
];

/** How a warm-up query begins (then its schema's name), as pg_stat_activity shows it. */
export const WARM_MARK = '/* claim: warm-up of a new connection, schema ';

const quoteIdent = (name: string) => `"${name.replace(/"/g, '""')}"`;

/** The warm-up query for the connection's schema (its first `search_path` entry), or undefined when it has no table. */
export async function warmQuery(client: pg.ClientBase): Promise<string | undefined> {
  const { rows } = await client.query<{ tablename: string; schema: string }>(
    `select tablename, current_schema() as schema from pg_tables where schemaname = current_schema() order by tablename`,
  );
  if (rows.length === 0) return undefined;
  const { rows: fns } = await client.query<{ signature: string }>(
    `select s as signature from unnest($1::text[]) s where to_regprocedure(s) is not null`,
    [WARM_CALLS.map((c) => c.signature)],
  );
  const present = new Set(fns.map((f) => f.signature));
  const tables = rows.map((r) => `select * from ${quoteIdent(r.tablename)} limit 0`);
  const calls = WARM_CALLS.filter((c) => present.has(c.signature)).map((c) => c.call);
  // The calls first: pg_stat_activity shows the first 1 kB of a query (track_activity_query_size).
  return `${WARM_MARK}${rows[0]!.schema.replace(/\*\//g, '')} */ ${[
    ...(calls.length > 0 ? ['begin', ...calls, 'rollback'] : []),
    ...tables,
  ].join(';\n')}`;
}

/**
 * Warms each client (best effort): a client whose warm-up fails is destroyed rather than given back (its
 * transaction may be left open), and the pool opens another when it needs one. Every client is released.
 */
export async function warmClients(clients: readonly pg.PoolClient[]): Promise<void> {
  const first = clients[0];
  if (!first) return;
  let text: string | undefined;
  try {
    text = await warmQuery(first);
  } catch {
    text = undefined;
  }
  await Promise.all(
    clients.map(async (c) => {
      if (text === undefined) return c.release();
      try {
        await c.query(text);
        c.release();
      } catch (err) {
        c.release(err instanceof Error ? err : true);
      }
    }),
  );
}
