/**
 * Buyer privacy on the real store (SQLite file with its WAL; PostgreSQL with pg_dump when TEST_DATABASE_URL is
 * set): personal data sealed at rest and out of the log, the seller console still showing and finding it, a
 * tampered value read as "details unreadable", key rotation (and the old key dropped afterwards), retention with
 * a tiny window, the buyer's download and deletion over HTTP.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { Writable } from 'node:stream';
import { Keypair } from '@solana/web3.js';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OrderCreated, OrderDataExport, OrderPageView, QuoteResponse } from '../../src/core/api';
import type { SellerOrderDetail, SellerOrderList } from '../../src/core/seller-api';
import { SEALED_PREFIX } from '../../src/server/privacy/seal';
import { startServer, type RunningServer } from '../../src/server/server';
import { loadSettings, type Settings } from '../../src/server/settings';
import type { StoreConfig } from '../../src/server/store/store';
import { restock } from '../support/stock';
import { injector, signInSeller } from '../support/seller-session';
import {
  Clock,
  fakeSignature,
  keys,
  PG_URL,
  postgresBackend,
  RecordingTransport,
  sqliteBackend,
  TestPrice,
  type Backend,
} from './orders-support';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';

const coopers = Keypair.generate();
const gorilla = Keypair.generate();
const key = (byte: number) => Buffer.alloc(32, byte).toString('base64');
const OLD_KEYS = `old:${key(11)}`;
const ROTATED_KEYS = `new:${key(12)},old:${key(11)}`;
const NEW_ONLY = `new:${key(12)}`;

function settings(dataKeys = OLD_KEYS, extra: Record<string, string> = {}): Settings {
  return loadSettings({
    DATA_KEYS: dataKeys,
    SOLANA_RPC_URL: 'http://127.0.0.1:9',
    MIGRATE_ON_START: '1', // a fresh store per test: migrated at start (the release step: migrate.test.ts)
    PRICE_API_URL: 'http://127.0.0.1:9',
    QUOTE_SECRET: 'test-secret-0123456789-0123456789-abcdef',
    SELLER_EMAIL: 'seller@shop.test',
    CLAIM_MINT: keys.mint,
    RECIPIENT_COOPERSGLASS: coopers.publicKey.toBase58(),
    RECIPIENT_GORILLA: gorilla.publicKey.toBase58(),
    PUBLIC_URL: 'https://shop.example',
    PORT: '0',
    MAIL_TRANSPORT: 'file',
    ...extra,
  });
}

/** Distinctive buyers: none of these strings may reach the store's files, a dump or the log. */
const WALLET_BUYER = {
  kind: 'international',
  fullName: 'Zebulon Quillfeather',
  email: 'zebulon.quill@privacy-test.example',
  address1: '4242 Obscurity Boulevard',
  city: 'Hushville',
  stateProvince: 'Nowhere County',
  postalCode: 'ZQ9 4QQ',
  country: 'Secretland',
};
const QR_BUYER = {
  kind: 'us',
  fullName: 'Marguerite Thistlewood',
  email: 'marguerite.t@privacy-test.example',
  address1: '77 Whisperwillow Crescent',
  city: 'Quietfield',
  usState: 'VT',
  zip: '05401',
};
const SECRETS = [
  WALLET_BUYER.fullName,
  WALLET_BUYER.email,
  WALLET_BUYER.address1,
  'Hushville',
  'Obscurity',
  QR_BUYER.fullName,
  QR_BUYER.email,
  'Whisperwillow',
  'Quietfield',
  'Thistlewood',
  'Quillfeather',
];

const backends = [sqliteBackend(), postgresBackend()];

