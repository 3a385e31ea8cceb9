/**
 * The automated e-mail cap (docs/decisions/price-and-mail.md, "What an automated e-mail carries"). Anyone can
 * type anyone's address into an order, so buyer messages the buyer's own actions cause (a confirmation, a
 * payment-short note) are at most MAIL_CAP_PER_DAY per recipient address in any 24 hours — unless the recipient
 * has paid: a message about an order paid in full is never capped, and marks the address as one that paid
 * (`mail_recipients.paid_at`), after which none of its messages is. Messages the seller causes (shipped, tracking,
 * refund) are not capped. A capped message is not lost: its row is written `withheld`, with the reason the seller
 * sees in the console, where "Send again" sends it.
 *
 * Addresses are counted by a keyed hash (HMAC-SHA256 under QUOTE_SECRET, as the hold cap's client keys), of the
 * address normalised so that one mailbox is one key (lower case; no `+tag`; Gmail's dots ignored). The address is
 * never stored in clear, logged or counted in a metric.
 */
import { createHmac } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { EmailKind } from '../../core/email-payload';
import type { Database } from '../store/schema';

type Db = Kysely<Database> | Transaction<Database>;

/** Buyer messages about unpaid orders per recipient address in any 24 hours. */
export const MAIL_CAP_PER_DAY = 3;
const DAY_MS = 24 * 3600_000;

/** Caused by the seller, never by whoever typed the address: not capped. */
const SELLER_CAUSED: ReadonlySet<EmailKind> = new Set(['order_shipped', 'tracking_updated', 'refund_sent']);

export const WITHHELD_REASON = `not sent: this address already had ${MAIL_CAP_PER_DAY} automated e-mails about unpaid orders in the last 24 hours (a limit against e-mail abuse; an address that paid an order has none). The buyer's order page shows everything; use "Send again" if you know the buyer.`;

const GMAIL = new Set(['gmail.com', 'googlemail.com']);

/** One mailbox, one key: lower case, the `+tag` dropped, Gmail's dots ignored. */
export function normalisedAddress(address: string): string {
  const lower = address.trim().toLowerCase();
  const at = lower.lastIndexOf('@');
  if (at <= 0) return lower;
  let local = lower.slice(0, at);
  const domain = lower.slice(at + 1);
  local = local.split('+')[0] ?? local;
  if (GMAIL.has(domain)) local = local.replace(/\./g, '');
  return `${local}@${domain === 'googlemail.com' ? 'gmail.com' : domain}`;
}

export function recipientKeyOf(secret: string, address: string): string {
  return createHmac('sha256', secret)
    .update(`mail-recipient:${normalisedAddress(address)}`)
    .digest('hex')
    .slice(0, 32);
}

export type CapDecision =
  | { counted: false; withheld: false }
  | { counted: true; withheld: false; recipientKey: string }
  | { counted: false; withheld: true };

/**
 * Whether one more buyer message to `address` may go out, in the caller's transaction (the order module asks,
 * then queues the row as this says: ./queue.ts). The recipient's row is locked first (PostgreSQL), so concurrent
 * orders to one address count one after another. `paid`: the message is about an order paid in full.
 */
export async function capDecision(
  q: Db,
  m: { secret: string; isPg: boolean; kind: EmailKind; address: string; paid: boolean; at: string },
): Promise<CapDecision> {
  const { kind, address, at } = m;
  if (SELLER_CAUSED.has(kind)) return { counted: false, withheld: false };
  const key = recipientKeyOf(m.secret, address);
  const paidNow = m.paid;
  await q
    .insertInto('mail_recipients')
    .values({ recipient_key: key, paid_at: paidNow ? at : null })
    .onConflict((oc) => oc.column('recipient_key').doNothing())
    .execute();
  let sel = q.selectFrom('mail_recipients').select('paid_at').where('recipient_key', '=', key);
  if (m.isPg) sel = sel.forUpdate();
  const row = await sel.executeTakeFirst();
  if (paidNow) {
    if (!row?.paid_at)
      await q.updateTable('mail_recipients').set({ paid_at: at }).where('recipient_key', '=', key).execute();
    return { counted: false, withheld: false };
  }
  if (row?.paid_at) return { counted: false, withheld: false };
  const since = new Date(Date.parse(at) - DAY_MS).toISOString();
  const recent = await q
    .selectFrom('outbox')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('recipient_key', '=', key)
    .where('created_at', '>', since)
    .executeTakeFirst();
  if (Number(recent?.n ?? 0) >= MAIL_CAP_PER_DAY) return { counted: false, withheld: true };
  return { counted: true, withheld: false, recipientKey: key };
}

/** The address's erasure ("Delete my details", retention): its keyed hash and "paid" mark go. */
export async function forgetRecipient(q: Db, secret: string, address: string): Promise<void> {
  await q
    .deleteFrom('mail_recipients')
    .where('recipient_key', '=', recipientKeyOf(secret, address))
    .execute();
}
