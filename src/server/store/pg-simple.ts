/**
 * PostgreSQL round trips a busy instance cannot afford (docs/decisions/drops.md "The stock row's lock for
 * PostgreSQL's own time"): a statement sent together with the `commit` that ends its transaction, so a row it
 * locks is held for PostgreSQL's own time, not until the instance's next turn to send `commit`.
 *
 * - `withCommit`: the compiled statement with its parameters written in as literals (pg's own `escapeLiteral` for
 *   text; numbers as numbers; null), then `; commit`: one simple-protocol query, two statements, one round trip.
 *   When the statement fails, PostgreSQL skips the commit and the transaction is aborted (the caller rolls back).
 * - `answerEndedTransactions`: a pool client's `begin` goes with its transaction's first statement, and a `commit` or
 *   `rollback` asked when its transaction has already ended (the statement above carried the commit) is answered
 *   without a round trip, as PostgreSQL would answer it. Kysely's transactions then begin and end as usual.
 */
import pg from 'pg';
import type { CompiledQuery } from 'kysely';
import type { StatementNames } from './pg-named';

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
const BEGIN = /^\s*begin\s*;?\s*$/i;

const answered = (command: string) =>
  Promise.resolve({ command, rowCount: null, rows: [], fields: [] } as unknown as pg.QueryResult);

/**
 * On a pool's 'connect': this client's transactions cost no round trip of their own.
 * - `begin` is not sent by itself: it goes with the transaction's first statement (in the same query when that
 *   statement has no parameters, the simple protocol; else just before it). A transaction ended before any statement
 *   sends nothing. `begin` takes no snapshot and no lock: sent with the first statement, the transaction is the same.
 * - `commit` or `rollback` asked when the transaction has already ended (the client's last ReadyForQuery said idle:
 *   its last statement carried the commit, `withCommit`) is answered here, as PostgreSQL would answer it (a warning
 *   that no transaction is in progress, and nothing done).
 * - After a statement that failed, nothing is answered here until a statement succeeds: pg rejects a failed query on
 *   its ErrorResponse, before the ReadyForQuery that tells the transaction's state, so the state it reports then may
 *   be the one from before the statement (idle, when `begin` went with it). The `rollback` that follows is sent.
 * - With `names` (./pg-named.ts): a statement with parameters that `names` names is sent as that named statement
 *   (parsed once on this connection).
 * Callback-style calls and query objects are passed on as they are (after a pending `begin`).
 */
export function answerEndedTransactions(client: pg.PoolClient, names?: StatementNames): void {
  // The prototype's query, looked up at each call (a wrapper put on it later, by a test, still sees every statement).
  const proto = Object.getPrototypeOf(client) as { query: (...args: unknown[]) => unknown };
  const send = (...args: unknown[]) => {
    const [text, values] = args;
    const name =
      names && args.length === 2 && typeof text === 'string' && Array.isArray(values) && values.length > 0
        ? names.nameFor(text)
        : undefined;
    if (name === undefined) return proto.query.apply(client, args);
    return (proto.query.call(client, { name, text, values }) as Promise<unknown>).catch((e: unknown) => {
      names!.failed(text as string, e);
      throw e;
    });
  };
  let beginPending = false;
  // The last statement sent failed: the reported state may be stale (see above), so it is not trusted.
  let failed = false;
  const track = (result: unknown) => {
    if (!(result instanceof Promise)) return result;
    return result.then(
      (r: unknown) => {
        failed = false;
        return r;
      },
      (e: unknown) => {
        failed = true;
        throw e;
      },
    );
  };
  (client as unknown as { query: (...args: unknown[]) => unknown }).query = (...args: unknown[]) => {
    const text = typeof args[0] === 'string' ? args[0] : undefined;
    const callback = args.some((a) => typeof a === 'function');
    const values = args[1];
    const simple = text !== undefined && !callback && !(Array.isArray(values) && values.length > 0);
    const idle = !failed && client.getTransactionStatus() === 'I';
    if (simple && idle && BEGIN.test(text)) {
      beginPending = true;
      return answered('BEGIN');
    }
    const end = simple ? ENDS.exec(text) : null;
    if (end && idle) {
      beginPending = false;
      return answered(end[1]!.toUpperCase());
    }
    if (!beginPending) return track(send(...args));
    beginPending = false;
    if (simple)
      // One query, the begin's result left out: the caller gets what its own statements return.
      return (
        track(send(`begin;\n${text}`, ...args.slice(1))) as Promise<pg.QueryResult | pg.QueryResult[]>
      ).then((r) => {
        const own = Array.isArray(r) ? r.slice(1) : [r];
        return own.length === 1 ? own[0] : own;
      });
    return (track(send('begin')) as Promise<unknown>).then(() => track(send(...args)));
  };
}
