/** Migrations 0045–0049: the vendors' webhooks (issue 35; docs/decisions/webhooks.md); see ./migrations.ts. */
import type { Kysely, Migration } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export const webhookMigrations: Record<string, Migration> = {
  /**
   * A vendor's endpoints (URL, the event types it wants, its signing secrets sealed at rest), the deliveries the
   * order module queues in its own transactions (one per event and endpoint: the `webhook-id` across retries),
   * every attempt of each, and the notes that make an event be sent once (an exception opened, a line sold out).
   */
  '0045_webhooks': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('webhook_endpoints')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('vendor_id', 'text', (c) => c.notNull())
        .addColumn('url', 'text', (c) => c.notNull())
        .addColumn('events_json', 'text', (c) => c.notNull())
        .addColumn('include_shipping', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('secret', 'text', (c) => c.notNull())
        .addColumn('previous_secret', 'text')
        .addColumn('previous_secret_until', 'text')
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('state_reason', 'text')
        .addColumn('failing_since', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_endpoints_vendor')
        .on('webhook_endpoints')
        .columns(['vendor_id', 'created_at'])
        .execute();
      await db.schema
        .createTable('webhook_deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('endpoint_id', 'text', (c) => c.notNull())
        .addColumn('vendor_id', 'text', (c) => c.notNull())
        .addColumn('order_id', 'text')
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('payload_json', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'text', (c) => c.notNull())
        .addColumn('retry_until', 'text', (c) => c.notNull())
        .addColumn('locked_until', 'text')
        .addColumn('lock_token', 'text')
        .addColumn('last_status', 'integer')
        .addColumn('last_attempt_at', 'text')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('delivered_at', 'text')
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_due')
        .on('webhook_deliveries')
        .columns(['state', 'next_attempt_at'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_endpoint')
        .on('webhook_deliveries')
        .columns(['endpoint_id', 'created_at'])
        .execute();
      await db.schema
        .createIndex('webhook_deliveries_order')
        .on('webhook_deliveries')
        .column('order_id')
        .execute();
      await db.schema
        .createTable('webhook_attempts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('delivery_id', 'text', (c) => c.notNull())
        .addColumn('at', 'text', (c) => c.notNull())
        .addColumn('status', 'integer')
        .addColumn('error', 'text')
        .addColumn('duration_ms', 'integer', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('webhook_attempts_delivery')
        .on('webhook_attempts')
        .columns(['delivery_id', 'at'])
        .execute();
      await db.schema
        .createTable('webhook_notes')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('at', 'text', (c) => c.notNull())
        .execute();
    },
  },
};
