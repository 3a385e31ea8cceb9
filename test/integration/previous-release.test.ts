/**
 * Expand, then contract (docs/decisions/deploy.md): during a rolling deploy the previous release runs against the
 * new schema until its last instance stops. This runs the previous release's own statements — orders, their
 * history, payments and the outbox, as the code wrote them before migration 0024 (git: fed1bae^,
 * src/server/orders/create.ts, rows.ts, ledger.ts, src/server/mail/queue.ts and outbox.ts), restated here as plain
 * Kysely statements — against a store migrated to this release's schema, on SQLite and on PostgreSQL: a sale from
 * order to payment to a delivered e-mail, and the reads that show it. A migration that renamed, dropped or
 * tightened what they use fails here.
 */
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/server/store/store';
import { postgresBackend, sqliteBackend } from './orders-support';

const sqlite = sqliteBackend();
const postgres = postgresBackend();
afterAll(async () => {
  await sqlite.cleanup();
  await postgres.cleanup();
});

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyDb = Kysely<any>;

/** create.ts at fed1bae^: the order row (every column that release wrote) and its first history entry. */
async function createOrder(db: AnyDb, at: string): Promise<{ id: string; token: string }> {
  const id = randomUUID();
  const token = randomUUID().replaceAll('-', '');
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('orders')
      .values({
        id,
        reference: `ref-${id}`,
        vendor_id: 'coopersglass',
        payout_group: 'coopersglass',
        items_json: JSON.stringify([
          { productId: 'lilac-tiptop', quantity: 1, unitCents: 12500, lineCents: 12500 },
        ]),
        total_cents: 12500,
        price_usd: '0.5',
        amount_base_units: '250000000',
        recipient: 'recipient-address',
        mint: 'mint-address',
        solana_pay_url: 'solana:recipient-address?amount=250',
        payment_method: 'wallet',
        shipping_json: 'sealed-shipping',
        referrer: null,
        status: 'awaiting_payment',
        expires_at: new Date(Date.parse(at) + 900_000).toISOString(),
        signature: null,
        received_base_units: null,
        block_time: null,
        finalized: 0,
        confirmation_requested_at: null,
        created_at: at,
        updated_at: at,
        public_token: token,
        details_notified_at: null,
      })
      .execute();
    await addHistory(trx, id, 'awaiting_payment', 'created', at);
  });
  return { id, token };
}

/** rows.ts at fed1bae^: the next history entry, numbered in the same statement. */
async function addHistory(db: AnyDb, orderId: string, status: string, event: string, at: string) {
  await db
    .insertInto('order_history')
    .columns(['id', 'order_id', 'seq', 'status', 'event', 'at'])
    .expression((eb) =>
      eb
        .selectFrom('order_history')
        .select([
          sql<string>`cast(${randomUUID()} as text)`.as('id'),
          sql<string>`cast(${orderId} as text)`.as('order_id'),
          sql<number>`coalesce(max(seq), 0) + 1`.as('seq'),
          sql<string>`cast(${status} as text)`.as('status'),
          sql<string>`cast(${event} as text)`.as('event'),
          sql<string>`cast(${at} as text)`.as('at'),
        ])
        .where('order_id', '=', orderId),
    )
    .execute();
}

/** ledger.ts at fed1bae^: the payment's ledger row, the order paid, its history. */
async function recordPayment(db: AnyDb, orderId: string, signature: string, at: string) {
  const blockTime = Math.floor(Date.parse(at) / 1000); // the chain's block time, in seconds
  await db.transaction().execute(async (trx) => {
    await trx
      .insertInto('payments')
      .values({
        signature,
        order_id: orderId,
        seq: 1,
        received_base_units: '250000000',
        slot: 1234,
        block_time: blockTime,
        confirmation: 'confirmed',
        role: 'payment',
        recorded_at: at,
        usd_cents: 12500,
      })
      .execute();
    const res = await trx
      .updateTable('orders')
      .set({
        status: 'paid',
        signature,
        received_base_units: '250000000',
        block_time: blockTime,
        finalized: 0,
        updated_at: at,
      })
      .where('id', '=', orderId)
      .where('status', '=', 'awaiting_payment')
      .executeTakeFirst();
    expect(Number(res.numUpdatedRows)).toBe(1);
    await addHistory(trx, orderId, 'paid', 'payment', at);
  });
}

