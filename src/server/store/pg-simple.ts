/**
 * PostgreSQL round trips a busy instance cannot afford (docs/decisions/drops.md "The stock row's lock for
 * PostgreSQL's own time"): a statement sent together with the `commit` that ends its transaction, so a row it
 * locks is held for PostgreSQL's own time, not until the instance's next turn to send `commit`.
 *
 * - `withCommit`: the compiled statement with its parameters written in as literals (pg's own `escapeLiteral` for
 *   text; numbers as numbers; null), then `; commit`: one simple-protocol query, two statements, one round trip.
 *   When the statement fails, PostgreSQL skips the commit and the transaction is aborted (the caller rolls back).
 * - `answerEndedTransactions`: a pool client's `commit` or `rollback` asked when its transaction has already ended
 *   (the client's last ReadyForQuery said idle: the statement above carried the commit) is answered without a round
 *   trip, as PostgreSQL would answer it (a warning that no transaction is in progress, and nothing done). Kysely's
 *   transaction then ends as usual.
 */
import pg from 'pg';
import type { CompiledQuery } from 'kysely';

/** One parameter as an SQL literal. */
function literal(v: unknown): string {
  if (v === null || v === undefined) return 'null';
  if (typeof v === 'string') return pg.escapeLiteral(v);
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  throw new TypeError(`withCommit: a parameter of type ${typeof v} cannot be written as a literal`);
}

/** `$n` placeholders outside quoted text and identifiers become their parameters' literals. */
export function inlineParameters(query: Pick<CompiledQuery, 'sql' | 'parameters'>): string {
  return query.sql.replace(
    /('(?:[^']|'')*'|"(?:[^"]|"")*")|\$(\d+)/g,
    (whole, quoted: string | undefined, n) => {
      if (quoted !== undefined) return quoted;
      const i = Number(n) - 1;
      if (i < 0 || i >= query.parameters.length) throw new RangeError(`withCommit: no parameter $${n}`);
      return literal(query.parameters[i]);
    },
  );
}

/** The statement and the `commit` of its transaction, as one query (no parameters: the simple protocol). */
export const withCommit = (query: Pick<CompiledQuery, 'sql' | 'parameters'>): string =>
  `${inlineParameters(query)};\ncommit`;

const ENDS = /^\s*(commit|rollback)\s*;?\s*$/i;

/** On a pool's 'connect': this client's `commit`/`rollback` outside a transaction is answered here. */
export function answerEndedTransactions(client: pg.PoolClient): void {
  // The prototype's query, looked up at each call (a wrapper put on it later, by a test, still sees every statement).
  const proto = Object.getPrototypeOf(client) as { query: (...args: unknown[]) => unknown };
  const send = (...args: unknown[]) => proto.query.apply(client, args);
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const text = typeof args[0] === 'string' ? args[0] : undefined;
    const m = text === undefined ? null : ENDS.exec(text);
    if (m && client.getTransactionStatus() === 'I' && !args.some((a) => typeof a === 'function'))
      return Promise.resolve({ command: m[1]!.toUpperCase(), rowCount: null, rows: [], fields: [] });
    return send(...args);
  };
}
