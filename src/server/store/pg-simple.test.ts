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
  it('a literal comes back as it was; a commit carried by the last statement is not sent again', async () => {
    const client = new pg.Client({ connectionString: process.env.TEST_DATABASE_URL });
    await client.connect();
    try {
      answerEndedTransactions(client as unknown as pg.PoolClient);
      const text = `quote ' backslash \\ dollar $1 unicode é`;
      const { rows } = await client.query<{ v: string }>(
        inlineParameters({ sql: 'select $1::text as v', parameters: [text] }),
      );
      expect(rows[0]!.v).toBe(text);
      await client.query('begin');
      const results = (await client.query(
        withCommit({ sql: 'select $1::integer as n', parameters: [5] }),
      )) as unknown as pg.QueryResult[];
      expect(results.map((r) => r.command)).toEqual(['SELECT', 'COMMIT']);
      expect(client.getTransactionStatus()).toBe('I');
      const notices: string[] = [];
      client.on('notice', (n) => notices.push(n.message ?? ''));
      expect(await client.query('commit')).toMatchObject({ command: 'COMMIT', rows: [] });
      // In a transaction, a commit is sent as usual.
      await client.query('begin');
      expect(client.getTransactionStatus()).toBe('T');
      await client.query('commit');
      expect(client.getTransactionStatus()).toBe('I');
      expect(notices).toEqual([]);
    } finally {
      await client.end();
    }
  });
});
