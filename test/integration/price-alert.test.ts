/**
 * The sellers are alerted once per episode while the two price sources disagree: the real server (SQLite, and
 * PostgreSQL with TEST_DATABASE_URL) reading fake DexScreener and GeckoTerminal feeds in their real shapes, the
 * alert queued by the order module in the outbox (a row with no order) and delivered by the outbox worker; a
 * second instance on the same database (a restart, or another API instance) does not repeat an open episode.
 */
import { Keypair } from '@solana/web3.js';
import { afterAll, beforeEach, afterEach, describe, expect, it } from 'vitest';
import { renderEmail } from '../../src/server/mail/templates';
import { startServer, type RunningServer } from '../../src/server/server';
import { loadSettings, type Settings } from '../../src/server/settings';
import type { StoreConfig } from '../../src/server/store/store';
import { postgresBackend, RecordingTransport, sqliteBackend, type Backend } from './orders-support';
import { Feeds, MINT, PAIR } from './price-feeds';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';

const backends: Backend[] = [sqliteBackend(), postgresBackend()];
afterAll(async () => {
  for (const b of backends) await b.cleanup();
});

describe.each(backends)('price alert ($name)', (backend) => {
  let feeds: Feeds;
  let settings: Settings;
  let config: StoreConfig;
  const running: RunningServer[] = [];
  beforeEach(async () => {
    feeds = new Feeds();
    await feeds.listen();
    const key = () => Keypair.generate().publicKey.toBase58();
    settings = loadSettings({
      PORT: '0',
      SOLANA_RPC_URL: 'http://127.0.0.1:9',
      MIGRATE_ON_START: '1', // a fresh store per test: migrated at start (the release step: migrate.test.ts)
      MAIL_TRANSPORT: 'file',
      PRICE_API_URL: `${feeds.base}/dex`,
      PRICE_SECOND_SOURCE_URL: `${feeds.base}/gecko`,
      PRICE_PAIR_ADDRESS: PAIR,
      QUOTE_SECRET: 'test-secret-0123456789-0123456789-abcdef',
      SELLER_EMAIL: 'glass@shop.test',
      VENDOR_GORILLA_EMAIL: 'rosin@shop.test',
      CLAIM_MINT: MINT,
      RECIPIENT_COOPERSGLASS: key(),
      RECIPIENT_GORILLA: key(),
      DATABASE_URL: 'sqlite:unused.sqlite',
      DATA_KEYS: `k1:${Buffer.alloc(32, 7).toString('base64')}`,
    });
    config = await backend.fresh();
  });
  afterEach(async () => {
    for (const s of running.splice(0)) await s.close();
    await feeds.close();
  });
  const start = async (transport: RecordingTransport) => {
    const s = await startServer(settings, {
      payoutAccounts: payoutAccountsAssumedToExist,
      store: config,
      transport,
      startOutbox: false,
      expireEveryMs: 0,
    });
    running.push(s);
    return s;
  };

  it.runIf(backend.enabled)('one e-mail per seller address per episode, also across instances', async () => {
    const transport = new RecordingTransport();
    const a = await start(transport);
    const price = a.price!;
    expect(a.price?.current()).toMatchObject({ spotUsd: '0.004', secondUsd: '0.00401' });

    feeds.market = { ...feeds.market, geckoPrice: '0.0046' }; // 15 % apart
    for (let i = 0; i < 3; i++) await price.refresh();
    expect(price.current()?.refusal?.reason).toBe('sources_disagree');
    /** The alert rows once the (asynchronous) alert writes have settled on `n`. */
    const settle = async (n: number) => {
      const count = async () =>
        (await a.store.db.selectFrom('outbox').select('id').where('kind', '=', 'price_alert').execute())
          .length;
      for (let i = 0; i < 100 && (await count()) < n; i++) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 100)); // and no more come
      return count();
    };
    expect(await settle(2)).toBe(2);
    await a.outbox.runOnce();
    expect(transport.sent.map((m) => [m.kind, m.role, m.to, m.orderId])).toEqual([
      ['price_alert', 'seller', 'glass@shop.test', ''],
      ['price_alert', 'seller', 'rosin@shop.test', ''],
    ]);
    const mail = renderEmail(transport.sent[0]!);
    expect(mail.subject).toBe('$CLAIM price alert: quotes paused, the price sources disagree');
    expect(mail.text).toContain(
      'disagree by 15.00 % (DexScreener $0.004, GeckoTerminal $0.0046; the limit is 10.00 %)',
    );
    expect(mail.text).not.toContain('Order:');

    // Another instance on the same database (a restart, or a second API instance) sees the open episode.
    const other = new RecordingTransport();
    const b = await start(other);
    await b.price!.refresh();
    expect(b.price?.current()?.refusal?.reason).toBe('sources_disagree');
    expect(await settle(2)).toBe(2);

    // The sources agree again: the episode ends; the next disagreement is a new one.
    feeds.market = { ...feeds.market, geckoPrice: '0.00401' };
    await price.refresh();
    expect(price.current()?.refusal).toBeUndefined();
    expect(await settle(2)).toBe(2);
    feeds.market = { ...feeds.market, geckoPrice: '0.0035' };
    await price.refresh();
    expect(await settle(4)).toBe(4);
    await a.outbox.runOnce();
    expect(transport.sent).toHaveLength(4);

    // The outbox keeps its foreign key to orders: a row naming an order that does not exist is refused.
    const row = await a.store.db.selectFrom('outbox').selectAll().executeTakeFirstOrThrow();
    await expect(
      a.store.db
        .insertInto('outbox')
        .values({ ...row, id: 'x', order_id: 'no-such-order', payment_signature: 'x' })
        .execute(),
    ).rejects.toThrow();
  });
});
