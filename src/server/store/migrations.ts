/**
 * Versioned migrations, applied at start by Kysely's Migrator (table `store_migration`, with its lock table so
 * two instances starting together on PostgreSQL apply each migration once). One code path for both dialects:
 * portable column types only. Append new migrations; never edit an applied one.
 */
import { sql, SqliteAdapter, type Kysely, type Migration } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export const migrations: Record<string, Migration> = {
  '0001_orders_outbox': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('orders')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('reference', 'text', (c) => c.notNull().unique())
        .addColumn('vendor_id', 'text', (c) => c.notNull())
        .addColumn('payout_group', 'text', (c) => c.notNull())
        .addColumn('items_json', 'text', (c) => c.notNull())
        .addColumn('total_cents', 'integer', (c) => c.notNull())
        .addColumn('price_usd', 'text', (c) => c.notNull())
        .addColumn('amount_base_units', 'text', (c) => c.notNull())
        .addColumn('recipient', 'text', (c) => c.notNull())
        .addColumn('mint', 'text', (c) => c.notNull())
        .addColumn('solana_pay_url', 'text', (c) => c.notNull())
        .addColumn('payment_method', 'text', (c) => c.notNull())
        .addColumn('shipping_json', 'text', (c) => c.notNull())
        .addColumn('referrer', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('signature', 'text', (c) => c.unique())
        .addColumn('received_base_units', 'text')
        .addColumn('block_time', 'integer')
        .addColumn('finalized', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('confirmation_requested_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('orders_status_expires')
        .on('orders')
        .columns(['status', 'expires_at'])
        .execute();

      await db.schema
        .createTable('order_history')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('event', 'text', (c) => c.notNull())
        .addColumn('at', 'text', (c) => c.notNull())
        .addUniqueConstraint('order_history_order_seq', ['order_id', 'seq'])
        .execute();

      await db.schema
        .createTable('idempotency_keys')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('request_hash', 'text', (c) => c.notNull())
        .addColumn('status_code', 'integer', (c) => c.notNull())
        .addColumn('response_json', 'text', (c) => c.notNull())
        .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('outbox')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('recipient_email', 'text', (c) => c.notNull())
        .addColumn('payout_group', 'text', (c) => c.notNull())
        .addColumn('payment_seen', 'integer', (c) => c.notNull())
        .addColumn('payload_json', 'text', (c) => c.notNull())
        .addColumn('after_id', 'text')
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'text', (c) => c.notNull())
        .addColumn('locked_until', 'text')
        .addColumn('lock_token', 'text')
        .addColumn('last_error', 'text')
        .addColumn('delivered_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        // At most one message per (order, recipient, kind).
        .addUniqueConstraint('outbox_order_role_kind', ['order_id', 'role', 'kind'])
        .execute();
      await db.schema.createIndex('outbox_due').on('outbox').columns(['state', 'next_attempt_at']).execute();
    },
  },
  '0002_price_history': {
    async up(db: Kysely<any>) {
      // One row per successful price refresh; t is the ISO-8601 UTC fetch time (fixed width: sorts as text).
      await db.schema
        .createTable('price_history')
        .addColumn('t', 'text', (c) => c.primaryKey())
        .addColumn('price_usd', 'text', (c) => c.notNull())
        .execute();
    },
  },
  // Unpriced QR orders (no price known: totalCLAIM 'N/A'): price, amount and payment link become nullable.
  // SQLite cannot drop NOT NULL in place, so each column is copied into a nullable one (add, copy, drop,
  // rename: portable, and none of these columns is indexed or referenced).
  '0003_unpriced_orders': {
    async up(db: Kysely<any>) {
      for (const column of ['price_usd', 'amount_base_units', 'solana_pay_url']) {
        const tmp = `${column}_n`;
        await db.schema.alterTable('orders').addColumn(tmp, 'text').execute();
        await db
          .updateTable('orders')
          .set((eb: any) => ({ [tmp]: eb.ref(column) }))
          .execute();
        await db.schema.alterTable('orders').dropColumn(column).execute();
        await db.schema.alterTable('orders').renameColumn(tmp, column).execute();
      }
    },
  },
  // The payment ledger (issue 4: nothing is dropped): one row per verified transfer that mentions an order's
  // reference, UNIQUE(signature) so one transaction pays at most one order and is recorded once. Existing
  // payments (orders.signature) are copied in. The outbox gains `payment_signature` ('' for messages about the
  // order as a whole) in its uniqueness, so the seller gets one 'payment_received' note per extra payment while
  // every other (order, recipient, kind) stays at most one row.
  '0004_payment_ledger': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('payments')
        .addColumn('signature', 'text', (c) => c.primaryKey())
        .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
        // The row's place in the order's ledger (1, 2, …): a stable order for sums and display.
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('received_base_units', 'text', (c) => c.notNull())
        .addColumn('slot', 'integer')
        .addColumn('block_time', 'integer')
        .addColumn('confirmation', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('recorded_at', 'text', (c) => c.notNull())
        .addUniqueConstraint('payments_order_seq', ['order_id', 'seq'])
        .execute();
      await db
        .insertInto('payments')
        .columns([
          'signature',
          'order_id',
          'seq',
          'received_base_units',
          'slot',
          'block_time',
          'confirmation',
          'role',
          'recorded_at',
        ])
        .expression(
          db
            .selectFrom('orders')
            .select((eb: any) => [
              'signature',
              'id',
              sql.lit(1).as('seq'),
              eb.fn.coalesce('received_base_units', sql.lit('0')).as('received_base_units'),
              sql.lit(null).as('slot'),
              'block_time',
              eb
                .case()
                .when('finalized', '=', 1)
                .then(sql.lit('finalized'))
                .else(sql.lit('confirmed'))
                .end()
                .as('confirmation'),
              eb
                .case()
                .when('status', '=', 'underpaid')
                .then(sql.lit('partial'))
                .else(sql.lit('payment'))
                .end()
                .as('role'),
              'updated_at',
            ])
            .where('signature', 'is not', null),
        )
        .execute();

      const sqlite = db.getExecutor().adapter instanceof SqliteAdapter;
      if (!sqlite) {
        await db.schema
          .alterTable('outbox')
          .addColumn('payment_signature', 'text', (c) => c.notNull().defaultTo(''))
          .execute();
        await db.schema.alterTable('outbox').dropConstraint('outbox_order_role_kind').execute();
        await db.schema
          .alterTable('outbox')
          .addUniqueConstraint('outbox_order_role_kind_payment', [
            'order_id',
            'role',
            'kind',
            'payment_signature',
          ])
          .execute();
        return;
      }
      // SQLite cannot change a table constraint in place: rebuild the outbox (nothing references it).
      await db.schema
        .createTable('outbox_v4')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('recipient_email', 'text', (c) => c.notNull())
        .addColumn('payout_group', 'text', (c) => c.notNull())
        .addColumn('payment_seen', 'integer', (c) => c.notNull())
        .addColumn('payload_json', 'text', (c) => c.notNull())
        .addColumn('after_id', 'text')
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'text', (c) => c.notNull())
        .addColumn('locked_until', 'text')
        .addColumn('lock_token', 'text')
        .addColumn('last_error', 'text')
        .addColumn('delivered_at', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('payment_signature', 'text', (c) => c.notNull().defaultTo(''))
        .addUniqueConstraint('outbox_order_role_kind_payment', [
          'order_id',
          'role',
          'kind',
          'payment_signature',
        ])
        .execute();
      const columns = [
        'id',
        'order_id',
        'kind',
        'role',
        'recipient_email',
        'payout_group',
        'payment_seen',
        'payload_json',
        'after_id',
        'state',
        'attempts',
        'next_attempt_at',
        'locked_until',
        'lock_token',
        'last_error',
        'delivered_at',
        'created_at',
      ];
      await db
        .insertInto('outbox_v4')
        .columns(columns)
        .expression(db.selectFrom('outbox').select(columns))
        .execute();
      await db.schema.dropTable('outbox').execute();
      await db.schema.alterTable('outbox_v4').renameTo('outbox').execute();
      await db.schema.createIndex('outbox_due').on('outbox').columns(['state', 'next_attempt_at']).execute();
    },
  },
};
