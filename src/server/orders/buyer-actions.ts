/**
 * What the buyer's page asks of an order: its public view, "Send Order Confirmation" (which attaches the shipping
 * details to a QR record), the renewed quote of an open QR record, the order page by capability token, the
 * wallet's payment hint.
 */
import type { AnyOrderCreated, OrderPageView, OrderPublic } from '../../core/api';
import { formatBaseUnits } from '../../core/money';
import { FULLY_PAID } from '../../core/order-status';
import { ORDER_TOKEN } from '../../core/routes';
import { timingSafeEqual } from 'node:crypto';
import { shippingProblem } from './create';
import { transactionRequestOf } from './pay-requests';
import { DomainError } from '../../core/errors';
import type { ShippingInput } from '../../core/order';
import { sealShipping } from '../privacy/order-data';
import { queueEmails } from './notifications';
import { orderPageOf, publicOf } from './public-view';
import { verifyQuote } from './quotes';
import {
  addHistory,
  checkOrderId,
  isPriced,
  ledgerOf,
  loadOrder,
  orderUrlOf,
  shippingOf,
  toWatched,
} from './rows';
import { isSignature } from '../payments/signature';
import type { OrderContext, StoredItem, WatchedOrder } from './types';

const capabilityRequired = (what: string) =>
  new DomainError(
    'forbidden',
    'order_capability_required',
    `${what} can only be sent from the page that started this order, or from its order page link.`,
    { field: 'token' },
  );

/**
 * The capability that lets a record change (details attach, a new price): the record's page token (held by the
 * browser that made it, and in the buyer's order page link).
 */
function holdsCapability(o: { public_token: string | null }, token: unknown): boolean {
  if (typeof token !== 'string' || !ORDER_TOKEN.test(token) || !o.public_token) return false;
  const a = Buffer.from(token);
  const b = Buffer.from(o.public_token);
  return a.length === b.length && timingSafeEqual(a, b);
}

export async function getOrder(ctx: OrderContext, orderId: string): Promise<OrderPublic | undefined> {
  checkOrderId(orderId);
  const o = await loadOrder(ctx, ctx.db, { orderId }, false);
  return o ? publicOf(ctx, ctx.db, o) : undefined;
}

/** The buyer's order page: any malformed or unknown token is simply unknown (the edge answers 404). */
export async function getOrderPage(ctx: OrderContext, token: string): Promise<OrderPageView | undefined> {
  if (typeof token !== 'string' || !ORDER_TOKEN.test(token)) return undefined;
  const o = await ctx.db
    .selectFrom('orders')
    .selectAll()
    .where('public_token', '=', token)
    .executeTakeFirst();
  return o ? orderPageOf(ctx, ctx.db, o) : undefined;
}

/**
 * An open QR record (nothing paid, no details, awaiting payment) takes a renewed quote of its own reference:
 * the buyer changed the quantity before paying. Anything else is a conflict (the page then shows the record).
 */
export async function requote(
  ctx: OrderContext,
  orderId: string,
  token: string,
  pageToken?: unknown,
): Promise<AnyOrderCreated> {
  checkOrderId(orderId);
  const now = ctx.deps.now();
  const check = verifyQuote(token, ctx.deps.settings.quote.secret, now);
  if (!check.ok) {
    if (check.reason === 'expired')
      throw new DomainError('gone', 'quote_expired', 'This price quote has expired.', { field: 'quote' });
    throw new DomainError('invalid', 'invalid_quote', 'The quote is not valid.', { field: 'quote' });
  }
  const quote = check.quote;
  return ctx.db.transaction().execute(async (trx) => {
    const o = await loadOrder(ctx, trx, { orderId }, true);
    if (!o) throw new DomainError('not_found', 'order_not_found', 'No such order.');
    // The order id alone changes nothing (and its answer carries the page link): the record's page token.
    if (!holdsCapability(o, pageToken)) throw capabilityRequired('A new price');
    if (quote.reference !== o.reference || quote.vendorId !== o.vendor_id || quote.payment !== 'qr')
      throw new DomainError('invalid', 'invalid_quote', 'This quote is not for this order.', {
        field: 'quote',
      });
    if (quote.amountBaseUnits === null || quote.solanaPayUrl === null)
      throw new DomainError('invalid', 'invalid_quote', 'A QR record needs a priced quote.', {
        field: 'quote',
      });
    const ledger = await ledgerOf(trx, o.id);
    if (
      o.payment_method !== 'qr' ||
      o.status !== 'awaiting_payment' ||
      o.shipping_json !== null ||
      o.confirmation_requested_at !== null ||
      ledger.length > 0 ||
      !isPriced(o)
    ) {
      throw new DomainError(
        'conflict',
        'order_not_open',
        'This order can no longer change: a payment or the shipping details have arrived.',
      );
    }
    const at = now.toISOString();
    await trx
      .updateTable('orders')
      .set({
        items_json: JSON.stringify(quote.items),
        total_cents: quote.totalCents,
        price_usd: quote.priceUsd,
        amount_base_units: quote.amountBaseUnits,
        solana_pay_url: quote.solanaPayUrl,
        expires_at: quote.expiresAt,
        updated_at: at,
      })
      .where('id', '=', o.id)
      .execute();
    await addHistory(trx, o.id, 'awaiting_payment', 'requote', at);
    // A record holds no stock (holds on intent, never on a view); one made before that rule gives its hold back.
    await ctx.stock.release(trx, o.id, at, 'requote');
    // Still refused when the new quantity is more than is available (409, the record keeps its old quantity).
    await ctx.stock.assertAvailable(quote.items, trx);
    return {
      orderId: o.id,
      reference: o.reference,
      recipient: o.recipient,
      mint: o.mint,
      expiresAt: quote.expiresAt,
      orderUrl: orderUrlOf(ctx, o),
      solanaPayUrl: quote.solanaPayUrl,
      amount: formatBaseUnits(BigInt(quote.amountBaseUnits)),
      amountBaseUnits: quote.amountBaseUnits,
      ...transactionRequestOf(ctx, o.reference),
    };
  });
}

