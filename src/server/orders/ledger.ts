/**
 * The payment ledger: every verified transfer recorded once per signature, the order moved by the ledger sum
 * through the pure transition function (src/core/order-status.ts), finality, and expiry of unpaid quotes; the
 * e-mails a change causes go to the outbox in the same transaction.
 */
import { FULLY_PAID, transition } from '../../core/order-status';
import { formatBaseUnits } from '../../core/money';
import { usdCentsAt } from '../price/reference-at';
import type { OrderRow, PaymentRow } from '../store/schema';
import { isUniqueViolation, uniqueViolationTarget } from '../store/store';
import { closedByRefund } from './money';
import { dustThreshold, queueEmails } from './notifications';
import { publicOf } from './public-view';
import { expireUnpriced } from './records';
import { addHistory, isPriced, ledgerOf, loadOrder, sumOf } from './rows';
import {
  announceExceptions,
  announceSoldOut,
  paymentEventOf,
  queueOrderEvent,
  tellQueued,
} from './webhook-events';
import { isSignature } from '../payments/signature';
import {
  type Db,
  type OrderContext,
  type PaymentReport,
  type PaymentTarget,
  type RecordPaymentResult,
  type StoredItem,
} from './types';

export async function recordPayment(
  ctx: OrderContext,
  target: PaymentTarget,
  report: PaymentReport,
  attempt = 1,
): Promise<RecordPaymentResult> {
  if (!isSignature(report.signature))
    throw new Error(`recordPayment: malformed signature '${report.signature}'`);
  if (report.receivedBaseUnits <= 0n) throw new Error('recordPayment: the amount must be positive');
  let added = 0;
  const result = await ctx.db
    .transaction()
    .execute(async (trx): Promise<RecordPaymentResult> => {
      const o = await loadOrder(ctx, trx, target, true);
      if (!o) return { ok: false, reason: 'order_not_found' };
      // An unpriced order has no amount to verify against: the seller arranges its payment.
      if (!isPriced(o))
        return { ok: false, reason: 'refused', status: o.status, order: await publicOf(ctx, trx, o) };
      // Every recorded transfer has its payments row (0004 copied the older orders.signature in): one lookup.
      const recorded = await trx
        .selectFrom('payments')
        .selectAll()
        .where('signature', '=', report.signature)
        .executeTakeFirst();
      if (recorded && recorded.order_id !== o.id)
        return { ok: false, reason: 'signature_used', otherOrderId: recorded.order_id };
      const now = ctx.deps.now();
      const at = now.toISOString();
      const ledger = await ledgerOf(trx, o.id);
      const counting = (rows: PaymentRow[]) => rows.filter((p) => p.role !== 'extra');

      if (recorded) {
        // Seen before: only news of finality changes anything.
        if (!report.finalized || recorded.confirmation === 'finalized') {
          return {
            ok: true,
            changed: false,
            status: o.status,
            role: recorded.role,
            order: await publicOf(ctx, trx, o),
          };
        }
        await trx
          .updateTable('payments')
          .set({ confirmation: 'finalized' })
          .where('signature', '=', recorded.signature)
          .execute();
        const after = ledger.map((p) =>
          p.signature === recorded.signature ? { ...p, confirmation: 'finalized' as const } : p,
        );
        const allFinal = counting(after).every((p) => p.confirmation === 'finalized');
        let updated = o;
        if (allFinal && FULLY_PAID.has(o.status)) {
          const t = transition(o.status, { type: 'finalized' });
          const next = t.ok ? t.next : o.status;
          updated = { ...o, status: next, finalized: 1, updated_at: at };
          await trx
            .updateTable('orders')
            .set({ status: next, finalized: 1, updated_at: at })
            .where('id', '=', o.id)
            .execute();
          if (next !== o.status) await addHistory(trx, o.id, next, 'finalized', at);
        }
        return {
          ok: true,
          changed: true,
          status: updated.status,
          role: recorded.role,
          order: await publicOf(ctx, trx, updated),
        };
      }

      // An order is paid on what it received net of refunds; once a refund closed it (an underpaid or late
      // payment returned), a later transfer is an extra to return, never the completion (src/core/order-status.ts).
      const refunded = await trx
        .selectFrom('refunds')
        .select('amount_base_units')
        .where('order_id', '=', o.id)
        .execute();
      const before = sumOf(ledger) - refunded.reduce((n, r) => n + BigInt(r.amount_base_units), 0n);
      const closed = (await closedByRefund(trx, [o.id])).has(o.id);
      const dust = dustThreshold(ctx, o);
      const paidAtMs = report.blockTime !== null ? report.blockTime * 1000 : now.getTime();
      const event = {
        type: 'payment' as const,
        receivedBaseUnits: report.receivedBaseUnits,
        paidBeforeBaseUnits: before,
        expectedBaseUnits: BigInt(o.amount_base_units),
        finalized: report.finalized && counting(ledger).every((p) => p.confirmation === 'finalized'),
        late: paidAtMs > Date.parse(o.expires_at),
        belowDust: before + report.receivedBaseUnits < dust,
        closed,
      };
      let t = transition(o.status, event);
      if (!t.ok || !t.role)
        return { ok: false, reason: 'refused', status: o.status, order: await publicOf(ctx, trx, o) };
      let sold = false;
      // The payment that completes the amount turns the reservation into a sale; when the reservation had lapsed
      // and the stock went to someone else, the order is oversold (the payment is still recorded).
      if (t.role === 'payment' || t.role === 'top_up') {
        // A QR record paid before its details never held: its items are sold now if the units are there.
        const sale = await ctx.stock.sell(trx, o.id, at, JSON.parse(o.items_json) as StoredItem[]);
        if (sale === 'oversold') t = transition(o.status, { ...event, stockLost: true });
        sold = sale === 'sold';
        if (!t.ok || !t.role)
          return { ok: false, reason: 'refused', status: o.status, order: await publicOf(ctx, trx, o) };
      }
      const role = t.role;
      // Its USD value at its own time, kept for the books (the price history is kept a day only): the seller
      // console's summary adds these up.
      const usdCents = await usdCentsAt(
        trx,
        report.receivedBaseUnits,
        paidAtMs,
        ctx.deps.settings.price.reference,
      );
      await trx
        .insertInto('payments')
        .values({
          signature: report.signature,
          order_id: o.id,
          seq: ledger.reduce((max, p) => Math.max(max, Number(p.seq)), 0) + 1,
          received_base_units: report.receivedBaseUnits.toString(),
          slot: report.slot ?? null,
          block_time: report.blockTime,
          confirmation: report.finalized ? 'finalized' : 'confirmed',
          role,
          recorded_at: at,
          usd_cents: usdCents,
        })
        .execute();
      const completes = role === 'payment' || role === 'top_up';
      const sum = sumOf(ledger) + report.receivedBaseUnits;
      const updated: OrderRow = {
        ...o,
        status: t.next,
        signature: completes ? report.signature : o.signature,
        received_base_units: sum.toString(),
        block_time: completes ? report.blockTime : o.block_time,
        finalized:
          t.next === 'final' ||
          (completes && report.finalized && counting(ledger).every((p) => p.confirmation === 'finalized'))
            ? 1
            : o.finalized,
        updated_at: at,
      };
      await trx
        .updateTable('orders')
        .set({
          status: updated.status,
          signature: updated.signature,
          received_base_units: updated.received_base_units,
          block_time: updated.block_time,
          finalized: updated.finalized,
          // The threshold this transfer was judged by: the console's queues leave dust out with it (SQL).
          dust_base_units: dust.toString(),
          updated_at: at,
        })
        .where('id', '=', o.id)
        .execute();
      if (t.next !== o.status)
        await addHistory(trx, o.id, t.next, role === 'top_up' ? 'top_up' : 'payment', at);
      // Webhooks (./webhook-events.ts): the status event, any exception it opens, a line it sold out.
      const hook = paymentEventOf(o.status, t.next);
      if (hook)
        await queueOrderEvent(ctx, trx, updated, hook, at, {
          payment: { signature: report.signature, receivedCLAIM: formatBaseUnits(report.receivedBaseUnits) },
        });
      await announceExceptions(ctx, trx, o.id, at);
      if (sold) await announceSoldOut(ctx, trx, updated, at);
      // The e-mails this transfer causes (src/core/order-emails.ts): the completing payment's confirmation,
      // "paid late" or oversold exception; a note about an extra payment; "payment short" once the window closed.
      added += await queueEmails(
        ctx,
        trx,
        updated,
        {
          type: 'payment',
          role,
          from: o.status,
          to: t.next,
          paymentMethod: o.payment_method,
          hasShipping: o.shipping_json !== null,
          sumAboveDust: sum >= dustThreshold(ctx, updated),
          confirmed: o.confirmed_at !== null,
        },
        {
          at,
          payment: { signature: report.signature, receivedBaseUnits: report.receivedBaseUnits },
          // The value of what completed the order: every counting transfer, each valued like a quote (the
          // reference price) at its own block time, from the stored price history.
          usdAtPaymentCents: () =>
            usdCentsOfTransfers(
              trx,
              [
                ...counting(ledger).map((p) => ({
                  baseUnits: BigInt(p.received_base_units),
                  atMs: p.block_time !== null ? Number(p.block_time) * 1000 : Date.parse(p.recorded_at),
                })),
                { baseUnits: report.receivedBaseUnits, atMs: paidAtMs },
              ],
              ctx.deps.settings.price.reference,
            ),
        },
      );
      return { ok: true, changed: true, status: t.next, role, order: await publicOf(ctx, trx, updated) };
    })
    .catch(async (err: unknown): Promise<RecordPaymentResult> => {
      // The same signature committed concurrently (for this order or another; the row locks are per order): the
      // key stopped the second insert (SQLite names the column, PostgreSQL the primary key). Ask again once: the
      // committed row now answers (already recorded here, or signature_used by the order that has it).
      if (isUniqueViolation(err) && /signature|payments_pkey/.test(uniqueViolationTarget(err))) {
        if (attempt === 1) return recordPayment(ctx, target, report, 2);
        return { ok: false, reason: 'signature_used', otherOrderId: 'unknown' };
      }
      throw err;
    });
  if (added > 0) ctx.deps.onOutboxChange?.();
  tellQueued(ctx);
  return result;
}

