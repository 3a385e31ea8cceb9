/** Migrations from 0009 (rate limits, personal data, the console's live list); see ./migrations.ts. */
import { sql, SqliteAdapter, type Kysely, type Migration } from 'kysely';

/* eslint-disable @typescript-eslint/no-explicit-any */
export const laterMigrations: Record<string, Migration> = {
  // Rate-limit counters shared by every API instance on one database (src/server/ops/rate-limit-store.ts): one
  // fixed window per key (route + client IP), `reset_ms` = Unix ms when the window ends.
  '0009_rate_limits': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('rate_limits')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('points', 'integer', (c) => c.notNull())
        .addColumn('reset_ms', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('rate_limits_reset').on('rate_limits').column('reset_ms').execute();
    },
  },
  '0010_rate_limits_unlogged': {
    async up(db: Kysely<any>) {
      // PostgreSQL: rate-limit counters need no crash durability, and every request of one client IP updates the
      // same row, so each upsert waited for the previous one's WAL flush (about 200 counts/s for one key on the
      // 2-core machine, and the order route queued behind it). An unlogged table writes no WAL: its commits do
      // not wait for a flush. A PostgreSQL crash empties it (windows restart); a clean restart keeps it.
      // SQLite keeps no counters in the store (one instance: in-memory limiter).
      if (db.getExecutor().adapter instanceof SqliteAdapter) return;
      await sql`alter table rate_limits set unlogged`.execute(db);
    },
  },
  '0011_stock_change_seq': {
    async up(db: Kysely<any>) {
      // The change log's sequence number lives on the stock row and is bumped by the UPDATE that changes the
      // line: no `select max(seq)` while the row is locked (on PostgreSQL every order for a product waits for that
      // lock), and it is right under concurrency because the UPDATE re-reads the row it waited for.
      await db.schema
        .alterTable('stock')
        .addColumn('change_seq', 'integer', (c) => c.notNull().defaultTo(0))
        .execute();
      await sql`update stock set change_seq = coalesce((select max(c.seq) from stock_changes c
        where c.product_id = stock.product_id and c.variant_id = stock.variant_id), 0)`.execute(db);
    },
  },
  // Watcher lag: when the payment watcher last caught up with every vendor token account (listed up to
  // the chain's head and judged all it found). Written by the instance holding the watch, read by every instance's
  // /api/health/ready and /metrics (an instance that does not watch reports the holder's progress).
  '0012_watch_progress': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('payment_watch_progress')
        .addColumn('name', 'text', (c) => c.primaryKey())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('caught_up_at', 'text', (c) => c.notNull())
        .execute();
    },
  },
  // Seller sign-in checked against what was issued: each nonce keeps the whole request issued for it, and each
  // session the device it was opened on (the console lists the wallet's open sessions and can end them).
  '0013_seller_sign_in_requests': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('seller_nonces').addColumn('request_json', 'text').execute();
      await db.schema.alterTable('seller_sessions').addColumn('device', 'text').execute();
      await db.schema
        .createIndex('seller_sessions_address')
        .on('seller_sessions')
        .columns(['address', 'created_at'])
        .execute();
    },
  },
  // Seller alerts that are about no order (the price sources disagree): an outbox row may have no order, and
  // price_alerts keeps whether an alert episode is open (one e-mail per episode, across instances and restarts).
  '0014_seller_alerts': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('price_alerts')
        .addColumn('kind', 'text', (c) => c.primaryKey())
        // ISO time the open episode started; null while none is open.
        .addColumn('open_since', 'text')
        .execute();
      await db.insertInto('price_alerts').values({ kind: 'sources_disagree', open_since: null }).execute();
      if (!(db.getExecutor().adapter instanceof SqliteAdapter)) {
        await sql`alter table outbox alter column order_id drop not null`.execute(db);
        return;
      }
      // SQLite cannot drop NOT NULL in place: rebuild the outbox from its own definition (whatever columns earlier
      // migrations gave it) with order_id nullable; the foreign key to orders stays.
      const ddl = await sql<{
        sql: string;
      }>`select sql from sqlite_master where type = 'table' and name = 'outbox'`.execute(db);
      const create = ddl.rows[0]?.sql ?? '';
      const nullable = create.replace(/("order_id" text) not null/i, '$1');
      if (nullable === create) throw new Error('outbox.order_id: unexpected definition');
      await sql.raw(nullable.replace(/^create table "?outbox"?/i, 'create table "outbox_v14"')).execute(db);
      await sql`insert into outbox_v14 select * from outbox`.execute(db);
      await db.schema.dropTable('outbox').execute();
      await db.schema.alterTable('outbox_v14').renameTo('outbox').execute();
      await db.schema.createIndex('outbox_due').on('outbox').columns(['state', 'next_attempt_at']).execute();
    },
  },
  // Holds on intent: who holds a reservation (a keyed hash of the client's address, never the address), so no
  // client holds more than HOLD_LIMIT_PER_CLIENT units unpaid at once. NULL for holds made before, and for holds
  // a payment or the seller made.
  '0015_reservation_holder': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('reservations').addColumn('holder', 'text').execute();
      await db.schema
        .createIndex('reservations_holder')
        .on('reservations')
        .columns(['holder', 'state'])
        .execute();
    },
  },
  // Refunds: one row per refund transaction the chain confirmed, UNIQUE by signature (two recordings of one
  // transaction: one wins), checked against what is owed in the same transaction as it is written. Refunds recorded
  // before (seller actions `refunded`) are copied in.
  '0016_refunds': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('refunds')
        .addColumn('signature', 'text', (c) => c.primaryKey())
        .addColumn('order_id', 'text', (c) => c.notNull().references('orders.id'))
        .addColumn('amount_base_units', 'text', (c) => c.notNull())
        .addColumn('exception', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('at', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('refunds_order').on('refunds').columns(['order_id', 'at']).execute();
      const old = (await db
        .selectFrom('seller_actions')
        .select(['order_id', 'detail_json', 'address', 'at'])
        .where('action', '=', 'refunded')
        .execute()) as { order_id: string; detail_json: string; address: string; at: string }[];
      for (const a of old) {
        const d = JSON.parse(a.detail_json) as {
          signature?: string;
          amountBaseUnits?: string;
          exception?: string;
        };
        if (!d.signature) continue;
        await db
          .insertInto('refunds')
          .values({
            signature: d.signature,
            order_id: a.order_id,
            amount_base_units: d.amountBaseUnits ?? '0',
            exception: d.exception ?? '',
            address: a.address,
            at: a.at,
          })
          .onConflict((oc: any) => oc.column('signature').doNothing())
          .execute();
      }
    },
  },
  // Personal data (docs/decisions/privacy.md): `details_erased_at` marks an order whose buyer details and e-mail
  // bodies were erased (retention or the buyer's "Delete my details"); the order, amounts and ledger stay. The
  // values themselves are sealed by the application (it holds the keys, migrations do not): rows written before
  // sealing are sealed by the start-up pass of the order module (sealStoredData), which `npm run keys:rotate` runs
  // too.
  '0017_personal_data': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('orders').addColumn('details_erased_at', 'text').execute();
    },
  },
  // The seller console (docs/decisions/seller-console.md): `payments.usd_cents` is each transfer's USD value at
  // its own time (the reference price at its block time, as the paid-late e-mail values it), written when the
  // transfer is recorded — the price history is kept 24 h only, so the value cannot be worked out later. NULL for
  // transfers recorded before, or when no price was known then. `orders_vendor_updated` serves the console's
  // "changed since" poll.
  '0018_seller_console_live': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('payments').addColumn('usd_cents', 'integer').execute();
      await db.schema
        .createIndex('orders_vendor_updated')
        .on('orders')
        .columns(['vendor_id', 'updated_at'])
        .execute();
    },
  },
  // The console's changed-since poll also asks for seller actions since a time, of one vendor's orders: without an
  // index on the time it walked every order of the vendor (105 ms at 100,000 orders; bench/seller-list.ts).
  '0019_seller_actions_at': {
    async up(db: Kysely<any>) {
      await db.schema.createIndex('seller_actions_at').on('seller_actions').column('at').execute();
    },
  },
  // Transactions the watcher could not read (a version above ours, a malformed answer, an RPC error that
  // repeats), set aside so the cursor moves on (docs/decisions/transaction-versions.md), and the orders such a
  // transaction may concern: the order module's note, shown on the order's page and in the seller's exceptions.
  '0020_unreadable_transactions': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('payment_unreadable')
        .addColumn('signature', 'text', (c) => c.primaryKey())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('detail', 'text', (c) => c.notNull())
        .addColumn('account', 'text')
        .addColumn('set_aside_at', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createIndex('payment_unreadable_at')
        .on('payment_unreadable')
        .column('set_aside_at')
        .execute();
      await db.schema
        .createTable('order_unreadable_payments')
        .addColumn('order_id', 'text', (c) => c.notNull())
        .addColumn('signature', 'text', (c) => c.notNull())
        .addColumn('reason', 'text', (c) => c.notNull())
        .addColumn('noted_at', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('order_unreadable_payments_pk', ['order_id', 'signature'])
        .execute();
    },
  },
  // Refunds follow the money (docs/decisions/seller-console.md "Who is owed what"): `refunds.payer` is the sender a
  // refund went back to (their wallet, or token account when the node did not name the owner), so each sender is
  // refunded at most what is owed to them; NULL for refunds recorded before (they count against every sender).
  // `orders.dust_base_units` is the order's dust threshold when its last transfer was recorded (the order module
  // writes it with each payment): the console's queues leave dust out of the money exceptions in SQL. NULL for
  // orders paid before (nothing is dust there, as before).
  '0021_money_rules': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('refunds').addColumn('payer', 'text').execute();
      await db.schema.alterTable('orders').addColumn('dust_base_units', 'text').execute();
    },
  },
  // A wallet hold needs the money (docs/decisions/holds.md): each hold names the wallet that proved it holds the
  // order's amount, so the sum of one wallet's open holds is read (and kept within its balance) in one lookup.
  '0022_reservation_payer': {
    async up(db: Kysely<any>) {
      await db.schema.alterTable('reservations').addColumn('payer', 'text').execute();
      await db.schema
        .createIndex('reservations_payer')
        .on('reservations')
        .columns(['payer', 'state'])
        .execute();
    },
  },
  // Automated e-mail cap (docs/decisions/price-and-mail.md, "What an automated e-mail carries"): buyer messages
  // about unpaid orders are counted per recipient by a keyed hash of the address (`outbox.recipient_key`, NULL
  // for rows that do not count), at most a few a day; `mail_recipients` holds one row per hashed address (the
  // row a transaction locks while it counts) and `paid_at` once an order to that address was paid (exempt).
  '0023_mail_cap': {
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('mail_recipients')
        .addColumn('recipient_key', 'text', (c) => c.primaryKey())
        .addColumn('paid_at', 'text')
        .execute();
      await db.schema.alterTable('outbox').addColumn('recipient_key', 'text').execute();
      await db.schema
        .createIndex('outbox_recipient_key')
        .on('outbox')
        .columns(['recipient_key', 'created_at'])
        .execute();
    },
  },
  /**
   * Order facts on the order (issue 29): the buyer's cancel request, the vendor's decline of it and the order
   * confirmation were read from the e-mails they caused (outbox rows of kind cancel_requested and
   * order_confirmation, and the seller's "Record action" on cancel_requested). Now they are columns of the order;
   * today's data is carried over from those rows.
   */
  '0024_order_requests': {
    async up(db: Kysely<any>) {
      for (const column of ['cancel_requested_at', 'cancel_declined_at', 'confirmed_at'])
        await db.schema.alterTable('orders').addColumn(column, 'text').execute();
      await sql`update orders set cancel_requested_at = (select min(m.created_at) from outbox m
        where m.order_id = orders.id and m.kind = 'cancel_requested')`.execute(db);
      await sql`update orders set confirmed_at = (select min(m.created_at) from outbox m
        where m.order_id = orders.id and m.kind = 'order_confirmation')`.execute(db);
      await sql`update orders set cancel_declined_at = (select min(a.at) from seller_actions a
        where a.order_id = orders.id and a.action = 'resolved'
          and a.detail_json like ${'%"exception":"cancel_requested"%'})
        where cancel_requested_at is not null and status <> 'cancelled'`.execute(db);
    },
  },
};
