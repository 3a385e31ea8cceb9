import net from 'node:net';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { describe, expect, it } from 'vitest';
import { answerEndedTransactions, inlineParameters, withCommit } from './pg-simple';

describe('inlineParameters', () => {
  it('writes each $n as its literal, leaving quoted text and identifiers alone', () => {
    const q = {
      sql: `select $1::text, $2::integer, $3, '$1 stays' as "$2 too", $10`,
      parameters: ["it's a \\ test", 7, null, 4, 5, 6, 7, 8, 9, 'ten'],
    };
    expect(inlineParameters(q)).toBe(
      `select ${pg.escapeLiteral("it's a \\ test")}::text, 7::integer, null, '$1 stays' as "$2 too", 'ten'`,
    );
    expect(withCommit({ sql: 'update t set a = $1', parameters: [1] })).toBe('update t set a = 1;\ncommit');
  });

  it('refuses what it cannot write as a literal, and a missing parameter', () => {
    expect(() => inlineParameters({ sql: 'select $1', parameters: [{}] })).toThrow(/cannot be written/);
    expect(() => inlineParameters({ sql: 'select $1', parameters: [Number.NaN] })).toThrow(
      /cannot be written/,
    );
    expect(() => inlineParameters({ sql: 'select $2', parameters: [1] })).toThrow(/no parameter \$2/);
  });
});

describe.runIf(process.env.TEST_DATABASE_URL)('on PostgreSQL', () => {
  it('a literal comes back as it was; begin goes with the first statement; a carried commit is not sent again', async () => {
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    // What reaches the server: the prototype's query (what the wrapper sends on).
    const sent: string[] = [];
    const own = pg.Client.prototype.query;
    Object.defineProperty(client, 'query', {
      configurable: true,
      writable: true,
      value: (...args: unknown[]) => {
        if (typeof args[0] === 'string') sent.push(args[0]);
        return (own as (...a: unknown[]) => unknown).apply(client, args);
      },
    });
    const proxy = Object.create(client) as pg.PoolClient;
    try {
      // The wrapper goes on an object whose prototype is the counting client.
      answerEndedTransactions(proxy);
      const text = `quote ' backslash \\ dollar $1 unicode é`;
      const { rows } = await proxy.query<{ v: string }>(
        inlineParameters({ sql: 'select $1::text as v', parameters: [text] }),
      );
      expect(rows[0]!.v).toBe(text);

      // begin, then a simple statement: one query; the caller gets its own result.
      sent.length = 0;
      await proxy.query('begin');
      expect(sent).toEqual([]);
      const one = await proxy.query<{ n: number }>('select 1 as n');
      expect(one.rows).toEqual([{ n: 1 }]);
      expect(sent).toEqual(['begin;\nselect 1 as n']);
      expect(client.getTransactionStatus()).toBe('T');
      // The last statement carries the commit; Kysely's commit after it is answered here.
      const results = (await proxy.query(
        withCommit({ sql: 'select $1::integer as n', parameters: [5] }),
      )) as unknown as pg.QueryResult[];
      expect(results.map((r) => r.command)).toEqual(['SELECT', 'COMMIT']);
      expect(client.getTransactionStatus()).toBe('I');
      expect(await proxy.query('commit')).toMatchObject({ command: 'COMMIT', rows: [] });
      expect(sent).toHaveLength(2);

      // begin, then a statement with parameters: begin is sent just before it; the commit goes as usual.
      sent.length = 0;
      await proxy.query('begin');
      expect((await proxy.query('select $1::integer as n', [7])).rows).toEqual([{ n: 7 }]);
      expect(client.getTransactionStatus()).toBe('T');
      await proxy.query('commit');
      expect(client.getTransactionStatus()).toBe('I');
      expect(sent).toEqual(['begin', 'select $1::integer as n', 'commit']);

      // A transaction ended before any statement sends nothing.
      sent.length = 0;
      await proxy.query('begin');
      await proxy.query('rollback');
      expect(sent).toEqual([]);
      // A failed first statement: the transaction is aborted, its rollback is sent.
      await proxy.query('begin');
      await expect(proxy.query('select 1/0')).rejects.toThrow(/division by zero/);
      await proxy.query('rollback');
      expect(client.getTransactionStatus()).toBe('I');
      expect(sent).toEqual(['begin;\nselect 1/0', 'rollback']);
    } finally {
      await client.end();
    }
  });

  /**
   * Between the server and the client, a proxy that holds the server's bytes for 30 ms after each ErrorResponse: the
   * ReadyForQuery that follows it arrives in another packet, as it can on a loaded machine, and pg has already
   * rejected the failed query by then.
   */
  async function splittingProxy(): Promise<{ url: string; close: () => Promise<void> }> {
    const target = new URL(process.env.TEST_DATABASE_URL!);
    const sockets = new Set<net.Socket>();
    const server = net.createServer((down) => {
      const up = net.connect(Number(target.port || 5432), target.hostname);
      for (const s of [down, up]) {
        sockets.add(s);
        s.on('error', () => {
          down.destroy();
          up.destroy();
        });
        s.on('close', () => {
          down.destroy();
          up.destroy();
        });
      }
      down.setNoDelay(true);
      down.pipe(up);
      let pending = Buffer.alloc(0);
      let chain: Promise<unknown> = Promise.resolve();
      up.on('data', (chunk: Buffer) => {
        pending = Buffer.concat([pending, chunk]);
        while (pending.length >= 5 && pending.length >= 1 + pending.readInt32BE(1)) {
          const message = pending.subarray(0, 1 + pending.readInt32BE(1));
          pending = pending.subarray(message.length);
          const isError = message[0] === 0x45; // 'E'
          chain = chain.then(async () => {
            down.write(message);
            if (isError) await delay(30);
          });
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as net.AddressInfo;
    const url = new URL(target.href);
    url.hostname = '127.0.0.1';
    url.port = String(port);
    return {
      url: url.href,
      close: async () => {
        for (const s of sockets) s.destroy();
        await new Promise((resolve) => server.close(resolve));
      },
    };
  }

  it('a failed first statement is rolled back on the server although its ReadyForQuery comes in a later packet', async () => {
    const proxy = await splittingProxy();
    const pool = new pg.Pool({ connectionString: proxy.url, max: 1 });
    pool.on('connect', answerEndedTransactions);
    try {
      const client = await pool.connect();
      await client.query('begin');
      // begin goes with it: the transaction is aborted on the server, and pg rejects before it hears so.
      await expect(client.query('select 1/0')).rejects.toThrow(/division by zero/);
      await client.query('rollback');
      expect(client.getTransactionStatus()).toBe('I');
      client.release();
      // The pool's only connection is usable by its next user (with the rollback answered locally, it was not:
      // "current transaction is aborted").
      expect((await pool.query<{ n: number }>('select 1 as n')).rows).toEqual([{ n: 1 }]);
      // And a later transaction's carried commit is still answered without a round trip.
      const again = await pool.connect();
      await again.query('begin');
      await again.query(withCommit({ sql: 'select $1::integer as n', parameters: [2] }));
      expect(again.getTransactionStatus()).toBe('I');
      expect(await again.query('commit')).toMatchObject({ command: 'COMMIT', rows: [] });
      again.release();
    } finally {
      await pool.end();
      await proxy.close();
    }
  });
});