/** MAX_EXPIRY_WAIT_MS's default: expiry waits on the watcher 5 minutes at most. */
export const DEFAULT_MAX_EXPIRY_WAIT_MS = 5 * 60_000;

/**
 * The time up to which orders may expire: the watcher's judged time (never ahead of the wall clock), but never
 * more than `maxWaitMs` behind the wall clock; the wall clock without a watcher.
 */
export function expiryCutoff(now: Date, judgedUntil: Date | null | undefined, maxWaitMs: number): Date {
  if (judgedUntil === undefined) return now;
  const floor = now.getTime() - maxWaitMs;
  const judged = judgedUntil === null ? floor : Math.min(judgedUntil.getTime(), now.getTime());
  return new Date(Math.max(judged, floor));
}

/**
 * awaiting_payment orders past their expiry → expired (or underpaid). Returns how many changed.
 *
 * Time is the chain's: the chain clock (deps.lanes, served by the payment watcher) is the time up to which the
 * watcher has judged every transfer to the vendors (its last complete pass); an order expires only once that is past its expiry, so a payment that
 * landed before the expiry but is not judged yet (a backlog, a flood of dust) never finds its order expired and
 * its piece sold. Undefined: no watcher runs in this process (the wall clock decides); null: the watcher has not
 * judged anything yet. Expiry never waits on the watcher longer than `maxExpiryWaitMs` (MAX_EXPIRY_WAIT_MS, 5 min):
 * past that an order expires by the wall clock less that wait, and a payment judged later still counts by its
 * block time (paid if before the expiry; its piece taken back, or oversold and refunded).
 */
