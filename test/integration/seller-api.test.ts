/**
 * The seller console API in-process (app.inject) against a real store: a SQLite file, and PostgreSQL when
 * TEST_DATABASE_URL is set. Sign-In-With-Solana with real ed25519 keys (tweetnacl), sessions, vendor isolation,
 * CSRF, orders list/detail/CSV, shipping with the buyer's e-mail through the outbox.
 */
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Keypair } from '@solana/web3.js';
import nacl from 'tweetnacl';
import type { OrderCreated, QuoteResponse } from '../../src/core/api';
import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import type { SellerMe, SellerOrderDetail, SellerOrderList, SellerStock } from '../../src/core/seller-api';
import type { StockResponse } from '../../src/core/api';
import { formatSiwsMessage, type SiwsRequest } from '../../src/core/siws';
import { renderEmail } from '../../src/server/mail/templates';
import { PermanentMailError } from '../../src/server/mail/types';
import { startServer, type RunningServer } from '../../src/server/server';
import { restock } from '../support/stock';
import { injector, sellerSettings, SITE } from '../support/seller-session';
import {
  Clock,
  fakeSignature,
  intlShipping,
  keys,
  postgresBackend,
  RecordingTransport,
  sqliteBackend,
  TestPrice,
  usShipping,
  type Backend,
} from './orders-support';
import { balancesAssumed, proofOf, TEST_PAYER } from '../support/hold-proof';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';

const coopers = Keypair.generate();
const gorilla = Keypair.generate();
const stranger = Keypair.generate();

const backends = [sqliteBackend(), postgresBackend()];

