/** Migrations 0001–0008 (the store's first schema, through the seller console); see ./migrations.ts. */
import { randomBytes } from 'node:crypto';
import { sql, SqliteAdapter, type Kysely, type Migration } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export const earlyMigrations: Record<string, Migration> = {
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
  // The payment ledger (nothing is dropped): one row per verified transfer that mentions an order's
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
  // The vendor-side payment watcher: per vendor token account a cursor of the newest signature judged,
  // every signature judged once (never fetched again), unmatched vendor transfers by account key (an order may be
  // recorded after its payment), and the lease that lets one instance watch.
  '0005_payment_scan': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('payment_scan_cursors')
        .addColumn('account', 'text', (c) => c.primaryKey())
        .addColumn('signature', 'text', (c) => c.notNull())
        .addColumn('slot', 'integer', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('payment_scan_judged')
        .addColumn('signature', 'text', (c) => c.primaryKey())
        .addColumn('verdict', 'text', (c) => c.notNull())
        .addColumn('judged_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('payment_scan_unmatched')
        .addColumn('reference', 'text', (c) => c.notNull())
        .addColumn('signature', 'text', (c) => c.notNull())
        .addColumn('seen_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('payment_scan_unmatched_pk', ['reference', 'signature'])
        .execute();
      await db.schema
        .createIndex('payment_scan_unmatched_signature')
        .on('payment_scan_unmatched')
        .column('signature')
        .execute();
      // The finality poll reads the ledger's unfinalized transfers, oldest first.
      await db.schema
        .createIndex('payments_confirmation_recorded')
        .on('payments')
        .columns(['confirmation', 'recorded_at'])
        .execute();
      await db.schema
        .createTable('payment_watch_lease')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
    },
  },
  // Stock: one line per product, or per variant of a product with variants (variant_id '' for none):
  // on_hand units not yet sold, of which `reserved` are held by open orders. Sold out is derived (nothing
  // available), never a flag. Lines are seeded from the catalogue's `initialStock` when the store starts
  // (src/server/stock/repository.ts: a product new to the store gets its line; an existing line is never
  // overwritten). `reservations`: what each order holds, until its quote expires (held → released) or it is paid
  // (held → sold; released → sold when still available, else oversold). `stock_changes`: every change with who
  // and when.
  '0006_stock': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('stock')
        .addColumn('product_id', 'text', (c) => c.notNull())
        .addColumn('variant_id', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('on_hand', 'integer', (c) => c.notNull())
        .addColumn('reserved', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('stock_pk', ['product_id', 'variant_id'])
        .addCheckConstraint('stock_on_hand_nonneg', sql`on_hand >= 0`)
        .addCheckConstraint('stock_reserved_nonneg', sql`reserved >= 0`)
        .execute();
      await db.schema
        .createTable('reservations')
        .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
        .addColumn('product_id', 'text', (c) => c.notNull())
        .addColumn('variant_id', 'text', (c) => c.notNull().defaultTo(''))
        .addColumn('quantity', 'integer', (c) => c.notNull())
        // held | released | sold | oversold
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('reservations_pk', ['order_id', 'product_id', 'variant_id'])
        .addCheckConstraint('reservations_quantity_pos', sql`quantity > 0`)
        .execute();
      await db.schema
        .createIndex('reservations_state_expires')
        .on('reservations')
        .columns(['state', 'expires_at'])
        .execute();
      await db.schema
        .createTable('stock_changes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('product_id', 'text', (c) => c.notNull())
        .addColumn('variant_id', 'text', (c) => c.notNull().defaultTo(''))
        // 1, 2, … per line, written while the line's row is locked: the log's order.
        .addColumn('seq', 'integer', (c) => c.notNull())
        // seed | set | reserve | release | sale | oversold
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('on_hand_delta', 'integer', (c) => c.notNull())
        .addColumn('reserved_delta', 'integer', (c) => c.notNull())
        .addColumn('on_hand_after', 'integer', (c) => c.notNull())
        .addColumn('reserved_after', 'integer', (c) => c.notNull())
        .addColumn('order_id', 'text')
        // Who: 'catalogue', 'cli:<user>', 'order', 'expiry', 'payment', later 'seller:<address>'.
        .addColumn('actor', 'text', (c) => c.notNull())
        .addColumn('at', 'text', (c) => c.notNull())
        .addUniqueConstraint('stock_changes_line_seq', ['product_id', 'variant_id', 'seq'])
        .execute();
    },
  },
  // QR records first, and the buyer's order page. A QR page records its payment target before the QR
  // is shown: an order without shipping details (shipping_json NULL) that the details attach to later, so
  // shipping_json becomes nullable (add, copy, drop, rename as in 0003: not indexed, not referenced). Every
  // order gets `public_token`, the capability token of its buyer page (/order/<token>): 128 random bits, hex,
  // UNIQUE; existing orders get one here. `details_notified_at`: when the seller was told "paid, shipping
  // details missing" (NULL: not yet / not needed).
  '0007_qr_records': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('orders').addColumn('shipping_json_n', 'text').execute();
      await db
        .updateTable('orders')
        .set((eb: any) => ({ shipping_json_n: eb.ref('shipping_json') }))
        .execute();
      await db.schema.alterTable('orders').dropColumn('shipping_json').execute();
      await db.schema.alterTable('orders').renameColumn('shipping_json_n', 'shipping_json').execute();
      await db.schema.alterTable('orders').addColumn('public_token', 'text').execute();
      await db.schema.alterTable('orders').addColumn('details_notified_at', 'text').execute();
      const ids = (await db.selectFrom('orders').select('id').execute()) as { id: string }[];
      for (const { id } of ids) {
        await db
          .updateTable('orders')
          .set({ public_token: randomBytes(16).toString('hex') })
          .where('id', '=', id)
          .execute();
      }
      await db.schema
        .createIndex('orders_public_token')
        .on('orders')
        .column('public_token')
        .unique()
        .execute();
    },
  },
  '0008_seller_console': {
    async up(db: Kysely<any>) {
      // Sign-In-With-Solana nonces: single use (deleted when used), valid 5 minutes. In the store so that every
      // instance agrees which nonces were issued and which were used.
      await db.schema
        .createTable('seller_nonces')
        .addColumn('nonce', 'text', (c) => c.primaryKey())
        .addColumn('issued_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('seller_nonces_issued').on('seller_nonces').column('issued_at').execute();
      // Seller sessions: the cookie carries a random id, the store only its SHA-256 (a leaked table opens nothing).
      await db.schema
        .createTable('seller_sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('created_at', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('seller_sessions_expires')
        .on('seller_sessions')
        .column('expires_at')
        .execute();
      // What the seller did to an order (shipped with a tracking number, delivered, refunded, an exception
      // resolved), in order, with who (the payout address signed in) and when.
      await db.schema
        .createTable('seller_actions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('detail_json', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('seller_actions_order')
        .on('seller_actions')
        .columns(['order_id', 'at'])
        .execute();
      // The console lists a vendor's orders newest first.
      await db.schema
        .createIndex('orders_vendor_created')
        .on('orders')
        .columns(['vendor_id', 'created_at'])
        .execute();
    },
  },
};
