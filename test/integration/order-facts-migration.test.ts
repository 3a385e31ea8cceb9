/**
 * Migration 0024 (order facts on the order, issue 29) on a store that already holds orders, their e-mails and
 * seller actions: the buyer's cancel request, the vendor's decline of it and the order confirmation are carried
 * over from the outbox rows and the seller's "Record action" into orders.cancel_requested_at, cancel_declined_at
 * and confirmed_at; orders without such rows keep NULL. SQLite file, and PostgreSQL when TEST_DATABASE_URL is set.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/server/store/migrations';
import { openStore } from '../../src/server/store/store';
import { postgresBackend, sqliteBackend, type Backend } from './orders-support';
import { migrationsBefore, storeMigratedWith } from '../support/old-store';

const before0024 = migrationsBefore(migrations, '0024');

const order = (id: string, status: string) => ({
  id,
  reference: `ref-${id}`,
  vendor_id: 'coopersglass',
  payout_group: 'coopersglass',
  items_json: '[]',
  total_cents: 100,
  price_usd: '1',
  amount_base_units: '1000000',
  recipient: 'R',
  mint: 'M',
  solana_pay_url: 'solana:x',
  payment_method: 'wallet',
  shipping_json: '{}',
  referrer: null,
  status,
  expires_at: '2030-01-01T00:15:00.000Z',
  signature: null,
  received_base_units: '1000000',
  block_time: null,
  finalized: 0,
  confirmation_requested_at: null,
  created_at: '2030-01-01T00:00:00.000Z',
  updated_at: '2030-01-01T00:01:00.000Z',
  public_token: `token-${id}`,
});

const mail = (id: string, orderId: string, kind: string, at: string) => ({
  id,
  order_id: orderId,
  kind,
  role: 'seller',
  recipient_email: 'seller@shop.test',
  payout_group: 'coopersglass',
  payment_seen: 1,
  payload_json: '{}',
  after_id: null,
  state: 'sent',
  attempts: 1,
  next_attempt_at: at,
  locked_until: null,
  lock_token: null,
  last_error: null,
  delivered_at: at,
  created_at: at,
  payment_signature: '',
});

const action = (id: string, orderId: string, act: string, exception: string, at: string) => ({
  id,
  order_id: orderId,
  action: act,
  detail_json: JSON.stringify({ exception, note: 'n' }),
  address: 'A',
  at,
});

describe.each([sqliteBackend(), postgresBackend()])('migration 0024 on $name', (backend: Backend) => {
  afterAll(() => backend.cleanup());

  it.runIf(backend.enabled)(
    'moves cancel requests, their decline and confirmations from the e-mails onto the orders',
    async () => {
      const config = await backend.fresh();
      const old = await storeMigratedWith(config, before0024);
      await old
        .insertInto('orders')
        .values([
          order('o-asked', 'paid'),
          order('o-declined', 'paid'),
          order('o-cancelled', 'cancelled'),
          order('o-plain', 'paid'),
        ])
        .execute();
      await old
        .insertInto('outbox')
        .values([
          mail('m1', 'o-asked', 'order_confirmation', '2030-01-01T00:02:00.000Z'),
          mail('m2', 'o-asked', 'cancel_requested', '2030-01-01T00:05:00.000Z'),
          mail('m3', 'o-declined', 'cancel_requested', '2030-01-01T00:06:00.000Z'),
          mail('m4', 'o-cancelled', 'cancel_requested', '2030-01-01T00:07:00.000Z'),
          mail('m5', 'o-plain', 'payment_received', '2030-01-01T00:08:00.000Z'),
        ])
        .execute();
      await old
        .insertInto('seller_actions')
        .values([
          action('a1', 'o-declined', 'resolved', 'cancel_requested', '2030-01-01T00:09:00.000Z'),
          // Settled by the refund once cancelled: no decline.
          action('a2', 'o-cancelled', 'refunded', 'cancel_requested', '2030-01-01T00:10:00.000Z'),
          action('a3', 'o-plain', 'resolved', 'extra_payment', '2030-01-01T00:11:00.000Z'),
        ])
        .execute();
      await old.destroy();

      const store = await openStore(config);
      try {
        const rows = await store.db
          .selectFrom('orders')
          .select(['id', 'cancel_requested_at', 'cancel_declined_at', 'confirmed_at'])
          .orderBy('id')
          .execute();
        expect(rows).toEqual([
          {
            id: 'o-asked',
            cancel_requested_at: '2030-01-01T00:05:00.000Z',
            cancel_declined_at: null,
            confirmed_at: '2030-01-01T00:02:00.000Z',
          },
          {
            id: 'o-cancelled',
            cancel_requested_at: '2030-01-01T00:07:00.000Z',
            cancel_declined_at: null,
            confirmed_at: null,
          },
          {
            id: 'o-declined',
            cancel_requested_at: '2030-01-01T00:06:00.000Z',
            cancel_declined_at: '2030-01-01T00:09:00.000Z',
            confirmed_at: null,
          },
          { id: 'o-plain', cancel_requested_at: null, cancel_declined_at: null, confirmed_at: null },
        ]);
      } finally {
        await store.close();
      }
    },
  );
});
