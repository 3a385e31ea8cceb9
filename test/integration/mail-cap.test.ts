/**
 * Issue 28, finding 6: "e-mail to anyone, cheaply". An attacker types a victim's address into orders and pays a
 * little above dust after the window, so each order sends the victim a "Payment short" e-mail greeting them with
 * the attacker's text. On the real store (SQLite file; PostgreSQL when TEST_DATABASE_URL is set) and a real SMTP
 * server on loopback: buyer messages carry only a bounded name (no link, domain, digits or markup, no address
 * text), at most MAIL_CAP_PER_DAY per address a day (one mailbox whatever its +tags and Gmail dots), the rest
 * withheld with a reason the seller sees and can override; an address that paid an order is exempt; the store
 * keeps only a keyed hash of the address for it.
 */
import { Keypair } from '@solana/web3.js';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { OrderCreated, QuoteResponse } from '../../src/core/api';
import type { SellerOrderDetail } from '../../src/core/seller-api';
import { MAIL_NAME_MAX } from '../../src/core/email-payload';
import { MAIL_CAP_PER_DAY } from '../../src/server/mail/cap';
import { startServer, type RunningServer } from '../../src/server/server';
import { loadSettings } from '../../src/server/settings';
import type { StoreConfig } from '../../src/server/store/store';
import { restock } from '../support/stock';
import { injector, signInSeller } from '../support/seller-session';
import { startSmtpSink, type SmtpSink } from '../support/smtp-sink';
import { payoutAccountsAssumedToExist } from '../support/payout-accounts';
import {
  Clock,
  fakeSignature,
  keys,
  postgresBackend,
  sqliteBackend,
  TestPrice,
  type Backend,
} from './orders-support';

const coopers = Keypair.generate();
const gorilla = Keypair.generate();
const ATTACK_NAME = 'Win a prize at evil.example http://evil.example/x <b>now</b> call 555 0100 Zed';
const VICTIM = 'victim.person@gmail.com';
/** One mailbox: the attacker varies +tags, dots and case to dodge a per-address count. */
const VARIANTS = [
  'victim.person@gmail.com',
  'Victim.Person+a1@gmail.com',
  'victimperson+b2@googlemail.com',
  'v.i.c.t.i.m.person+c3@gmail.com',
  'VICTIMPERSON@gmail.com',
];
const shipping = (email: string) => ({
  kind: 'international',
  fullName: ATTACK_NAME,
  email,
  address1: 'Claim it at https://evil.example/claim',
  city: 'Call 555 0100',
  stateProvince: 'www.evil.example',
  postalCode: 'EV1 1L',
  country: 'Evilland',
});

