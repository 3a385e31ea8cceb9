/**
 * The persisted price history (src/server/price/kysely-history.ts) on SQLite, and on PostgreSQL when
 * TEST_DATABASE_URL is set: ordered reads, 24 h pruning, and /api/price/history surviving a server restart.
 */
import { TEST_DATA_KEYS } from '../support/fixtures';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Keypair } from '@solana/web3.js';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createKyselyPriceHistoryStore } from '../../src/server/price/kysely-history';
import { startServer } from '../../src/server/server';
import { loadSettings } from '../../src/server/settings';
import { openStore, type StoreConfig } from '../../src/server/store/store';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';

const PG_URL = process.env.TEST_DATABASE_URL;
const dirs: string[] = [];
const schemas: string[] = [];

const backends: { name: string; enabled: boolean; fresh: () => StoreConfig }[] = [
  {
    name: 'sqlite',
    enabled: true,
    fresh: () => {
      const d = mkdtempSync(join(tmpdir(), 'claim-ph-'));
      dirs.push(d);
      return { kind: 'sqlite', file: join(d, 'store.sqlite') };
    },
  },
  {
    name: 'postgres',
    enabled: Boolean(PG_URL),
    fresh: () => {
      const schema = `ph_${randomBytes(4).toString('hex')}`;
      schemas.push(schema);
      return { kind: 'postgres', url: PG_URL ?? '', schema };
    },
  },
];

afterAll(async () => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  if (PG_URL && schemas.length) {
    const c = new pg.Client({ connectionString: PG_URL });
    await c.connect();
    for (const s of schemas.splice(0)) await c.query(`drop schema if exists "${s}" cascade`);
    await c.end();
  }
});

const T0 = Date.parse('2030-01-01T12:00:00.000Z');
const H = 60 * 60_000;

for (const backend of backends) {
  describe.skipIf(!backend.enabled)(`Kysely price history (${backend.name})`, () => {
    it('returns points since a time, oldest first, and prunes those older than 24 h on append', async () => {
      let now = T0;
      const store = await openStore(backend.fresh());
      try {
        const history = createKyselyPriceHistoryStore(store.db, { now: () => now });
        await history.append({ t: new Date(T0 - 2 * H), priceUsd: '0.004' });
        await history.append({ t: new Date(T0 - H), priceUsd: '0.0041' });
        await history.append({ t: new Date(T0 - H), priceUsd: '0.9' }); // same instant (another instance): first wins
        await history.append({ t: new Date(T0), priceUsd: '0.00000000123' });
        expect(await history.since(new Date(T0 - 90 * 60_000))).toEqual([
          { t: new Date(T0 - H), priceUsd: '0.0041' },
          { t: new Date(T0), priceUsd: '0.00000000123' },
        ]);
        expect((await history.since(new Date(0))).map((p) => p.priceUsd)).toEqual([
          '0.004',
          '0.0041',
          '0.00000000123',
        ]);

        now = T0 + 23 * H; // T0-2h is now 25 h old, T0-1h is 24 h old (kept)
        await history.append({ t: new Date(now), priceUsd: '0.005' });
        expect((await history.since(new Date(0))).map((p) => p.t.toISOString())).toEqual([
          new Date(T0 - H).toISOString(),
          new Date(T0).toISOString(),
          new Date(T0 + 23 * H).toISOString(),
        ]);
        now = T0 + 48 * H;
        expect(await history.prune()).toBe(3);
        expect(await history.since(new Date(0))).toEqual([]);
      } finally {
        await store.close();
      }
    });
  });
}

describe('startServer persists the price history', () => {
  let upstream: Server | undefined;
  afterAll(() => new Promise<void>((r) => (upstream ? upstream.close(() => r()) : r())));

  it('GET /api/price/history keeps the points of the previous run after a restart', async () => {
    let price = '0.0042';
    upstream = createServer((req, res) => {
      const pair = decodeURIComponent(String(req.url).split('/').pop() ?? '');
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ schemaVersion: '1.0.0', pairs: [{ pairAddress: pair, priceUsd: price }] }));
    });
    await new Promise<void>((r) => upstream?.listen(0, '127.0.0.1', () => r()));
    const { port } = upstream.address() as AddressInfo;
    const dir = mkdtempSync(join(tmpdir(), 'claim-ph-srv-'));
    dirs.push(dir);
    const key = () => Keypair.generate().publicKey.toBase58();
    const settings = loadSettings({
      PORT: '0',
      DATA_KEYS: TEST_DATA_KEYS,
      SOLANA_RPC_URL: 'http://127.0.0.1:9',
      MIGRATE_ON_START: '1', // a fresh store per test: migrated at start (the release step: migrate.test.ts)
      PRICE_API_URL: `http://127.0.0.1:${port}`,
      QUOTE_SECRET: 'test-secret-0123456789-0123456789-abcdef',
      SELLER_EMAIL: 'seller@shop.test',
      CLAIM_MINT: key(),
      RECIPIENT_COOPERSGLASS: key(),
      RECIPIENT_GORILLA: key(),
      DATABASE_URL: join(dir, 'store.sqlite'),
      MAIL_TRANSPORT: 'file',
      MAIL_DIR: join(dir, 'mail'),
    });
    const history = async (s: Awaited<ReturnType<typeof startServer>>) =>
      (await s.app.inject({ method: 'GET', url: '/api/price/history' })).json() as {
        points: { t: string; priceUsd: string }[];
      };
    const waitFor = async (s: Awaited<ReturnType<typeof startServer>>, n: number) => {
      for (let i = 0; i < 100; i++) {
        const rows = await s.store.db.selectFrom('price_history').select('t').execute();
        if (rows.length >= n) return;
        await new Promise((r) => setTimeout(r, 20));
      }
      throw new Error(`price_history never reached ${n} rows`);
    };

    const first = await startServer(settings, {
      payoutAccounts: payoutAccountsAssumedToExist,
      listen: false,
      startOutbox: false,
      expireEveryMs: 0,
    });
    await waitFor(first, 1); // the append is asynchronous to the refresh
    const before = await history(first);
    expect(before.points.map((p) => p.priceUsd)).toEqual(['0.0042']);
    await first.close();

    price = '0.0043';
    const second = await startServer(settings, {
      payoutAccounts: payoutAccountsAssumedToExist,
      listen: false,
      startOutbox: false,
      expireEveryMs: 0,
    });
    try {
      await waitFor(second, 2);
      const after = await history(second);
      expect(after.points[0]).toEqual(before.points[0]);
      expect(after.points.map((p) => p.priceUsd)).toEqual(['0.0042', '0.0043']);
    } finally {
      await second.close();
    }
  });
});
