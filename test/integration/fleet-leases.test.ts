/**
 * One price poller and one housekeeping timer for a fleet (issue 31, item 5): two server instances composed as
 * main.ts runs them on one PostgreSQL store. Exactly one polls the price sources and runs the housekeeping; the
 * other polls nothing and serves the poller's price (same reading, same time). When the poller stops (close: it
 * hands its leases over), the other takes both over within the lease time and polls itself. Runs when
 * TEST_DATABASE_URL is set.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalnet } from '../support/localnet.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { loadSettings } from '../../src/server/settings/index.js';
import { waitFor } from './payments-support.js';

const PG_URL = process.env.TEST_DATABASE_URL;
/** ops/lease.ts's default: the longest a crashed holder keeps a lease. */
const LEASE_MS = 15_000;

describe.runIf(PG_URL)('one price poller and one housekeeping for a fleet (PostgreSQL)', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });

  it('exactly one instance polls and keeps house; when it stops the other takes over within the lease time', async () => {
    const net = await startLocalnet({ port: 0, slotMs: 100 });
    cleanups.push(() => net.close());
    const keys = net.keys!;
    const schema = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
    cleanups.push(async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
    });
    const dir = mkdtempSync(join(tmpdir(), 'claim-fleet-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const settings = loadSettings(
      {
        PORT: '0',
        LOCALNET_PORT: String(net.port),
        DATABASE_URL: join(dir, 'unused.sqlite'),
        MAIL_TRANSPORT: 'file',
        MAIL_DIR: join(dir, 'mail'),
        PRICE_REFRESH_MS: '10000',
      },
      {
        claimMint: keys.mint.toBase58(),
        recipients: {
          coopersglass: keys.recipients.coopersglass.toBase58(),
          gorilla: keys.recipients.gorilla.toBase58(),
        },
      },
    );
    const start = async () => {
      const server = await startServer(settings, {
        store: { kind: 'postgres', url: PG_URL ?? '', schema },
        retention: false,
      });
      cleanups.push(() => server.close());
      return server;
    };
    const a = await start();
    const b = await start();
    const both = [a, b];
    const leaders = () => ({
      price: both.filter((s) => s.leading().price),
      housekeeping: both.filter((s) => s.leading().housekeeping),
    });
    expect(leaders().price).toHaveLength(1);
    expect(leaders().housekeeping).toHaveLength(1);
    const poller = leaders().price[0] as RunningServer;
    const other = poller === a ? b : a;

    // The other instance serves the poller's reading and has called no source.
    const served = await waitFor('the follower to serve the poller’s price', () => {
      const mine = other.price?.current();
      const theirs = poller.price?.current();
      return mine && theirs && mine.fetchedAt.getTime() === theirs.fetchedAt.getTime() ? mine : undefined;
    });
    expect(served.priceUsd).toBe(poller.price?.current()?.priceUsd);
    const res = await fetch(`${other.url}/api/price`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { priceUsd: string }).priceUsd).toBe(served.priceUsd);
    expect(poller.price?.upstreamCalls).toBeGreaterThan(0);
    expect(other.price?.upstreamCalls).toBe(0);
    // Still one of each after several lease renewals.
    await new Promise((r) => setTimeout(r, 6_000));
    expect(leaders().price).toEqual([poller]);
    expect(other.price?.upstreamCalls).toBe(0);

    // The poller stops: it hands its leases over, and the other takes both within the lease time.
    const keeperStops = leaders().housekeeping[0] === poller;
    const stoppedAt = Date.now();
    both.splice(both.indexOf(poller), 1);
    await poller.close();
    await waitFor(
      'the other instance to take the price poller over',
      () => (other.leading().price ? true : undefined),
      LEASE_MS,
      100,
    );
    const tookOverMs = Date.now() - stoppedAt;
    await waitFor(
      'the other instance to keep house',
      () => (other.leading().housekeeping ? true : undefined),
      LEASE_MS,
    );
    console.info(
      `price poller taken over ${tookOverMs} ms after the poller stopped (lease ${LEASE_MS} ms)` +
        (keeperStops ? '' : '; the housekeeping was already the other instance’s'),
    );
    await waitFor('the new poller to call the source', () =>
      (other.price?.upstreamCalls ?? 0) > 0 ? true : undefined,
    );
  });
});