describe.each([sqliteBackend(), postgresBackend()])('automated e-mail cap on $name', (backend: Backend) => {
  describe.runIf(backend.enabled)(`${backend.name} store`, () => {
    let config: StoreConfig;
    let server: RunningServer;
    let sink: SmtpSink;
    let clock: Clock;
    let price: TestPrice;
    let n = 0;

    beforeEach(async () => {
      config = await backend.fresh();
      sink = await startSmtpSink();
      clock = new Clock(Date.now());
      price = new TestPrice(clock, '0.5');
      server = await startServer(
        loadSettings({
          DATA_KEYS: `k1:${Buffer.alloc(32, 5).toString('base64')}`,
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
          HOLD_LIMIT_PER_CLIENT: '0',
          MAIL_TRANSPORT: 'smtp',
          SMTP_URL: sink.url,
        }),
        {
          payoutAccounts: payoutAccountsAssumedToExist,
          store: config,
          priceSource: price,
          now: clock.now,
          listen: false,
          startOutbox: false,
          expireEveryMs: 0,
          retention: false,
        },
      );
      await restock(server, 'sonic-crushed-opal-spillproof', 50);
    });
    afterEach(async () => {
      await server.close();
      await sink.close();
    });
    afterAll(async () => {
      await backend.cleanup();
    });

    const inject = injector(() => server, 'https://shop.example');

    async function order(email: string): Promise<OrderCreated> {
      const q = await inject('POST', '/api/quotes', {
        body: { items: [{ productId: 'sonic-crushed-opal-spillproof', quantity: 1 }] },
      });
      expect(q.statusCode, q.body).toBe(200);
      const r = await inject('POST', '/api/orders', {
        body: { quote: q.json<QuoteResponse>().quote, shipping: shipping(email), paymentMethod: 'wallet' },
        headers: { 'idempotency-key': `cap-${++n}` },
      });
      expect(r.statusCode, r.body).toBe(201);
      return r.json<OrderCreated>();
    }
    /** A short transfer (30 %, far above dust) after the window: "Payment short" to the seller and the buyer. */
    async function payShort(o: OrderCreated) {
      const r = await server.orders.recordPayment(
        { orderId: o.orderId },
        {
          signature: fakeSignature(),
          receivedBaseUnits: (BigInt(o.amountBaseUnits) * 3n) / 10n,
          finalized: true,
          blockTime: Math.floor(Date.parse(o.expiresAt) / 1000) + 1,
        },
      );
      expect(r).toMatchObject({ ok: true, status: 'underpaid' });
    }
    const toVictim = () =>
      sink
        .messages()
        .filter(
          (m) =>
            m.headers.get('x-claim-kind') !== undefined &&
            !/seller/.test(String(m.headers.get('x-claim-kind'))),
        );

    it('a victim gets at most the cap of bounded, link-free messages; the rest are withheld for the seller to see; paying lifts it', async () => {
      const attacks: OrderCreated[] = [];
      for (const email of VARIANTS) {
        const o = await order(email);
        await payShort(o);
        attacks.push(o);
      }
      await server.outbox.runOnce();
      // 5 seller notes, MAIL_CAP_PER_DAY buyer notes: the victim's mailbox got 3, whatever the variants.
      await sink.waitFor(VARIANTS.length + MAIL_CAP_PER_DAY);
      await new Promise((r) => setTimeout(r, 300));
      const victim = toVictim();
      expect(victim).toHaveLength(MAIL_CAP_PER_DAY);
      for (const m of victim) {
        const text = `${m.subject}\n${m.text}\n${String(m.html)}\n${JSON.stringify(m.to)}`;
        for (const bad of [
          'evil.example',
          'http://evil',
          'www.',
          // The typed phone number ('555' alone is found in random order tokens and transaction ids).
          '555 0100',
          '<b>',
          'Claim it',
          'Evilland',
          'Call 5',
        ])
          expect(text, bad).not.toContain(bad);
        const greeting = /^Hello (.*),$/m.exec(m.text ?? '')?.[1] ?? '';
        expect(greeting.length).toBeGreaterThan(0);
        expect([...greeting].length).toBeLessThanOrEqual(MAIL_NAME_MAX);
        expect(greeting).toMatch(/^[\p{L} '’-]+$/u);
      }
      // The seller's notes keep what the buyer typed (the seller's own fixed address receives them).
      const sellerNotes = sink.messages().filter((m) => /seller/.test(String(m.headers.get('x-claim-kind'))));
      expect(sellerNotes).toHaveLength(VARIANTS.length);

      // The withheld ones are recorded with a reason the seller sees, and "Send again" sends one.
      const cookie = await signInSeller(inject, coopers);
      const last = attacks[attacks.length - 1]!;
      const detail = (
        await inject('GET', `/api/seller/orders/${last.orderId}`, { cookie })
      ).json<SellerOrderDetail>();
      const withheld = detail.emails.find((e) => e.recipient === 'buyer');
      expect(withheld).toMatchObject({ state: 'withheld', kind: 'payment_underpaid' });
      expect(withheld?.lastError).toContain(
        `this address already had ${MAIL_CAP_PER_DAY} automated e-mails about unpaid orders in the last 24 hours`,
      );
      const page = await inject('GET', `/api/order-pages/${last.orderUrl.split('/order/')[1] ?? ''}`);
      expect(page.statusCode).toBe(200);
      const before = sink.messages().length;
      const resend = await inject(
        'POST',
        `/api/seller/orders/${last.orderId}/emails/${withheld!.id}/resend`,
        {
          cookie,
        },
      );
      expect(resend.statusCode, resend.body).toBeLessThan(300);
      await server.outbox.runOnce();
      await sink.waitFor(before + 1);

      // The store holds a keyed hash for the count, never the address.
      const recipients = await server.store.db.selectFrom('mail_recipients').selectAll().execute();
      expect(recipients).toHaveLength(1);
      expect(recipients[0]?.recipient_key).toMatch(/^[0-9a-f]{32}$/);
      expect(JSON.stringify(recipients)).not.toContain('victim');

      // The victim pays an order in full: its confirmation is never capped, and the address is exempt after.
      const real = await order(VICTIM);
      const paid = await server.orders.recordPayment(
        { orderId: real.orderId },
        {
          signature: fakeSignature(),
          receivedBaseUnits: BigInt(real.amountBaseUnits),
          finalized: true,
          blockTime: null,
        },
      );
      expect(paid).toMatchObject({ ok: true, status: 'final' });
      const later = await order(VARIANTS[1]!);
      await payShort(later);
      const count = toVictim().length;
      await server.outbox.runOnce();
      const deadline = Date.now() + 10_000;
      while (toVictim().length < count + 2 && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 100));
      expect(toVictim().length).toBe(count + 2);
      const states = await server.store.db
        .selectFrom('outbox')
        .select(['order_id', 'state'])
        .where('role', '=', 'buyer')
        .where('order_id', 'in', [real.orderId, later.orderId])
        .execute();
      expect(states.map((s) => s.state)).toEqual(['sent', 'sent']);
    });

    it('concurrent orders to one mailbox count one after another: at most the cap goes out', async () => {
      const orders: OrderCreated[] = [];
      for (let i = 0; i < 8; i++) orders.push(await order(VARIANTS[i % VARIANTS.length]!));
      await Promise.all(orders.map((o) => payShort(o)));
      const states = (
        await server.store.db.selectFrom('outbox').select('state').where('role', '=', 'buyer').execute()
      ).map((r) => r.state);
      expect(states).toHaveLength(8);
      expect(states.filter((s) => s !== 'withheld')).toHaveLength(MAIL_CAP_PER_DAY);
    });

    it('the cap window is a day: a day later the address gets messages again', async () => {
      for (const email of VARIANTS.slice(0, MAIL_CAP_PER_DAY + 1)) await payShort(await order(email));
      const stateOf = async () =>
        (
          await server.store.db.selectFrom('outbox').select('state').where('role', '=', 'buyer').execute()
        ).map((r) => r.state);
      expect((await stateOf()).filter((s) => s === 'withheld')).toHaveLength(1);
      clock.advance(24 * 3600_000 + 1000);
      price.set('0.5');
      await payShort(await order(VICTIM));
      expect((await stateOf()).filter((s) => s === 'withheld')).toHaveLength(1);
      expect((await stateOf()).filter((s) => s === 'pending')).toHaveLength(MAIL_CAP_PER_DAY + 1);
    });
  });
});