export async function expireOrders(ctx: OrderContext, now: Date = ctx.deps.now()): Promise<number> {
  // Holds lapse on their own deadline, by the wall clock, whatever the watcher's lag (docs/decisions/holds.md);
  // unpriced orders (never watched) expire by the wall clock too.
  await ctx.stock.releaseLapsed(now.toISOString());
  // A wallet that moved its $CLAIM away loses the holds its balance no longer covers (./holds.ts).
  const balances = ctx.deps.balances;
  if (balances) await ctx.stock.releaseOverBalance(now.toISOString(), (w) => balances.balanceOf(w));
  await expireUnpriced(ctx, now);
  const judgedUntil = await ctx.deps.lanes?.chainClock();
  const cutoff = expiryCutoff(
    now,
    judgedUntil,
    ctx.deps.settings.maxExpiryWaitMs ?? DEFAULT_MAX_EXPIRY_WAIT_MS,
  );
  const at = now.toISOString();
  const until = cutoff.toISOString();
  // Unpriced orders have no payment window here (the seller arranges payment): expireUnpriced above.
  const due = await ctx.db
    .selectFrom('orders')
    .select('id')
    .where('status', '=', 'awaiting_payment')
    .where('expires_at', '<=', until)
    .where('amount_base_units', 'is not', null)
    .execute();
  let n = 0;
  let added = 0;
  for (const { id } of due) {
    const changed = await ctx.db.transaction().execute(async (trx) => {
      const o = await loadOrder(ctx, trx, { orderId: id }, true);
      if (!o || Date.parse(o.expires_at) > cutoff.getTime()) return false;
      // Partial transfers recorded while the quote was open: the order becomes underpaid (and the seller is told);
      // a sum below the dust threshold is no exception (expired).
      const received = sumOf(await ledgerOf(trx, id));
      const counts = received >= dustThreshold(ctx, o) ? received : 0n;
      const t = transition(o.status, { type: 'expire', receivedBaseUnits: counts });
      if (!t.ok) return false;
      await trx
        .updateTable('orders')
        .set({ status: t.next, updated_at: at })
        .where('id', '=', id)
        .where('status', '=', o.status)
        .execute();
      await addHistory(trx, id, t.next, 'expire', at);
      // The quote's window closed unpaid: its reserved stock goes back on sale.
      await ctx.stock.release(trx, id, at);
      added += await queueEmails(
        ctx,
        trx,
        { ...o, status: t.next, received_base_units: received.toString() },
        { type: 'expire', to: t.next, receivedAboveDust: received >= dustThreshold(ctx, o) },
        { at },
      );
      if (t.next === 'underpaid') {
        await queueOrderEvent(
          ctx,
          trx,
          { ...o, status: t.next, received_base_units: received.toString(), updated_at: at },
          'order.underpaid',
          at,
        );
        await announceExceptions(ctx, trx, id, at);
      }
      return true;
    });
    if (changed) n++;
  }
  if (added > 0) ctx.deps.onOutboxChange?.();
  tellQueued(ctx);
  return n;
}

