/**
 * Migration 0004 (payment ledger) on a store that already holds orders and e-mails: existing payments are copied
 * into the ledger, outbox rows survive the rebuild (SQLite) or the constraint change (PostgreSQL), and the outbox
 * still refuses a second row per (order, recipient, kind) for order-level messages. SQLite FILE, and PostgreSQL
 * when TEST_DATABASE_URL is set.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { migrations } from '../../src/server/store/migrations';
import { isUniqueViolation, openStore, type StoreConfig } from '../../src/server/store/store';
import { fakeSignature, postgresBackend, sqliteBackend, type Backend } from './orders-support';
import { migrationsBefore, storeMigratedWith } from '../support/old-store';

const before0004 = migrationsBefore(migrations, '0004');
const oldStore = (config: StoreConfig) => storeMigratedWith(config, before0004);

const order = (
  id: string,
  status: string,
  signature: string | null,
  received: string | null,
  finalized = 0,
) => ({
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
  signature,
  received_base_units: received,
  block_time: 1_893_456_000,
  finalized,
  confirmation_requested_at: null,
  created_at: '2030-01-01T00:00:00.000Z',
  updated_at: '2030-01-01T00:01:00.000Z',
});

const mail = (id: string, orderId: string, kind: string) => ({
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
  next_attempt_at: '2030-01-01T00:01:00.000Z',
  locked_until: null,
  lock_token: null,
  last_error: null,
  delivered_at: '2030-01-01T00:02:00.000Z',
  created_at: '2030-01-01T00:01:00.000Z',
});

describe.each([sqliteBackend(), postgresBackend()])('migration 0004 on $name', (backend: Backend) => {
  afterAll(async () => {
    await backend.cleanup();
  });

  it.runIf(backend.enabled)('copies existing payments into the ledger and keeps the outbox', async () => {
    const config = await backend.fresh();
    const old = await oldStore(config);
    const paid = fakeSignature();
    const short = fakeSignature();
    await old
      .insertInto('orders')
      .values([
        order('o-paid', 'final', paid, '1000000', 1),
        order('o-short', 'underpaid', short, '400000'),
        order('o-open', 'awaiting_payment', null, null),
      ])
      .execute();
    await old
      .insertInto('outbox')
      .values([mail('m1', 'o-paid', 'order_confirmation'), mail('m2', 'o-short', 'payment_underpaid')])
      .execute();
    await old.destroy();

    const store = await openStore(config);
    try {
      const rows = await store.db.selectFrom('payments').selectAll().orderBy('order_id').execute();
      expect(
        rows.map((r) => [
          r.order_id,
          r.signature,
          Number(r.seq),
          r.received_base_units,
          r.role,
          r.confirmation,
          Number(r.block_time),
          r.recorded_at,
        ]),
      ).toEqual([
        ['o-paid', paid, 1, '1000000', 'payment', 'finalized', 1_893_456_000, '2030-01-01T00:01:00.000Z'],
        ['o-short', short, 1, '400000', 'partial', 'confirmed', 1_893_456_000, '2030-01-01T00:01:00.000Z'],
      ]);
      const outbox = await store.db.selectFrom('outbox').selectAll().orderBy('id').execute();
      expect(
        outbox.map((r) => [r.id, r.order_id, r.kind, r.state, r.payment_signature, r.delivered_at]),
      ).toEqual([
        ['m1', 'o-paid', 'order_confirmation', 'sent', '', '2030-01-01T00:02:00.000Z'],
        ['m2', 'o-short', 'payment_underpaid', 'sent', '', '2030-01-01T00:02:00.000Z'],
      ]);
      // Order-level messages are still one per (order, recipient, kind); a note about one payment is another row.
      const dup = await store.db
        .insertInto('outbox')
        .values({
          ...mail('m3', 'o-paid', 'order_confirmation'),
          role: 'seller',
          kind: 'order_confirmation',
          state: 'pending',
        })
        .execute()
        .then(
          () => 'inserted',
          (err: unknown) => (isUniqueViolation(err) ? 'unique' : String(err)),
        );
      expect(dup).toBe('unique');
      await store.db
        .insertInto('outbox')
        .values({
          ...mail('m4', 'o-paid', 'payment_received'),
          role: 'seller',
          kind: 'payment_received',
          state: 'pending',
          payment_signature: fakeSignature(),
        })
        .execute();
      await store.db
        .insertInto('outbox')
        .values({
          ...mail('m5', 'o-paid', 'payment_received'),
          role: 'seller',
          kind: 'payment_received',
          state: 'pending',
          payment_signature: fakeSignature(),
        })
        .execute();
      expect(
        await store.db.selectFrom('outbox').select('id').where('order_id', '=', 'o-paid').execute(),
      ).toHaveLength(3);
      // The ledger's signature is unique across orders.
      const twice = await store.db
        .insertInto('payments')
        .values({
          signature: paid,
          order_id: 'o-open',
          seq: 1,
          received_base_units: '1',
          slot: null,
          block_time: null,
          confirmation: 'confirmed',
          role: 'partial',
          recorded_at: 'x',
        })
        .execute()
        .then(
          () => 'inserted',
          (err: unknown) => (isUniqueViolation(err) ? 'unique' : String(err)),
        );
      expect(twice).toBe('unique');
    } finally {
      await store.close();
    }
  });
});
