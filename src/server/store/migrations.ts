/**
 * Versioned migrations, applied at start by Kysely's Migrator (table `store_migration`, with its lock table so
 * two instances starting together on PostgreSQL apply each migration once). One code path for both dialects:
 * portable column types only. Append new migrations; never edit an applied one.
 */
import type { Kysely, Migration } from 'kysely';

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
      await db.schema.createIndex('orders_status_expires').on('orders').columns(['status', 'expires_at']).execute();

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
        await db.updateTable('orders').set((eb: any) => ({ [tmp]: eb.ref(column) })).execute();
        await db.schema.alterTable('orders').dropColumn(column).execute();
        await db.schema.alterTable('orders').renameColumn(tmp, column).execute();
      }
    },
  },
};