/**
 * The USD value (cents) of several transfers, each at its own time (the sum; null when any has no price): the
 * price module's usdCentsAt (reference price at a time) per transfer.
 */
async function usdCentsOfTransfers(
  q: Db,
  transfers: { baseUnits: bigint; atMs: number }[],
  reference: Parameters<typeof usdCentsAt>[3],
): Promise<number | null> {
  let total = 0;
  for (const t of transfers) {
    const cents = await usdCentsAt(q, t.baseUnits, t.atMs, reference);
    if (cents === null) return null;
    total += cents;
  }
  return total;
}

/**
 * The USD value (cents) of what the recorded transfers that count toward the amount brought (extras left out),
 * each valued at its own time as `recordPayment` values a late payment for its e-mail; null without a price then.
 * A transfer's value stored when it was recorded (`usd_cents`) is used as is: the price history behind it is kept
 * a day only, so an order looked at later still shows its value.
 */
export async function countedUsdCents(
  q: Db,
  ledger: PaymentRow[],
  reference: Parameters<typeof usdCentsAt>[3],
): Promise<number | null> {
  const counted = ledger.filter((p) => p.role !== 'extra');
  const stored = counted.reduce((n, p) => n + (p.usd_cents === null ? 0 : Number(p.usd_cents)), 0);
  const rest = await usdCentsOfTransfers(
    q,
    counted
      .filter((p) => p.usd_cents === null)
      .map((p) => ({
        baseUnits: BigInt(p.received_base_units),
        atMs: p.block_time !== null ? Number(p.block_time) * 1000 : Date.parse(p.recorded_at),
      })),
    reference,
  );
  return rest === null ? null : stored + rest;
}