describe.each(backends)('seller API on $name', (backend: Backend) => {
  describe.runIf(backend.enabled)(`${backend.name} store`, () => {
    let server: RunningServer;
    let clock: Clock;
    let transport: RecordingTransport;
    let price: TestPrice;
    let keyN = 0;

    beforeEach(async () => {
      clock = new Clock();
      transport = new RecordingTransport();
      server = await startServer(sellerSettings(coopers, gorilla, keys.mint), {
        payoutAccounts: payoutAccountsAssumedToExist,
        walletBalances: balancesAssumed(),
        store: await backend.fresh(),
        priceSource: (price = new TestPrice(clock, '0.5')),
        transport,
        now: clock.now,
        listen: false,
        startOutbox: false,
        expireEveryMs: 0,
      });
      // Stock: the glass piece has one unit and HoneyDew Papaya none; these tests place several orders.
      await restock(server, 'sonic-crushed-opal-spillproof', 10);
      await restock(server, 'honey-dew-papaya-live-rosin', 10);
    });
    afterEach(async () => {
      await server.close();
    });
    afterAll(async () => {
      await backend.cleanup();
    });

    const inject = injector(() => server);

    async function nonce(): Promise<SiwsRequest> {
      const r = await inject('GET', '/api/seller/nonce');
      expect(r.statusCode, r.body).toBe(200);
      return r.json<SiwsRequest>();
    }
    function sign(key: Keypair, request: SiwsRequest, over: Partial<SiwsRequest> = {}) {
      const message = formatSiwsMessage({ ...request, ...over, address: key.publicKey.toBase58() });
      const signature = nacl.sign.detached(new TextEncoder().encode(message), key.secretKey);
      return { message, signature: Buffer.from(signature).toString('base64') };
    }
    async function signInAs(key: Keypair): Promise<string> {
      const r = await inject('POST', '/api/seller/session', { body: sign(key, await nonce()) });
      expect(r.statusCode, r.body).toBe(200);
      const set = String(r.headers['set-cookie']);
      const cookie = /claim_seller=([^;]+)/.exec(set)?.[1];
      expect(cookie).toBeTruthy();
      return `claim_seller=${cookie}`;
    }

    async function createOrder(productId: string, shipping: object, method: 'wallet' | 'qr') {
      const q = await inject('POST', '/api/quotes', { body: { items: [{ productId, quantity: 1 }] } });
      expect(q.statusCode, q.body).toBe(200);
      const r = await inject('POST', '/api/orders', {
        body: {
          quote: q.json<QuoteResponse>().quote,
          shipping,
          paymentMethod: method,
          ...(method === 'wallet' ? { payer: proofOf(TEST_PAYER, q.json<QuoteResponse>().reference) } : {}),
        },
        headers: { 'idempotency-key': `k-${++keyN}-${Math.random()}` },
      });
      expect(r.statusCode, r.body).toBe(201);
      return r.json<OrderCreated>();
    }
    const glassOrder = () => createOrder('sonic-crushed-opal-spillproof', intlShipping, 'wallet');
    const gorillaOrder = () => createOrder('honey-dew-papaya-live-rosin', usShipping, 'qr');
    async function pay(o: OrderCreated, base = BigInt(o.amountBaseUnits)) {
      const r = await server.orders.recordPayment(
        { orderId: o.orderId },
        { signature: fakeSignature(), receivedBaseUnits: base, finalized: true, blockTime: null },
      );
      expect(r.ok).toBe(true);
    }

    it('signs a payout wallet in with SIWS: HttpOnly, Secure (https site), SameSite=Strict cookie for 8 h', async () => {
      const request = await nonce();
      expect(request).toMatchObject({ domain: 'shop.example', uri: SITE, version: '1', chainId: 'mainnet' });
      const r = await inject('POST', '/api/seller/session', { body: sign(coopers, request) });
      expect(r.statusCode, r.body).toBe(200);
      expect(r.json<SellerMe>()).toMatchObject({
        address: coopers.publicKey.toBase58(),
        vendors: [{ id: 'coopersglass', name: 'Coopers Glass' }],
      });
      const cookie = String(r.headers['set-cookie']);
      expect(cookie).toMatch(/^claim_seller=[\w-]{43}; /);
      for (const attr of ['HttpOnly', 'Secure', 'SameSite=Strict', 'Max-Age=28800', 'Path=/api/seller'])
        expect(cookie).toContain(attr);
      // The store keeps only the id's hash.
      const id = /claim_seller=([^;]+)/.exec(cookie)![1]!;
      const rows = await server.store.db.selectFrom('seller_sessions').selectAll().execute();
      expect(rows).toHaveLength(1);
      expect(rows[0]!.id_hash).not.toContain(id);
      expect(rows[0]!.id_hash).toMatch(/^[0-9a-f]{64}$/);
      const me = await inject('GET', '/api/seller/me', { cookie: `claim_seller=${id}` });
      expect(me.statusCode).toBe(200);
    });

    it('refuses a bad signature, another domain, a reused or old nonce, and a wallet that is not a payout wallet', async () => {
      const post = (body: unknown) => inject('POST', '/api/seller/session', { body });
      // Signature by another key over the same text.
      const request = await nonce();
      const good = sign(coopers, request);
      const forged = Buffer.from(
        nacl.sign.detached(new TextEncoder().encode(good.message), stranger.secretKey),
      ).toString('base64');
      let r = await post({ message: good.message, signature: forged });
      expect(r.statusCode).toBe(401);
      expect(r.json()).toMatchObject({ error: 'bad_signature' });
      // A signed text changed after signing.
      r = await post({
        message: good.message.replace('Version: 1', 'Version: 2'),
        signature: good.signature,
      });
      expect(r.json()).toMatchObject({ error: 'bad_signature' });
      // Another site's message (a phishing page forwarding its sign-in).
      r = await post(sign(coopers, await nonce(), { domain: 'evil.example' }));
      expect(r.statusCode).toBe(401);
      expect(r.json()).toMatchObject({ error: 'wrong_domain' });
      // The good one still works once, then its nonce is spent.
      r = await post(good);
      expect(r.statusCode, r.body).toBe(200);
      r = await post(good);
      expect(r.statusCode).toBe(401);
      expect(r.json()).toMatchObject({ error: 'nonce_used' });
      // A nonce we never issued.
      r = await post(sign(coopers, { ...(await nonce()), nonce: 'NeverIssued1234' }));
      expect(r.json()).toMatchObject({ error: 'nonce_used' });
      // Older than 5 minutes.
      const old = await nonce();
      clock.advance(5 * 60_000 + 1);
      r = await post(sign(coopers, old));
      expect(r.statusCode).toBe(401);
      expect(r.json()).toMatchObject({ error: 'expired_request' });
      // A stranger's wallet, properly signed.
      r = await post(sign(stranger, await nonce()));
      expect(r.statusCode).toBe(403);
      expect(r.json()).toEqual({
        error: 'not_a_seller',
        message: "This wallet is not a seller's payout wallet.",
      });
      expect(r.headers['set-cookie']).toBeUndefined();
      // Not a SIWS text at all; no body.
      r = await post({ message: 'hello', signature: good.signature });
      expect(r.statusCode).toBe(400);
      r = await post({});
      expect(r.statusCode).toBe(400);
      // Only the one good sign-in made a session.
      expect(await server.store.db.selectFrom('seller_sessions').selectAll().execute()).toHaveLength(1);
    });

    it('answers 401 on every seller route without a session, and after the 8 h session expires', async () => {
      const o = await glassOrder();
      for (const [method, url] of [
        ['GET', '/api/seller/me'],
        ['GET', '/api/seller/orders'],
        ['GET', '/api/seller/orders.csv'],
        ['GET', `/api/seller/orders/${o.orderId}`],
        ['POST', `/api/seller/orders/${o.orderId}/ship`],
        ['POST', `/api/seller/orders/${o.orderId}/delivered`],
        ['POST', `/api/seller/orders/${o.orderId}/resolve`],
        ['POST', `/api/seller/orders/${o.orderId}/refund`],
        ['GET', '/api/seller/stock'],
        ['POST', '/api/seller/stock'],
        ['POST', '/api/seller/stock/release'],
      ] as const) {
        const r = await inject(method, url, method === 'POST' ? { body: { trackingNumber: 'X1' } } : {});
        expect(r.statusCode, `${method} ${url}`).toBe(401);
        expect(r.json()).toMatchObject({ error: 'not_signed_in' });
        const bogus = await inject(method, url, { cookie: 'claim_seller=forged-session-id' });
        expect(bogus.statusCode, `${method} ${url} (forged)`).toBe(401);
      }
      const cookie = await signInAs(coopers);
      expect((await inject('GET', '/api/seller/orders', { cookie })).statusCode).toBe(200);
      clock.advance(8 * 60 * 60_000 - 1000);
      expect((await inject('GET', '/api/seller/orders', { cookie })).statusCode).toBe(200);
      clock.advance(1000);
      const expired = await inject('GET', '/api/seller/orders', { cookie });
      expect(expired.statusCode).toBe(401);
      // Signing out ends a session at once.
      const again = await signInAs(coopers);
      expect((await inject('DELETE', '/api/seller/session', { cookie: again })).statusCode).toBe(200);
      expect((await inject('GET', '/api/seller/me', { cookie: again })).statusCode).toBe(401);
    });

    it("shows a vendor only its own orders; another vendor's order is not found and cannot be touched", async () => {
      const mine = await glassOrder();
      const theirs = await gorillaOrder();
      await pay(theirs);
      const cookie = await signInAs(coopers);
      const list = (await inject('GET', '/api/seller/orders', { cookie })).json<SellerOrderList>();
      expect(list.orders.map((o) => o.orderId)).toEqual([mine.orderId]);
      expect(list.total).toBe(1);
      for (const [method, url] of [
        ['GET', `/api/seller/orders/${theirs.orderId}`],
        ['POST', `/api/seller/orders/${theirs.orderId}/ship`],
      ] as const) {
        const r = await inject(method, url, { cookie, body: { trackingNumber: 'TRACK1' } });
        expect(r.statusCode, url).toBe(404);
      }
      const csv = (await inject('GET', '/api/seller/orders.csv', { cookie })).body;
      expect(csv).toContain(mine.orderId);
      expect(csv).not.toContain(theirs.orderId);
      const other = await signInAs(gorilla);
      const theirList = (
        await inject('GET', '/api/seller/orders', { cookie: other })
      ).json<SellerOrderList>();
      expect(theirList.orders.map((o) => o.orderId)).toEqual([theirs.orderId]);
    });

    it('refuses cross-site state-changing requests (Origin, Sec-Fetch-Site) and changes nothing', async () => {
      const o = await glassOrder();
      await pay(o);
      const cookie = await signInAs(coopers);
      for (const headers of [
        { origin: 'https://evil.example' } as Record<string, string>,
        { 'sec-fetch-site': 'cross-site' },
        { 'sec-fetch-site': 'same-site', origin: 'https://sub.shop.example' },
      ]) {
        const r = await inject('POST', `/api/seller/orders/${o.orderId}/ship`, {
          cookie,
          body: { trackingNumber: 'TRACK1' },
          headers,
        });
        expect(r.statusCode, JSON.stringify(headers)).toBe(403);
        expect(r.json()).toMatchObject({ error: 'cross_site' });
      }
      const signInFromElsewhere = await inject('POST', '/api/seller/session', {
        body: sign(coopers, await nonce()),
        headers: { origin: 'https://evil.example' },
      });
      expect(signInFromElsewhere.statusCode).toBe(403);
      const detail = (
        await inject('GET', `/api/seller/orders/${o.orderId}`, { cookie })
      ).json<SellerOrderDetail>();
      expect(detail.status).toBe('final');
      expect(detail.actions).toEqual([]);
      // The same request from the site itself goes through.
      const ok = await inject('POST', `/api/seller/orders/${o.orderId}/ship`, {
        cookie,
        body: { trackingNumber: 'TRACK1' },
        headers: { origin: SITE, 'sec-fetch-site': 'same-origin' },
      });
      expect(ok.statusCode, ok.body).toBe(200);
    });

    it('lists newest first with status filter, search by buyer name, e-mail or order number, and pages', async () => {
      const created: OrderCreated[] = [];
      for (let i = 0; i < 5; i++) {
        created.push(await glassOrder());
        clock.advance(1000);
      }
      await pay(created[1]!);
      const cookie = await signInAs(coopers);
      const get = async (qs: string) => {
        const r = await inject('GET', `/api/seller/orders${qs}`, { cookie });
        expect(r.statusCode, r.body).toBe(200);
        return r.json<SellerOrderList>();
      };
      const all = await get('');
      expect(all.orders.map((o) => o.orderId)).toEqual(created.map((o) => o.orderId).reverse());
      expect(all.orders[0]).toMatchObject({
        buyerName: intlShipping.fullName,
        buyerEmail: intlShipping.email,
        status: 'awaiting_payment',
      });
      expect((await get('?status=final')).orders.map((o) => o.orderId)).toEqual([created[1]!.orderId]);
      expect((await get('?status=paid')).total).toBe(0);
      const page2 = await get('?page=2&pageSize=2');
      expect(page2).toMatchObject({ total: 5, page: 2, pageSize: 2 });
      expect(page2.orders.map((o) => o.orderId)).toEqual([created[2]!.orderId, created[1]!.orderId]);
      expect((await get(`?q=${encodeURIComponent(intlShipping.fullName.toUpperCase())}`)).total).toBe(5);
      expect((await get(`?q=${encodeURIComponent(intlShipping.email)}`)).total).toBe(5);
      expect((await get(`?q=${created[3]!.orderId.slice(0, 8)}`)).orders[0]!.orderId).toBe(
        created[3]!.orderId,
      );
      expect((await get('?q=nobody-by-that-name')).total).toBe(0);
      expect((await get('?q=%25')).total).toBe(0); // a literal %, not a wildcard
      for (const bad of ['?status=lost', '?page=0', '?pageSize=1000', '?page=x'])
        expect((await inject('GET', `/api/seller/orders${bad}`, { cookie })).statusCode, bad).toBe(400);
    });

    it('shows the order: items, shipping, buyer e-mail, ledger, history and e-mails; exports CSV', async () => {
      const o = await glassOrder();
      await pay(o, 1n); // short…
      // …then exactly the rest: complete (more would also be an over-amount, "overpaid"), then
      await pay(o, BigInt(o.amountBaseUnits) - 1n);
      await pay(o, 2_000_000n); // an extra payment (2 $CLAIM: above the dust threshold, which is owed nothing)
      const cookie = await signInAs(coopers);
      const d = (
        await inject('GET', `/api/seller/orders/${o.orderId}`, { cookie })
      ).json<SellerOrderDetail>();
      expect(d.items).toEqual([
        expect.objectContaining({ name: 'Sonic Crushed Opal Spillproof', quantity: 1 }),
      ]);
      expect(d.shipping).toMatchObject({ fullName: intlShipping.fullName, email: intlShipping.email });
      expect(d.shippingAddress).toContain(intlShipping.city);
      expect(d.payments.map((p) => p.role)).toEqual(['partial', 'payment', 'extra']);
      expect(d.exceptions).toEqual(['extra_payment']);
      expect(d.history.map((h) => h.status)).toContain('final');
      expect(d.emails.map((e) => `${e.kind}/${e.recipient}`)).toContain('order_confirmation/buyer');
      const exceptions = (
        await inject('GET', '/api/seller/orders?status=exceptions', { cookie })
      ).json<SellerOrderList>();
      expect(exceptions.orders.map((x) => x.orderId)).toEqual([o.orderId]);
      // Resolving records what the seller did.
      const bad = await inject('POST', `/api/seller/orders/${o.orderId}/resolve`, {
        cookie,
        body: { exception: 'underpaid', note: 'x' },
      });
      expect(bad.statusCode).toBe(409);
      const res = await inject('POST', `/api/seller/orders/${o.orderId}/resolve`, {
        cookie,
        body: { exception: 'extra_payment', note: 'Refunded the extra 2.000000 to the buyer' },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json<SellerOrderDetail>().resolved).toEqual(['extra_payment']);
      expect(res.json<SellerOrderDetail>().actions[0]).toMatchObject({
        action: 'resolved',
        address: coopers.publicKey.toBase58(),
        detail: { exception: 'extra_payment', note: 'Refunded the extra 2.000000 to the buyer' },
      });
      // Resolved: out of the Exceptions queue (open ones only), still under All.
      const open = (
        await inject('GET', '/api/seller/orders?queue=exceptions', { cookie })
      ).json<SellerOrderList>();
      expect(open.orders).toEqual([]);
      const csv = await inject('GET', '/api/seller/orders.csv?queue=all', { cookie });
      expect(csv.headers['content-type']).toContain('text/csv');
      const lines = csv.body.trim().split('\r\n');
      expect(lines[0]).toMatch(/^order_number,order_id,placed_at,status,/);
      expect(lines).toHaveLength(2);
      expect(lines[1]).toContain(`${o.orderId.slice(0, 8).toUpperCase()},${o.orderId},`);
      expect(lines[1]).toContain(',325.00,');
    });

    it('marks a paid order shipped with its tracking number and e-mails the buyer; refuses unpaid and bad input', async () => {
      const unpaid = await glassOrder();
      const o = await glassOrder();
      await pay(o);
      const cookie = await signInAs(coopers);
      const ship = (id: string, body: unknown) =>
        inject('POST', `/api/seller/orders/${id}/ship`, { cookie, body });
      expect((await ship(unpaid.orderId, { trackingNumber: 'TRACK1' })).statusCode).toBe(409);
      for (const body of [
        {},
        { trackingNumber: '' },
        { trackingNumber: 'a\nb' },
        { trackingNumber: 'X', extra: 1 },
      ])
        expect((await ship(o.orderId, body)).statusCode, JSON.stringify(body)).toBe(400);
      const r = await ship(o.orderId, { trackingNumber: ' 1Z999AA10123456784 ', carrier: 'UPS' });
      expect(r.statusCode, r.body).toBe(200);
      const d = r.json<SellerOrderDetail>();
      expect(d.status).toBe('shipped');
      expect(d.shipment).toMatchObject({ trackingNumber: '1Z999AA10123456784', carrier: 'UPS' });
      expect(d.history.at(-1)).toMatchObject({ status: 'shipped', event: 'shipped' });
      expect((await ship(o.orderId, { trackingNumber: 'AGAIN' })).statusCode).toBe(409);
      // The buyer's e-mail goes through the outbox.
      await server.outbox.runOnce();
      const mail = transport.sent.find((m) => m.kind === 'order_shipped');
      expect(mail?.to).toBe(intlShipping.email);
      const rendered = renderEmail(mail!);
      expect(rendered.subject).toContain('has shipped');
      expect(rendered.text).toContain('Tracking number: 1Z999AA10123456784');
      expect(rendered.text).toContain('Carrier: UPS');
      // Delivered, once.
      const del = await inject('POST', `/api/seller/orders/${o.orderId}/delivered`, { cookie });
      expect(del.json<SellerOrderDetail>().status).toBe('delivered');
      expect(
        (await inject('POST', `/api/seller/orders/${unpaid.orderId}/delivered`, { cookie })).statusCode,
      ).toBe(409);
    });

    it('resends a failed e-mail', async () => {
      const o = await glassOrder();
      await pay(o);
      transport.fail = () => new PermanentMailError('550 mailbox unavailable');
      await server.outbox.runOnce();
      const cookie = await signInAs(coopers);
      const d = (
        await inject('GET', `/api/seller/orders/${o.orderId}`, { cookie })
      ).json<SellerOrderDetail>();
      const failed = d.emails.find((e) => e.state === 'failed');
      expect(failed, JSON.stringify(d.emails)).toBeDefined();
      const pending = d.emails.find((e) => e.state !== 'failed');
      if (pending)
        expect(
          (await inject('POST', `/api/seller/orders/${o.orderId}/emails/${pending.id}/resend`, { cookie }))
            .statusCode,
        ).toBe(409);
      transport.fail = () => undefined;
      const r = await inject('POST', `/api/seller/orders/${o.orderId}/emails/${failed!.id}/resend`, {
        cookie,
      });
      expect(r.statusCode, r.body).toBe(200);
      await server.outbox.runOnce();
      await server.outbox.runOnce();
      const after = (
        await inject('GET', `/api/seller/orders/${o.orderId}`, { cookie })
      ).json<SellerOrderDetail>();
      expect(after.emails.find((e) => e.id === failed!.id)?.state).toBe('sent');
      expect(after.actions.map((a) => a.action)).toContain('email_resent');
    });

    const stockOf = async (cookie: string) => {
      const r = await inject('GET', '/api/seller/stock', { cookie });
      expect(r.statusCode, r.body).toBe(200);
      return r.json<SellerStock>();
    };
    const changeCount = async () =>
      Number(
        (
          await server.store.db
            .selectFrom('stock_changes')
            .select((eb) => eb.fn.countAll<string | number>().as('n'))
            .executeTakeFirstOrThrow()
        ).n,
      );

    it("stock page: the vendor's own lines (in stock, reserved, available, sold); setting one is recorded with seller:<address> and the time, and the shop follows", async () => {
      const cookie = await signInAs(coopers);
      const before = await stockOf(cookie);
      expect(before.lines.length).toBeGreaterThan(5);
      expect(before.lines.every((l) => l.vendorId === 'coopersglass')).toBe(true);
      const lilac = before.lines.find((l) => l.productId === 'lilac-tiptop');
      expect(lilac).toMatchObject({
        productName: 'Lilac TipTop',
        onHand: 1,
        reserved: 0,
        available: 1,
        sold: 0,
      });
      // The gorilla vendor's lines are not there, nor their changes.
      expect(before.lines.some((l) => l.productId === 'honey-dew-papaya-live-rosin')).toBe(false);
      expect(before.changes.some((c) => c.productId === 'honey-dew-papaya-live-rosin')).toBe(false);

      clock.advance(1000);
      const r = await inject('POST', '/api/seller/stock', {
        cookie,
        body: { productId: 'lilac-tiptop', onHand: 4 },
      });
      expect(r.statusCode, r.body).toBe(200);
      const after = r.json<SellerStock>();
      expect(after.lines.find((l) => l.productId === 'lilac-tiptop')).toMatchObject({
        onHand: 4,
        available: 4,
      });
      expect(after.changes[0]).toMatchObject({
        productId: 'lilac-tiptop',
        kind: 'set',
        onHandDelta: 3,
        onHandAfter: 4,
        actor: `seller:${coopers.publicKey.toBase58()}`,
        at: clock.now().toISOString(),
      });
      // The shop's live stock is the same store.
      const shop = (await inject('GET', '/api/stock')).json<StockResponse>();
      expect(shop.lines.find((l) => l.productId === 'lilac-tiptop')?.available).toBe(4);

      // An order reserves one, its payment sells it: reserved, then sold.
      const o = await glassOrder();
      let line = (await stockOf(cookie)).lines.find((l) => l.productId === 'sonic-crushed-opal-spillproof');
      expect(line).toMatchObject({ onHand: 10, reserved: 1, available: 9, sold: 0 });
      await pay(o);
      const paid = await stockOf(cookie);
      line = paid.lines.find((l) => l.productId === 'sonic-crushed-opal-spillproof');
      expect(line).toMatchObject({ onHand: 9, reserved: 0, available: 9, sold: 1 });
      expect(paid.changes[0]).toMatchObject({ kind: 'sale', actor: 'payment', orderId: o.orderId });
    });

    it("stock page: refuses bad input, another vendor's product and a count below the reservations with a clear message; nothing changes", async () => {
      const cookie = await signInAs(coopers);
      const o = await glassOrder(); // holds 1 of the 10 Sonic Crushed Opal Spillproof
      const before = await changeCount();
      const post = (body: unknown, headers?: Record<string, string>) =>
        inject('POST', '/api/seller/stock', { cookie, body, ...(headers ? { headers } : {}) });
      for (const [body, error] of [
        [{}, 'invalid_product'],
        [{ productId: 'lilac-tiptop' }, 'invalid_stock'],
        [{ productId: 'lilac-tiptop', onHand: -1 }, 'invalid_stock'],
        [{ productId: 'lilac-tiptop', onHand: 1.5 }, 'invalid_stock'],
        [{ productId: 'lilac-tiptop', onHand: '3' }, 'invalid_stock'],
        [{ productId: 'lilac-tiptop', onHand: 1_000_001 }, 'invalid_stock'],
        [{ productId: 'lilac-tiptop', onHand: 3, note: 'x' }, 'invalid_request'],
        [{ productId: 'Lilac TipTop', onHand: 3 }, 'invalid_product'],
        [{ productId: 'lilac-tiptop', variantId: 'zips', onHand: 3 }, 'invalid_variant'],
        [[1, 2], 'invalid_request'],
      ] as const) {
        const r = await post(body);
        expect(r.statusCode, JSON.stringify(body)).toBe(400);
        expect(r.json<{ error: string; message: string }>(), JSON.stringify(body)).toMatchObject({ error });
        expect(r.json<{ message: string }>().message.length).toBeGreaterThan(10);
      }
      const reserved = await post({ productId: 'sonic-crushed-opal-spillproof', onHand: 0 });
      expect(reserved.statusCode).toBe(400);
      expect(reserved.json()).toEqual({
        error: 'invalid_stock',
        message: '1 unit is reserved by open orders: set at least 1, or release the reserved units first.',
        field: 'onHand',
      });
      // Another vendor's product (and an unknown one): not found, as their orders are.
      for (const productId of ['honey-dew-papaya-live-rosin', 'no-such-product']) {
        const r = await post({ productId, onHand: 5 });
        expect(r.statusCode, productId).toBe(404);
        expect(r.json()).toMatchObject({ error: 'product_not_found' });
      }
      // Cross-site: refused before anything is read.
      const cross = await post({ productId: 'lilac-tiptop', onHand: 3 }, { origin: 'https://evil.example' });
      expect(cross.statusCode).toBe(403);
      expect(await changeCount()).toBe(before);
      expect((await stockOf(cookie)).lines.find((l) => l.productId === 'lilac-tiptop')?.onHand).toBe(1);

      // The gorilla vendor's products with variants need the variant.
      const gorillaCookie = await signInAs(gorilla);
      const noVariant = await inject('POST', '/api/seller/stock', {
        cookie: gorillaCookie,
        body: { productId: 'bathsalts-flower', onHand: 2 },
      });
      expect(noVariant.statusCode).toBe(400);
      expect(noVariant.json()).toMatchObject({ error: 'variant_required' });
      const zips = await inject('POST', '/api/seller/stock', {
        cookie: gorillaCookie,
        body: { productId: 'bathsalts-flower', variantId: 'zips', onHand: 2 },
      });
      expect(zips.statusCode, zips.body).toBe(200);
      expect(
        zips
          .json<SellerStock>()
          .lines.find((l) => l.productId === 'bathsalts-flower' && l.variantId === 'zips'),
      ).toMatchObject({ variantLabel: 'zips', onHand: 2, available: 2 });
      expect(await changeCount()).toBe(before + 1);
      void o;
    });

    it('stock page: the vendor releases what open orders hold on a line, then may set the stock below it', async () => {
      const cookie = await signInAs(coopers);
      const o = await glassOrder(); // holds 1 of the 10 Sonic Crushed Opal Spillproof
      const release = (body: unknown, headers?: Record<string, string>) =>
        inject('POST', '/api/seller/stock/release', { cookie, body, ...(headers ? { headers } : {}) });
      // Bad input, another vendor's line, cross-site: refused, nothing released.
      expect((await release({})).json()).toMatchObject({ error: 'invalid_product' });
      expect((await release({ productId: 'honey-dew-papaya-live-rosin' })).statusCode).toBe(404);
      expect(
        (await release({ productId: 'sonic-crushed-opal-spillproof' }, { origin: 'https://evil.example' }))
          .statusCode,
      ).toBe(403);
      const line = async () =>
        (await stockOf(cookie)).lines.find((l) => l.productId === 'sonic-crushed-opal-spillproof');
      expect(await line()).toMatchObject({ onHand: 10, reserved: 1, available: 9 });
      const r = await release({ productId: 'sonic-crushed-opal-spillproof' });
      expect(r.statusCode, r.body).toBe(200);
      expect(r.json()).toMatchObject({ released: 1 });
      expect(await line()).toMatchObject({ onHand: 10, reserved: 0, available: 10 });
      expect((await stockOf(cookie)).changes[0]).toMatchObject({
        kind: 'release',
        orderId: o.orderId,
        actor: `seller:${coopers.publicKey.toBase58()}`,
      });
      // Now the stock can go to 0; the order stays open, and its payment finds the piece gone: oversold.
      const set = await inject('POST', '/api/seller/stock', {
        cookie,
        body: { productId: 'sonic-crushed-opal-spillproof', onHand: 0 },
      });
      expect(set.statusCode, set.body).toBe(200);
      await pay(o);
      const after = await server.store.db
        .selectFrom('orders')
        .select('status')
        .where('id', '=', o.orderId)
        .executeTakeFirstOrThrow();
      expect(after.status).toBe('oversold');
    });

    it('lists "paid without shipping details" and "oversold" among the exceptions; both can be acted on', async () => {
      // A QR record paid before its shipping details came.
      const q = await inject('POST', '/api/quotes', {
        body: { items: [{ productId: 'honey-dew-papaya-live-rosin', quantity: 1 }] },
      });
      const rec = await inject('POST', '/api/orders', {
        body: { quote: q.json<QuoteResponse>().quote, paymentMethod: 'qr' },
        headers: { 'idempotency-key': `rec-${++keyN}` },
      });
      expect(rec.statusCode, rec.body).toBe(201);
      const noDetails = rec.json<OrderCreated>();
      await pay(noDetails);
      // Oversold: the last piece's reservation lapsed, someone else bought it, then the late payment came.
      await restock(server, 'sonic-crushed-opal-spillproof', 1);
      const late = await glassOrder();
      clock.advance(16 * 60_000);
      await server.orders.expireOrders();
      price.set('0.5'); // a fresh price for the next quote
      const other = await glassOrder();
      await pay(other);
      await pay(late);

      const gorillaCookie = await signInAs(gorilla);
      // Within the grace for shipping details (QR_DETAILS_GRACE_MS, 30 min; 16 min have passed) its buyer may still
      // be typing them: listed under All as waiting for them, not an exception yet.
      const waiting = (
        await inject('GET', '/api/seller/orders?queue=all', { cookie: gorillaCookie })
      ).json<SellerOrderList>();
      expect(waiting.counts.exceptions).toBe(0);
      expect(waiting.orders.find((o) => o.orderId === noDetails.orderId)).toMatchObject({
        exceptions: [],
        awaitingDetails: true,
      });
      clock.advance(15 * 60_000);
      const gList = (
        await inject('GET', '/api/seller/orders?status=exceptions', { cookie: gorillaCookie })
      ).json<SellerOrderList>();
      expect(gList.orders.map((o) => [o.orderId, o.exceptions])).toEqual([
        [noDetails.orderId, ['no_shipping_details']],
      ]);
      const cookie = await signInAs(coopers);
      const cList = (
        await inject('GET', '/api/seller/orders?status=exceptions', { cookie })
      ).json<SellerOrderList>();
      expect(cList.orders.map((o) => [o.orderId, o.status, o.exceptions])).toEqual([
        [late.orderId, 'oversold', ['oversold']],
      ]);
      const r = await inject('POST', `/api/seller/orders/${late.orderId}/resolve`, {
        cookie,
        body: { exception: 'oversold', note: 'Wrote to the buyer; refund on its way' },
      });
      expect(r.statusCode, r.body).toBe(200);
      expect(r.json<SellerOrderDetail>().resolved).toEqual(['oversold']);
      const g = await inject('POST', `/api/seller/orders/${noDetails.orderId}/resolve`, {
        cookie: gorillaCookie,
        body: { exception: 'no_shipping_details', note: 'Asked the buyer for the address by e-mail' },
      });
      expect(g.statusCode, g.body).toBe(200);
      expect(g.json<SellerOrderDetail>().resolved).toEqual(['no_shipping_details']);
    });

    it('Mark refunded: refuses bad input with 400, and says so when the chain cannot be read (503); nothing recorded', async () => {
      const o = await glassOrder();
      await pay(o);
      await pay(o, 2_000_000n); // an extra payment to refund (above the dust threshold)
      const cookie = await signInAs(coopers);
      const refund = (body: unknown) =>
        inject('POST', `/api/seller/orders/${o.orderId}/refund`, { cookie, body });
      const sig = bs58.encode(randomBytes(64));
      for (const [body, error] of [
        [{ exception: 'extra_payment' }, 'signature_required'],
        [{ exception: 'extra_payment', signature: 'not-a-signature' }, 'invalid_signature'],
        [{ exception: 'lost', signature: sig }, 'invalid_exception'],
        [{ exception: 'extra_payment', signature: sig, amount: 5 }, 'invalid_request'],
      ] as const) {
        const r = await refund(body);
        expect(r.statusCode, JSON.stringify(body)).toBe(400);
        expect(r.json()).toMatchObject({ error });
      }
      const notThat = await refund({ exception: 'underpaid', signature: sig });
      expect(notThat.statusCode).toBe(409);
      expect(notThat.json()).toMatchObject({ error: 'no_such_exception' });
      // SOLANA_RPC_URL points at a closed port here.
      const down = await refund({ exception: 'extra_payment', signature: sig });
      expect(down.statusCode, down.body).toBe(503);
      expect(down.json()).toMatchObject({
        error: 'rpc_unavailable',
        message: 'The Solana network could not be reached to check the refund. Please try again.',
      });
      const d = (
        await inject('GET', `/api/seller/orders/${o.orderId}`, { cookie })
      ).json<SellerOrderDetail>();
      expect(d.actions).toEqual([]);
      expect(d.resolved).toEqual([]);
    });

    it('has no demo sign-in outside demo mode', async () => {
      const r = await inject('POST', '/api/seller/demo-session', { body: { vendorId: 'coopersglass' } });
      expect(r.statusCode).toBe(404);
    });
  });
});
