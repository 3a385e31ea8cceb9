/**
 * The outbox's writes that other modules ask for, in their own transaction: queue a message, merge a waiting
 * note, send a failed message again, give up and erase an order's messages, reseal a stored value. The outbox
 * table has one writer, the mail module: this file and the worker (./outbox.ts, which claims, delivers, retries
 * and fails rows). The order module and the price alerts decide what to send; the delivery state is set here
 * (eslint-rules/table-owners.js checks it).
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Database, OutboxTable } from '../store/schema';

type Db = Kysely<Database> | Transaction<Database>;

/** What a new outbox row says; the delivery state (pending, no attempt, no lease) is the outbox's own. */
export type NewOutboxRow = Pick<
  OutboxTable,
  | 'order_id'
  | 'kind'
  | 'role'
  | 'recipient_email'
  | 'payload_json'
  | 'payout_group'
  | 'payment_seen'
  | 'next_attempt_at'
  | 'created_at'
> & {
  id?: string;
  after_id?: string | null;
  payment_signature: string;
  /** A buyer message the e-mail cap counts (./cap.ts): its address's keyed hash. */
  recipient_key?: string | null;
  /** Withheld by the e-mail cap: written `withheld` with this (sealed) reason, sent only if the seller asks. */
  withheld?: string;
};

/**
 * Queues a new message, pending, first tried at `next_attempt_at`. Returns the insert, so a caller can add its
 * conflict rule (a message sent once per order, role, kind and signature).
 */
export function queueMail(q: Db, row: NewOutboxRow) {
  const { withheld, ...values } = row;
  return q.insertInto('outbox').values({
    ...values,
    id: row.id ?? randomUUID(),
    after_id: row.after_id ?? null,
    recipient_key: row.recipient_key ?? null,
    state: withheld !== undefined ? 'withheld' : 'pending',
    attempts: 0,
    locked_until: null,
    lock_token: null,
    last_error: withheld ?? null,
    delivered_at: null,
  });
}

/** A note still waiting for its slot takes a new body (a batched note about one more transfer). */
export async function replacePendingBody(q: Db, id: string, payloadJson: string): Promise<void> {
  await q
    .updateTable('outbox')
    .set({ payload_json: payloadJson })
    .where('id', '=', id)
    .where('state', '=', 'pending')
    .execute();
}

/**
 * A failed message, or one withheld by the e-mail cap (the seller knows the buyer and decides), goes out again
 * from `at` (attempts start over). False when it was neither.
 */
export async function resendFailed(q: Db, id: string, at: string): Promise<boolean> {
  const res = await q
    .updateTable('outbox')
    .set({ state: 'pending', attempts: 0, next_attempt_at: at, locked_until: null, lock_token: null })
    .where('id', '=', id)
    .where('state', 'in', ['failed', 'withheld'])
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/**
 * The order's personal data is erased: messages not yet delivered are given up (failed, with `reason`), and every
 * message's recipient, body and error are replaced by `erased`.
 */
export async function eraseMailOf(q: Db, orderId: string, erased: string, reason: string): Promise<void> {
  await q
    .updateTable('outbox')
    .set({ state: 'failed', last_error: reason, locked_until: null, lock_token: null })
    .where('order_id', '=', orderId)
    .where('state', 'in', ['pending', 'retrying'])
    .execute();
  await q
    .updateTable('outbox')
    .set({ recipient_email: erased, payload_json: erased, recipient_key: null })
    .where('order_id', '=', orderId)
    .execute();
  await q
    .updateTable('outbox')
    .set({ last_error: erased })
    .where('order_id', '=', orderId)
    .where('last_error', 'is not', null)
    .execute();
}

export type SealedOutboxColumn = 'recipient_email' | 'payload_json' | 'last_error';

/** A stored value sealed again under another key, if it is still `before`. True when replaced. */
export async function resealMailValue(
  q: Db,
  id: string,
  column: SealedOutboxColumn,
  before: string,
  after: string,
): Promise<boolean> {
  const res = await q
    .updateTable('outbox')
    .set({ [column]: after })
    .where('id', '=', id)
    .where(column, '=', before)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