describe.each(backends)('buyer privacy on $name', (backend: Backend) => {
  describe.runIf(backend.enabled)(`${backend.name} store`, () => {
    let config: StoreConfig;
    let server: RunningServer;
    let clock: Clock;
    let transport: RecordingTransport;
    let logLines: string[];
    let n = 0;

    async function start(dataKeys = OLD_KEYS, extra: Record<string, string> = {}) {
      logLines = [];
      const logStream = new Writable({
        write(chunk: Buffer, _enc, cb) {
          logLines.push(chunk.toString());
          cb();
        },
      });
      server = await startServer(settings(dataKeys, extra), {
        payoutAccounts: payoutAccountsAssumedToExist,
        store: config,
        priceSource: new TestPrice(clock, '0.5'),
        transport,
        now: clock.now,
        listen: false,
        startOutbox: false,
        expireEveryMs: 0,
        retention: false,
        logger: true,
        logStream,
      });
    }

    beforeEach(async () => {
      config = await backend.fresh();
      clock = new Clock();
      transport = new RecordingTransport();
      await start();
      await restock(server, 'sonic-crushed-opal-spillproof', 20);
      await restock(server, 'honey-dew-papaya-live-rosin', 20);
    });
    afterEach(async () => {
      await server.close();
    });
    afterAll(async () => {
      await backend.cleanup();
    });

    const inject = injector(() => server, 'https://shop.example');

    const signInAs = (key: Keypair) => signInSeller(inject, key);

    async function order(productId: string, shipping: object | undefined, method: 'wallet' | 'qr') {
      const q = await inject('POST', '/api/quotes', { body: { items: [{ productId, quantity: 1 }] } });
      expect(q.statusCode, q.body).toBe(200);
      const r = await inject('POST', '/api/orders', {
        body: {
          quote: q.json<QuoteResponse>().quote,
          ...(shipping ? { shipping } : {}),
          paymentMethod: method,
        },
        headers: { 'idempotency-key': `privacy-${++n}` },
      });
      expect(r.statusCode, r.body).toBe(201);
      return r.json<OrderCreated>();
    }
    async function pay(o: OrderCreated) {
      const r = await server.orders.recordPayment(
        { orderId: o.orderId },
        {
          signature: fakeSignature(),
          receivedBaseUnits: BigInt(o.amountBaseUnits),
          finalized: true,
          blockTime: null,
        },
      );
      expect(r.ok).toBe(true);
    }
    const tokenOf = (o: OrderCreated) => o.orderUrl.split('/order/')[1] ?? '';

    /** A paid wallet order and a QR order whose details came with "Send Order Confirmation", e-mails sent. */
    async function twoPurchases() {
      const wallet = await order('sonic-crushed-opal-spillproof', WALLET_BUYER, 'wallet');
      await pay(wallet);
      const qr = await order('honey-dew-papaya-live-rosin', undefined, 'qr');
      const confirm = await inject('POST', `/api/orders/${qr.orderId}/confirmation`, {
        body: { shipping: QR_BUYER, token: tokenOf(qr) },
      });
      expect(confirm.statusCode, confirm.body).toBe(200);
      await pay(qr);
      await server.outbox.runOnce();
      expect(transport.sent.some((m) => m.to === WALLET_BUYER.email)).toBe(true);
      expect(transport.sent.some((m) => m.payload.from_name === QR_BUYER.fullName)).toBe(true);
      return { wallet, qr };
    }

    function storeBytes(): string {
      if (config.kind === 'sqlite') {
        const files = [config.file, `${config.file}-wal`].filter((f) => existsSync(f));
        expect(files.length).toBeGreaterThan(0);
        return files.map((f) => readFileSync(f).toString('latin1')).join('\n');
      }
      const dump = spawnSync('pg_dump', ['--data-only', '-n', config.schema ?? 'public', PG_URL ?? ''], {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      expect(dump.status, dump.stderr).toBe(0);
      return dump.stdout;
    }

    it('a wallet and a QR purchase leave no name, e-mail or address in the store, its WAL or dump, or the log; the console still shows and finds them', async () => {
      const { wallet, qr } = await twoPurchases();
      const seller = await signInAs(coopers);
      const ship = await inject('POST', `/api/seller/orders/${wallet.orderId}/ship`, {
        cookie: seller,
        body: { trackingNumber: 'TRACK-QUILL-1', carrier: 'Royal Mail' },
      });
      expect(ship.statusCode, ship.body).toBe(200);
      // The console searches by name, e-mail and street, and exports CSV.
      for (const term of [
        'quillfeather',
        'zebulon.quill@',
        'Obscurity Boulevard',
        wallet.orderId.slice(0, 8),
      ]) {
        const list = await inject('GET', `/api/seller/orders?q=${encodeURIComponent(term)}`, {
          cookie: seller,
        });
        expect(list.statusCode, list.body).toBe(200);
        const found = list.json<SellerOrderList>();
        expect(
          found.orders.map((o) => o.orderId),
          term,
        ).toEqual([wallet.orderId]);
        expect(found.orders[0]?.buyerName).toBe(WALLET_BUYER.fullName);
      }
      const detail = (
        await inject('GET', `/api/seller/orders/${wallet.orderId}`, { cookie: seller })
      ).json<SellerOrderDetail>();
      expect(detail.shipping.address1).toBe(WALLET_BUYER.address1);
      expect(detail.emails.find((e) => e.recipient === 'buyer')?.to).toBe(WALLET_BUYER.email);
      expect(detail.shipment?.trackingNumber).toBe('TRACK-QUILL-1');
      const csv = await inject('GET', '/api/seller/orders.csv?q=hushville', { cookie: seller });
      expect(csv.body).toContain(WALLET_BUYER.fullName);
      expect(csv.body).toContain(WALLET_BUYER.email);
      const gorillaSeller = await signInAs(gorilla);
      const qrFound = await inject('GET', '/api/seller/orders?q=whisperwillow', { cookie: gorillaSeller });
      expect(qrFound.json<SellerOrderList>().orders.map((o) => o.orderId)).toEqual([qr.orderId]);
      // Another vendor's CSV does not have them.
      const otherCsv = await inject('GET', '/api/seller/orders.csv', { cookie: gorillaSeller });
      expect(otherCsv.body).not.toContain(WALLET_BUYER.fullName);
      await server.outbox.runOnce();

      const page = (await inject('GET', `/api/order-pages/${tokenOf(wallet)}`)).json<OrderPageView>();
      expect(page.privacy).toMatchObject({ details: 'kept', deletion: 'allowed' });
      // The token's holder sees the details as typed (a typo can be caught), the e-mail masked.
      expect(page.details).toEqual({
        fullName: WALLET_BUYER.fullName,
        email: 'z•••@privacy-test.example',
        addressLines: ['4242 Obscurity Boulevard', 'Hushville, Nowhere County ZQ9 4QQ', 'Secretland'],
      });
      expect(JSON.stringify(page)).not.toContain(WALLET_BUYER.email);

      const bytes = storeBytes();
      expect(bytes).toContain(SEALED_PREFIX);
      for (const secret of SECRETS) expect(bytes, secret).not.toContain(secret);
      const log = logLines.join('\n');
      expect(log).toContain('/api/seller/orders?q=***');
      expect(log).not.toContain(tokenOf(wallet));
      expect(log).not.toMatch(/"ip"|remoteAddress/);
      for (const secret of [...SECRETS, 'quillfeather', 'hushville', 'whisperwillow'])
        expect(log, secret).not.toContain(secret);
    });

    it('a tampered or moved sealed value is refused: the order shows "details unreadable", nothing crashes', async () => {
      const { wallet, qr } = await twoPurchases();
      const row = await server.store.db
        .selectFrom('orders')
        .select('shipping_json')
        .where('id', '=', wallet.orderId)
        .executeTakeFirstOrThrow();
      const sealed = row.shipping_json ?? '';
      const at = sealed.length - 10;
      const bent = sealed.slice(0, at) + (sealed[at] === 'A' ? 'B' : 'A') + sealed.slice(at + 1);
      await server.store.db
        .updateTable('orders')
        .set({ shipping_json: bent })
        .where('id', '=', wallet.orderId)
        .execute();
      // The wallet buyer's sealed details copied onto the QR order: bound to another order, refused too.
      await server.store.db
        .updateTable('orders')
        .set({ shipping_json: sealed })
        .where('id', '=', qr.orderId)
        .execute();
      for (const o of [wallet, qr]) {
        const page = await inject('GET', `/api/order-pages/${tokenOf(o)}`);
        expect(page.statusCode).toBe(200);
        expect(page.json<OrderPageView>().privacy.details).toBe('unreadable');
      }
      const seller = await signInAs(coopers);
      const detail = await inject('GET', `/api/seller/orders/${wallet.orderId}`, { cookie: seller });
      expect(detail.statusCode, detail.body).toBe(200);
      expect(detail.json<SellerOrderDetail>().buyerName).toBe('details unreadable');
      const list = await inject('GET', '/api/seller/orders', { cookie: seller });
      expect(list.statusCode).toBe(200);
    });

    it('a plain value written into a sealed column reads as unreadable and is never adopted; rows from before sealing are sealed at start', async () => {
      const { wallet, qr } = await twoPurchases();
      const planted = JSON.stringify({ ...WALLET_BUYER, fullName: 'Planted Plaintext' });
      await server.store.db
        .updateTable('orders')
        .set({ shipping_json: planted })
        .where('id', '=', wallet.orderId)
        .execute();
      // A plain outbox body (an attacker's text for the mailer) and a plain seller note.
      await server.store.db
        .updateTable('outbox')
        .set({ payload_json: '{"from_name":"Planted","to_name":"Planted"}', state: 'pending' })
        .where('order_id', '=', qr.orderId)
        .where('role', '=', 'buyer')
        .execute();
      const page = await inject('GET', `/api/order-pages/${tokenOf(wallet)}`);
      expect(page.json<OrderPageView>().privacy.details).toBe('unreadable');
      const seller = await signInAs(coopers);
      const detail = await inject('GET', `/api/seller/orders/${wallet.orderId}`, { cookie: seller });
      expect(detail.json<SellerOrderDetail>().buyerName).toBe('details unreadable');
      expect(detail.body).not.toContain('Planted Plaintext');
      const before = transport.sent.length;
      await server.outbox.runOnce();
      expect(transport.sent.slice(before).some((m) => m.payload.from_name === 'Planted')).toBe(false);
      // A restart's sealing pass does not adopt them: they stay plain and unreadable, counted as such.
      await server.close();
      await start();
      expect(await server.orders.sealStoredData({ onlyPlain: true })).toMatchObject({ resealed: 0 });
      expect((await server.orders.sealedValuesByKey()).plain).toBeGreaterThanOrEqual(1);
      const again = await inject('GET', `/api/order-pages/${tokenOf(wallet)}`);
      expect(again.json<OrderPageView>().privacy.details).toBe('unreadable');
      // A row written before this store began sealing (older than migration 0017's application) is sealed as
      // it is at start, and reads.
      await server.store.db
        .updateTable('orders')
        .set({ created_at: '2020-01-01T00:00:00.000Z' })
        .where('id', '=', wallet.orderId)
        .execute();
      await server.close();
      await start();
      const row = await server.store.db
        .selectFrom('orders')
        .select('shipping_json')
        .where('id', '=', wallet.orderId)
        .executeTakeFirstOrThrow();
      expect(row.shipping_json?.startsWith(SEALED_PREFIX)).toBe(true);
      const legacy = await inject('GET', `/api/order-pages/${tokenOf(wallet)}`);
      expect(legacy.json<OrderPageView>().privacy.details).not.toBe('unreadable');
    });

    it('rotation re-seals every value under the new key; the old key can then be dropped; a stopped run resumes', async () => {
      const { wallet, qr } = await twoPurchases();
      await server.close();
      await start(ROTATED_KEYS);
      const before = await server.orders.sealedValuesByKey();
      expect(Object.keys(before)).toEqual(['old']);
      // A run that stops after its first batch (the process died there)…
      await expect(
        server.orders.sealStoredData({
          batchSize: 1,
          onBatch: () => {
            throw new Error('stopped mid-rotation');
          },
        }),
      ).rejects.toThrow('stopped mid-rotation');
      const mid = await server.orders.sealedValuesByKey();
      expect(mid.new).toBe(1);
      expect(mid.old).toBe((before.old ?? 0) - 1);
      // …is finished by running again (a restart first), and a second run finds nothing to do.
      await server.close();
      await start(ROTATED_KEYS);
      const done = await server.orders.sealStoredData({ batchSize: 2 });
      expect(done).toEqual({ resealed: (before.old ?? 0) - 1, unreadable: 0 });
      expect(await server.orders.sealStoredData()).toEqual({ resealed: 0, unreadable: 0 });
      expect(await server.orders.sealedValuesByKey()).toEqual({ new: before.old });
      // The old key dropped: everything still reads.
      await server.close();
      await start(NEW_ONLY);
      for (const [o, name] of [
        [wallet, WALLET_BUYER.fullName],
        [qr, QR_BUYER.fullName],
      ] as const) {
        const data = (await inject('GET', `/api/order-pages/${tokenOf(o)}/data`)).json<OrderDataExport>();
        expect(data.details).toMatchObject({ state: 'kept', shipping: { fullName: name } });
        expect(data.emails.every((e) => e.message !== null)).toBe(true);
      }
    });

    it('retention with a tiny window erases delivered and closed orders only, once, after their e-mails resolve', async () => {
      await server.close();
      await start(OLD_KEYS, { PERSONAL_DATA_RETENTION_DAYS: '0.0001' }); // 8.64 s
      const seller = await signInAs(coopers);
      const delivered = await order('sonic-crushed-opal-spillproof', WALLET_BUYER, 'wallet');
      await pay(delivered);
      expect(
        (
          await inject('POST', `/api/seller/orders/${delivered.orderId}/ship`, {
            cookie: seller,
            body: { trackingNumber: 'TRACK-1' },
          })
        ).statusCode,
      ).toBe(200);
      expect(
        (await inject('POST', `/api/seller/orders/${delivered.orderId}/delivered`, { cookie: seller }))
          .statusCode,
      ).toBe(200);
      const shippedOnly = await order('sonic-crushed-opal-spillproof', WALLET_BUYER, 'wallet');
      await pay(shippedOnly);
      await inject('POST', `/api/seller/orders/${shippedOnly.orderId}/ship`, {
        cookie: seller,
        body: { trackingNumber: 'TRACK-2' },
      });
      const paidOnly = await order('sonic-crushed-opal-spillproof', WALLET_BUYER, 'wallet');
      await pay(paidOnly);
      const expired = await order('sonic-crushed-opal-spillproof', WALLET_BUYER, 'wallet');
      clock.advance(16 * 60_000);
      await server.orders.expireOrders();
      // The e-mails of the delivered order are still waiting: nothing is erased before they resolve.
      clock.advance(60_000);
      const early = await server.orders.runRetention();
      expect(early.erased).toBe(0);
      expect(early.waiting).toBeGreaterThan(0);
      await server.outbox.runOnce();
      // Past the window (and, for the expired order, the 24 h in which a late payment may still come).
      clock.advance(25 * 3600_000);
      expect(await server.orders.runRetention()).toEqual({ erased: 2, waiting: 0 });
      expect(await server.orders.runRetention()).toEqual({ erased: 0, waiting: 0 });
      const erasedAt = async (o: OrderCreated) =>
        (
          await server.store.db
            .selectFrom('orders')
            .select(['details_erased_at', 'shipping_json', 'total_cents', 'status'])
            .where('id', '=', o.orderId)
            .executeTakeFirstOrThrow()
        ).details_erased_at;
      expect(await erasedAt(delivered)).not.toBeNull();
      expect(await erasedAt(expired)).not.toBeNull();
      expect(await erasedAt(shippedOnly)).toBeNull();
      expect(await erasedAt(paidOnly)).toBeNull();
      // A day later: the vendor signs in again (sessions last 8 h).
      const again = await signInAs(coopers);
      const detail = (
        await inject('GET', `/api/seller/orders/${delivered.orderId}`, { cookie: again })
      ).json<SellerOrderDetail>();
      expect(detail.status).toBe('delivered');
      expect(detail.totalCents).toBeGreaterThan(0);
      expect(detail.buyerName).toBe('details erased');
      expect(detail.payments).toHaveLength(1);
      expect(detail.history.map((h) => h.event)).toContain('details_erased');
      const outbox = await server.store.db
        .selectFrom('outbox')
        .select(['payload_json', 'recipient_email'])
        .where('order_id', '=', delivered.orderId)
        .execute();
      expect(outbox.every((r) => r.payload_json === 'erased' && r.recipient_email === 'erased')).toBe(true);
      const page = (await inject('GET', `/api/order-pages/${tokenOf(delivered)}`)).json<OrderPageView>();
      expect(page.privacy).toMatchObject({ details: 'erased', deletion: 'done' });
    });

    it('"Delete my details" is refused before shipping (cancel instead), then erases, tells the vendor and records it without the data; "Download my data" has everything', async () => {
      const { wallet } = await twoPurchases();
      const token = tokenOf(wallet);
      // The vendor's note ("Only you see it") stays the vendor's: not in the buyer's download.
      const vendor = await signInAs(coopers);
      const noted = await inject('POST', `/api/seller/orders/${wallet.orderId}/note`, {
        cookie: vendor,
        body: { note: 'Buyer seems odd, check PRIVATE-NOTE-7731' },
      });
      expect(noted.statusCode, noted.body).toBe(200);
      const data = await inject('GET', `/api/order-pages/${token}/data`);
      expect(data.body).not.toContain('PRIVATE-NOTE-7731');
      expect(data.json<OrderDataExport>().sellerActions.map((a) => a.action)).not.toContain('note');
      expect(data.statusCode).toBe(200);
      expect(String(data.headers['content-disposition'])).toMatch(/^attachment; filename="order-/);
      const exported = data.json<OrderDataExport>();
      expect(exported.details).toMatchObject({ state: 'kept', shipping: { email: WALLET_BUYER.email } });
      expect(exported.emails.map((e) => `${e.kind}/${e.recipient}`)).toEqual(
        expect.arrayContaining(['order_confirmation/seller', 'order_confirmation/buyer']),
      );
      // The seller's copy quotes the address; the buyer's does not (a buyer message carries only a bounded name).
      const sellerMail = exported.emails.find((e) => e.recipient === 'seller');
      expect(sellerMail?.message?.text).toContain(WALLET_BUYER.address1);
      const buyerMail = exported.emails.find((e) => e.recipient === 'buyer');
      expect(buyerMail?.message?.text).toContain(`Hello ${WALLET_BUYER.fullName},`);
      // The vendor's copy names no recipient (only buyer e-mails carry `to`, the buyer's own address).
      expect(exported.emails.filter((e) => e.recipient === 'seller').every((e) => e.to === undefined)).toBe(
        true,
      );

      const refused = await inject('DELETE', `/api/order-pages/${token}/details`);
      expect(refused.statusCode).toBe(409);
      expect(refused.json()).toMatchObject({ error: 'order_will_ship' });
      const page = (await inject('GET', `/api/order-pages/${token}`)).json<OrderPageView>();
      expect(page.privacy).toMatchObject({ deletion: 'cancel_first', cancel: 'ask_vendor' });
      const asked = await inject('POST', `/api/order-pages/${token}/cancel`);
      expect(asked.json<OrderPageView>().privacy.cancel).toBe('requested');

      const seller = await signInAs(coopers);
      await inject('POST', `/api/seller/orders/${wallet.orderId}/ship`, {
        cookie: seller,
        body: { trackingNumber: 'TRACK-DEL' },
      });
      await server.outbox.runOnce();
      const sentBefore = transport.sent.length;
      const deleted = await inject('DELETE', `/api/order-pages/${token}/details`);
      expect(deleted.statusCode, deleted.body).toBe(200);
      expect(deleted.json<OrderPageView>().privacy).toMatchObject({ details: 'erased', deletion: 'done' });
      expect((await inject('DELETE', `/api/order-pages/${token}/details`)).statusCode).toBe(200);
      await server.outbox.runOnce();
      const told = transport.sent.slice(sentBefore).filter((m) => m.kind === 'details_erased');
      expect(told).toHaveLength(1);
      expect(told[0]?.role).toBe('seller');
      expect(JSON.stringify(told[0])).not.toContain(WALLET_BUYER.fullName);
      const after = (await inject('GET', `/api/order-pages/${token}/data`)).json<OrderDataExport>();
      expect(after.details.state).toBe('erased');
      expect(JSON.stringify(after)).not.toContain(WALLET_BUYER.fullName);
      expect(JSON.stringify(after)).not.toContain('TRACK-DEL');
      expect(after.order.history.map((h) => h.event)).toContain('details_deleted_by_buyer');
      const detail = (
        await inject('GET', `/api/seller/orders/${wallet.orderId}`, { cookie: seller })
      ).json<SellerOrderDetail>();
      expect(detail.buyerName).toBe('details erased');
      expect(detail.status).toBe('shipped');
      expect(JSON.stringify(detail)).not.toContain(WALLET_BUYER.email);
    });

    it('the order id alone reads nothing personal and changes nothing (wallet and QR orders); the page token still works', async () => {
      // What an outsider with ids (an e-mail header, a console screenshot, a CSV) finds: a paid wallet order with
      // details, a paid QR order without its details yet, and an open QR record.
      const wallet = await order('sonic-crushed-opal-spillproof', WALLET_BUYER, 'wallet');
      await pay(wallet);
      const paidQr = await order('honey-dew-papaya-live-rosin', undefined, 'qr');
      await pay(paidQr);
      const q = await inject('POST', '/api/quotes', {
        body: { items: [{ productId: 'honey-dew-papaya-live-rosin', quantity: 1 }] },
      });
      const firstQuote = q.json<QuoteResponse>().quote;
      const open = (
        await inject('POST', '/api/orders', {
          body: { quote: firstQuote, paymentMethod: 'qr' },
          headers: { 'idempotency-key': `privacy-${++n}` },
        })
      ).json<OrderCreated>();
      // A renewed quote of the open record's own reference (the strongest thing an outsider could bring).
      const renewed = (
        await inject('POST', '/api/quotes', {
          body: { items: [{ productId: 'honey-dew-papaya-live-rosin', quantity: 2 }], renew: firstQuote },
        })
      ).json<QuoteResponse>();
      expect(renewed.reference).toBe(open.reference);
      await server.outbox.runOnce();
      const orders = [wallet, paidQr, open];
      const snapshot = async () =>
        JSON.stringify({
          orders: await server.store.db
            .selectFrom('orders')
            .selectAll()
            .where(
              'id',
              'in',
              orders.map((o) => o.orderId),
            )
            .orderBy('id')
            .execute(),
          history: await server.store.db.selectFrom('order_history').selectAll().orderBy('seq').execute(),
          outbox: await server.store.db.selectFrom('outbox').select(['id', 'state']).orderBy('id').execute(),
          reservations: await server.store.db
            .selectFrom('reservations')
            .selectAll()
            .orderBy('order_id')
            .execute(),
        });
      const before = await snapshot();
      const personal = [...SECRETS, QR_BUYER.address1, QR_BUYER.email];

      for (const o of orders) {
        const id = o.orderId;
        const token = tokenOf(o);
        // Reads by id: the status, and nothing that opens the page or names the buyer.
        const status = await inject('GET', `/api/orders/${id}`);
        expect(status.statusCode).toBe(200);
        expect(status.body).not.toContain(token);
        expect(status.body).not.toContain('/order/');
        expect(status.json()).not.toHaveProperty('orderUrl');
        for (const secret of personal) expect(status.body, secret).not.toContain(secret);
        // The order page's routes take the token only: the id there is an unknown token.
        for (const [method, url] of [
          ['GET', `/api/order-pages/${id}`],
          ['GET', `/api/order-pages/${id}/data`],
          ['DELETE', `/api/order-pages/${id}/details`],
          ['POST', `/api/order-pages/${id}/cancel`],
        ] as const) {
          const res = await inject(method, url);
          expect(res.statusCode, `${method} ${url}`).toBe(404);
          expect(res.json(), url).toMatchObject({ error: 'order_not_found' });
        }
        // Changes by id: attaching (other) details, a new price; refused without the token, whatever is sent as one.
        for (const fake of [undefined, id, '0'.repeat(32)]) {
          const attach = await inject('POST', `/api/orders/${id}/confirmation`, {
            body: { shipping: QR_BUYER, ...(fake !== undefined ? { token: fake } : {}) },
          });
          expect(attach.statusCode, `confirmation ${String(fake)}`).toBeGreaterThanOrEqual(400);
          expect(attach.statusCode).toBeLessThan(500);
          expect(attach.body).not.toContain(token);
          const moved = await inject('PUT', `/api/orders/${id}/quote`, {
            body: { quote: renewed.quote, ...(fake !== undefined ? { token: fake } : {}) },
          });
          expect(moved.statusCode, `requote ${String(fake)}`).toBe(403);
          expect(moved.json()).toMatchObject({ error: 'order_capability_required' });
        }
        // A payment hint only asks the server to look at a transaction (verified on chain); it answers the status.
        const hint = await inject('POST', `/api/orders/${id}/payment`, {
          body: { signature: fakeSignature() },
        });
        expect(hint.body).not.toContain(token);
        for (const secret of personal) expect(hint.body, secret).not.toContain(secret);
      }
      expect(await snapshot()).toBe(before);

      // The page token still opens and changes what it should.
      const page = await inject('GET', `/api/order-pages/${tokenOf(wallet)}/data`);
      expect(page.json<OrderDataExport>().details).toMatchObject({
        shipping: { fullName: WALLET_BUYER.fullName },
      });
      const attached = await inject('POST', `/api/orders/${paidQr.orderId}/confirmation`, {
        body: { shipping: QR_BUYER, token: tokenOf(paidQr) },
      });
      expect(attached.statusCode, attached.body).toBe(200);
      const moved = await inject('PUT', `/api/orders/${open.orderId}/quote`, {
        body: { quote: renewed.quote, token: tokenOf(open) },
      });
      expect(moved.statusCode, moved.body).toBe(200);
      expect(moved.json<OrderCreated>().amountBaseUnits).toBe(renewed.amountBaseUnits);
      const cancel = await inject('POST', `/api/order-pages/${tokenOf(wallet)}/cancel`);
      expect(cancel.json<OrderPageView>().privacy.cancel).toBe('requested');
    });

    it('the order page HTML route and its data are rate-limited, and unknown tokens are the same 404', async () => {
      await server.close();
      await start(OLD_KEYS, { RATE_LIMIT_ORDERS_PER_MINUTE: '3' });
      const wallet = await order('sonic-crushed-opal-spillproof', WALLET_BUYER, 'wallet');
      const unknown = '0'.repeat(32);
      const a = await inject('GET', `/api/order-pages/${unknown}/data`);
      expect(a.statusCode).toBe(404);
      const b = await inject('DELETE', `/api/order-pages/${unknown}/details`);
      expect(b.json()).toEqual(a.json());
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++)
        statuses.push((await inject('GET', `/api/order-pages/${tokenOf(wallet)}/data`)).statusCode);
      expect(statuses.slice(-1)).toEqual([429]);
    });
  });
});