export async function requestConfirmation(
  ctx: OrderContext,
  orderId: string,
  shippingBody?: unknown,
  token?: unknown,
): Promise<OrderPublic> {
  checkOrderId(orderId);
  // Checked before anything is read: bad details change nothing.
  let shipping: string | undefined;
  let given: ShippingInput | undefined;
  if (shippingBody !== undefined) {
    const ship = shippingProblem({ payment: 'qr' }, shippingBody);
    if (ship instanceof DomainError) throw ship;
    given = ship.ok;
    // Sealed before it reaches the store, bound to this order (src/server/privacy).
    shipping = sealShipping(ctx.sealer, orderId, ship.ok);
  }
  let added = 0;
  const pub = await ctx.db.transaction().execute(async (trx) => {
    const o = await loadOrder(ctx, trx, { orderId }, true);
    if (!o) throw new DomainError('not_found', 'order_not_found', 'No such order.');
    if (o.payment_method !== 'qr') {
      throw new DomainError(
        'conflict',
        'not_a_qr_order',
        'Wallet orders are confirmed by e-mail automatically once the payment is verified.',
      );
    }
    // The order id alone (it appears in request logs and seller e-mails) never attaches or sends anything.
    if (!holdsCapability(o, token)) throw capabilityRequired('Shipping details');
    const at = ctx.deps.now().toISOString();
    // A QR record gets its details now; a second, different set is refused in words (a retry of the same is fine).
    let current = o;
    if (o.shipping_json === null) {
      if (shipping === undefined) {
        throw new DomainError(
          'invalid',
          'invalid_shipping',
          'Please fill out all required shipping details.',
          {
            field: 'shipping',
          },
        );
      }
      current = { ...o, shipping_json: shipping };
      await trx
        .updateTable('orders')
        .set({ shipping_json: shipping, updated_at: at })
        .where('id', '=', o.id)
        .execute();
      // A QR record holds nothing until its payment is seen (docs/decisions/holds.md): details cost nothing to
      // send, so they take nothing off sale; the payment sells the piece if it is still free (else oversold and
      // refunded). Details for a piece already gone are refused in words (409) and not kept.
      if (o.status === 'awaiting_payment' && Date.parse(o.expires_at) > Date.parse(at))
        await ctx.stock.assertAvailable(JSON.parse(o.items_json) as StoredItem[], trx);
    } else if (given !== undefined && JSON.stringify(shippingOf(ctx.sealer, o)) !== JSON.stringify(given)) {
      // Compared opened: a sealed value differs every time (random nonce) even for the same details.
      throw new DomainError(
        'conflict',
        'details_already_sent',
        'Shipping details were already sent for this order and cannot be replaced here. To change them, contact the seller.',
        { field: 'shipping' },
      );
    }
    if (!current.confirmation_requested_at) {
      current = { ...current, confirmation_requested_at: at };
      await trx
        .updateTable('orders')
        .set({ confirmation_requested_at: at, updated_at: at })
        .where('id', '=', o.id)
        .execute();
    }
    // No e-mail for the unpaid: the details are kept, and the confirmations go when the payment lands. An order
    // without a price (nothing to pay here) is confirmed at once, as the spec says.
    const unpaid = isPriced(o) && (o.status === 'awaiting_payment' || o.status === 'expired');
    added = await queueEmails(
      ctx,
      trx,
      current,
      { type: 'confirmation_requested', unpaid },
      { at, paymentSeen: FULLY_PAID.has(o.status) },
    );
    return publicOf(ctx, trx, current);
  });
  if (added > 0) ctx.deps.onOutboxChange?.();
  return pub;
}

export async function paymentHint(
  ctx: OrderContext,
  orderId: string,
  signature: string,
): Promise<{ order: OrderPublic; watched: WatchedOrder }> {
  checkOrderId(orderId);
  if (!isSignature(signature)) {
    throw new DomainError(
      'invalid',
      'invalid_signature',
      'signature must be a base58 transaction signature.',
      {
        field: 'signature',
      },
    );
  }
  const o = await loadOrder(ctx, ctx.db, { orderId }, false);
  if (!o) throw new DomainError('not_found', 'order_not_found', 'No such order.');
  if (!isPriced(o)) {
    throw new DomainError(
      'conflict',
      'order_unpriced',
      'This order was placed without a price; the seller arranges its payment.',
    );
  }
  // The verifier decides (the route hands `watched` to the watcher's hint lane): nothing changes here.
  const watched = toWatched(o, await ledgerOf(ctx.db, o.id));
  return { order: await publicOf(ctx, ctx.db, o), watched };
}