/** queue.ts at fed1bae^: a pending message. */
async function queueMail(db: AnyDb, orderId: string, signature: string, at: string): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto('outbox')
    .values({
      id,
      order_id: orderId,
      kind: 'order_confirmation',
      role: 'seller',
      recipient_email: 'sealed-recipient',
      payload_json: '{"subject":"sealed"}',
      payout_group: 'coopersglass',
      payment_seen: 1,
      next_attempt_at: at,
      created_at: at,
      after_id: null,
      payment_signature: signature,
      recipient_key: null,
      state: 'pending',
      attempts: 0,
      locked_until: null,
      lock_token: null,
      last_error: null,
      delivered_at: null,
    })
    .execute();
  return id;
}

/** outbox.ts at fed1bae^: the candidates, the claim (lease and token), then `sent`. */
async function deliverDue(db: AnyDb, at: string): Promise<string[]> {
  const candidates = await db
    .selectFrom('outbox as o')
    .select('o.id')
    .where('o.state', 'in', ['pending', 'retrying'])
    .where('o.next_attempt_at', '<=', at)
    .where((eb) => eb.or([eb('o.locked_until', 'is', null), eb('o.locked_until', '<=', at)]))
    .where((eb) =>
      eb.or([
        eb('o.after_id', 'is', null),
        eb.exists(
          eb
            .selectFrom('outbox as p')
            .select('p.id')
            .whereRef('p.id', '=', 'o.after_id')
            .where('p.state', 'in', ['sent', 'failed']),
        ),
      ]),
    )
    .orderBy('o.created_at')
    .orderBy('o.role', 'desc')
    .limit(10)
    .execute();
  const sent: string[] = [];
  for (const { id } of candidates as { id: string }[]) {
    const token = `previous-release/${randomUUID()}`;
    const claim = await db
      .updateTable('outbox')
      .set({ locked_until: new Date(Date.parse(at) + 10_000).toISOString(), lock_token: token })
      .where('id', '=', id)
      .where('state', 'in', ['pending', 'retrying'])
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<=', at)]))
      .executeTakeFirst();
    if (Number(claim.numUpdatedRows) !== 1) continue;
    const row = (await db
      .selectFrom('outbox')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirstOrThrow()) as {
      attempts: number | string;
    };
    await db
      .updateTable('outbox')
      .set({
        state: 'sent',
        attempts: Number(row.attempts) + 1,
        delivered_at: at,
        locked_until: null,
        lock_token: null,
        last_error: null,
      })
      .where('id', '=', id)
      .where('lock_token', '=', token)
      .execute();
    sent.push(id);
  }
  return sent;
}

async function previousReleaseSale(store: Store): Promise<void> {
  const db = store.db as unknown as AnyDb;
  const at = new Date().toISOString();
  const { id, token } = await createOrder(db, at);
  const signature = `sig-${randomUUID()}`;
  await recordPayment(db, id, signature, at);
  const mail = await queueMail(db, id, signature, at);
  expect(await deliverDue(db, at)).toEqual([mail]);

  // The previous release's reads: the order page by its token, the ledger, the history, the outbox row.
  const order = await db
    .selectFrom('orders')
    .selectAll()
    .where('public_token', '=', token)
    .executeTakeFirst();
  expect(order).toMatchObject({ id, status: 'paid', signature, received_base_units: '250000000' });
  const payments = await db
    .selectFrom('payments')
    .selectAll()
    .where('order_id', '=', id)
    .orderBy('seq')
    .execute();
  expect(payments.map((p) => [p.signature, p.role, Number(p.seq)])).toEqual([[signature, 'payment', 1]]);
  const history = await db
    .selectFrom('order_history')
    .select(['status', 'event', 'seq'])
    .where('order_id', '=', id)
    .orderBy('seq')
    .execute();
  expect(history.map((h) => [h.status, h.event, Number(h.seq)])).toEqual([
    ['awaiting_payment', 'created', 1],
    ['paid', 'payment', 2],
  ]);
  const row = await db.selectFrom('outbox').selectAll().where('id', '=', mail).executeTakeFirstOrThrow();
  expect(row).toMatchObject({ state: 'sent', delivered_at: at, lock_token: null });
  // Columns this release added are there, empty, for the rows the previous release wrote (expand: nullable).
  expect(order).toHaveProperty('confirmed_at', null);
  expect(order).toHaveProperty('cancel_requested_at', null);
}

describe("the previous release's statements against this release's schema", () => {
  it('SQLite: an order, its payment and its e-mail, written and read as the previous release does', async () => {
    const store = await openStore(await sqlite.fresh());
    try {
      await previousReleaseSale(store);
    } finally {
      await store.close();
    }
  }, 60_000);

  it.runIf(postgres.enabled)(
    'PostgreSQL: an order, its payment and its e-mail, written and read as the previous release does',
    async () => {
      const store = await openStore(await postgres.fresh());
      try {
        await previousReleaseSale(store);
      } finally {
        await store.close();
      }
    },
    60_000,
  );
});
