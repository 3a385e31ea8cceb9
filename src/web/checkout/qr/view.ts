/**
 * What the QR checkout shows, as a pure function of its state (no React, no storage, no network): the page's
 * stored record, the server's status of it, the quote, the page's price and quantity, and whether a press is
 * under way. `QrPay.tsx` renders this and runs the effects; every branch here has a unit test (view.test.ts).
 *
 *   no record ──quote ready (priced)──▶ record made (useQrRecord) ──▶ QR, amount, copy / open links (a phone:
 *     'Pay with a wallet on this phone', the amount and the links first, the QR for another device below)
 *   no record, price failed or unpriced quote ──▶ price message (an unpriced quote may be sent with 'N/A')
 *   no record, vendor's token account missing / unknown ──▶ 'Not ready for QR payments', no QR, no button
 *   record open (nothing paid, no details) ──page quantity changes──▶ link hidden while it follows (requote)
 *   record ──details sent, unpaid──▶ 'Now pay …' above the QR
 *   record ──payment lands──▶ 'Payment received' (asks for the details unless they are in), no QR
 *   record ──another status (expired, underpaid, paid late, …)──▶ its status sentence, no QR
 *   record unknown to the server, or expired with nothing paid and no details ──▶ stale: forgotten, start again
 *   product sold out (live stock), record not a purchase (nothing paid) ──▶ no QR, no link, no button (soldOutView)
 */
import { PAYMENT_CHECK_DELAYED } from '../../../core/payment-check';
import type { OrderPublic } from '../../../core/api';
import { FULLY_PAID } from '../../../core/order-status';
import { orderNumberOf } from '../../../core/order-number';
import { unreadablePaymentNote } from '../../../core/unreadable-payment';
import type { PriceState } from '../../api/price';
import { formatClaim, groupThousands } from '../../lib/claim-amount';
import { confirmationOutcome } from './confirmation';
import {
  CHECKING_STATUS,
  CONFIRMATION_SENT_LABEL,
  GENERATING,
  MSG_PRICE_ERROR,
  MSG_PRICE_FAILED,
  SENT_WITHOUT_PRICE,
  STATUS_TEXT,
  TITLE_PAYOUT_REFUSED,
  TITLE_PHONE,
  TITLE_SCAN,
  confirmLabel,
  nowPay,
} from './messages';
import type { StoredQrOrder } from './order-store';
import type { OrderStatusState } from './useOrderStatus';
import type { QuoteState } from './useQuote';

export interface QrViewInput {
  /** The stored record was read (the first frame, prerendered, has not read it yet). */
  loaded: boolean;
  order: StoredQrOrder | null;
  status: OrderStatusState;
  quote: QuoteState;
  price: PriceState;
  /** The page's quantity (null while the input holds something else). */
  quantity: number | null;
  quantityProblem: string | undefined;
  /** Making the record failed (useQrRecord). */
  recordFailed: boolean;
  /** A press of the confirmation button is under way. */
  sending: boolean;
  /** The last press found no price and no payment link yet. */
  notReady: boolean;
  vendorId: string;
  /** The vendor also sells wallet products (offered while its QR payments are not ready). */
  sellsByWallet: boolean;
  /** A phone (a coarse pointer): the page leads with the wallet on this phone, the QR for another device below. */
  phone?: boolean;
  /** The buyer asked for the plain transfer request ("My wallet cannot read this code"). */
  transferFallback?: boolean;
  /**
   * False while the page's stock read is under way: no QR and no payment link yet (a sold-out page never shows
   * one, not even for a moment); the quote and the record are already under way meanwhile.
   */
  stockKnown?: boolean;
}

/** The content of the QR box, one of these at a time. */
export type QrBox =
  | { kind: 'qr'; url: string; amount: string | null }
  | { kind: 'paid'; askDetails: boolean }
  | { kind: 'settled'; text: string }
  | { kind: 'unpriced-order' }
  | { kind: 'price-failed'; text: string }
  | { kind: 'quantity-problem'; text: string }
  | { kind: 'payout-refused'; message: string | undefined; sellsByWallet: boolean }
  | { kind: 'link-failed' }
  | { kind: 'generating'; text: string };

/** The record's status block (shown once there is a record). */
export interface QrStatusBlock {
  orderNumber: string;
  quantity: number;
  /** `data-status`: the server's status, or 'loading' before it answered. */
  dataStatus: string;
  text: string;
  /** ' (received X of Y $CLAIM…)' when the amount received differs from the order's. */
  received: string | null;
  paidLate: boolean;
  /** A transaction for the order the store could not read (docs/decisions/transaction-versions.md). */
  unreadableNote: string | null;
  /** The store cannot see payments arrive right now (its RPC or watcher is down): PAYMENT_CHECK_DELAYED. */
  paymentCheckNote: string | null;
  signature: string | null;
  /** The buyer's order page, once the details are in or something arrived. */
  orderPageLink: string | null;
  /** The record is for another quantity than the page's and can no longer follow it. */
  quantityChangedNote: string | null;
  /** 'Start a new order' is offered (not while the record still follows the page, nor once paid). */
  startNew: boolean;
}

export interface QrView extends QrRecordState {
  /** Payment arrived in full. */
  paid: boolean;
  payoutRefused: boolean;
  title: string;
  /** 'Now pay …' above the QR: the details are in, the record is unpaid. */
  payNext: string | null;
  box: QrBox;
  /** The amount line and the copy / open-in-wallet links (the record's own link only). */
  payLink: {
    url: string;
    amount: string;
    /**
     * The record has a transaction request (HTTPS): 'offer' the transfer request one tap away, or it is shown
     * ('shown': the link and QR are the transfer request now); null without one.
     */
    fallback: 'offer' | 'shown' | null;
  } | null;
  status: QrStatusBlock | null;
  /** The payment window's end, while an awaiting priced record counts down. */
  timeLeftUntil: string | null;
  /** The unpriced quote's note (the order can be sent with 'N/A'). */
  unpricedNote: boolean;
  /** The last press found nothing to order yet (shown while there is no link). */
  notReadyError: boolean;
  button: { label: string; disabled: boolean };
  /**
   * Details sent before paying, the payment landed and both confirmations are delivered: the record becomes
   * confirmed now (the one alert says so).
   */
  confirmNow: boolean;
}

/** The page's price as the quote hook takes it: a decimal, 'failed' (unavailable or error), or undefined (loading). */
export function quotePriceOf(price: PriceState): string | 'failed' | undefined {
  if (price.status === 'known') return price.priceUsd;
  if (price.status === 'unavailable' || price.status === 'error') return 'failed';
  return undefined;
}

/** The record's standing, which the quote and the record hooks need before there is a quote. */
export interface QrRecordState {
  /** The server's status of this record (null before it answered, or for another record). */
  known: OrderPublic | null;
  /** The record is unknown to the server, or expired with nothing paid and no details: forget it. */
  stale: boolean;
  /** The open record may take a new quote (awaiting payment, nothing paid, no details sent). */
  requotable: boolean;
  /** The page asks for a quote: no record yet, or the open record follows a new quantity. */
  quoteEnabled: boolean;
  /** The page's price as the quote hook takes it. */
  quotePrice: string | 'failed' | undefined;
}

/**
 * The stored record is a purchase: money arrived for it (any transfer: paid, underpaid, late, oversold…), or its
 * confirmation went out (confirmed; an unpriced order, made with its details). A sold-out page keeps showing a
 * purchase (the buyer may be why it sold out). An open record with nothing paid, details or not, holds nothing
 * (holds.md) and is not one: the page is Sold out for it like for anyone. `known` null: not asked yet.
 */
export function qrPurchase(order: StoredQrOrder | null, known: OrderPublic | null): boolean {
  if (order === null) return false;
  if (order.confirmed || (order.solanaPayUrl === null && order.detailsSent)) return true;
  return known !== null && known.payments.length > 0;
}

/**
 * What the QR checkout shows once the product is sold out (`nothingLeft`, the page's live stock): 'checkout' for a
 * purchase, as ever; else no QR, no link, no button: 'checking' while the server has not said whether anything
 * arrived for the stored record, 'record-sold-out' (a note: do not pay that QR now) once it said nothing did, or
 * 'nothing' without a record.
 */
export function soldOutView(
  nothingLeft: boolean,
  order: StoredQrOrder | null,
  known: OrderPublic | null,
): 'checkout' | 'checking' | 'record-sold-out' | 'nothing' {
  if (!nothingLeft || qrPurchase(order, known)) return 'checkout';
  if (order === null) return 'nothing';
  return known === null ? 'checking' : 'record-sold-out';
}

export function qrRecord(
  i: Pick<QrViewInput, 'loaded' | 'order' | 'status' | 'quantity' | 'price'>,
): QrRecordState {
  const { order, status, quantity } = i;
  const known = status.status === 'known' && status.order.orderId === order?.orderId ? status.order : null;
  // A stored record the server does not know (cleaned up, another store, a wiped database), or one that expired
  // with nothing paid and no details: start again with a fresh record.
  const stale =
    order !== null &&
    (status.status === 'missing' ||
      (known !== null && known.status === 'expired' && known.payments.length === 0 && !order.detailsSent));
  const requotable =
    order !== null &&
    order.solanaPayUrl !== null &&
    !order.detailsSent &&
    known !== null &&
    known.status === 'awaiting_payment' &&
    known.payments.length === 0;
  const quoteEnabled =
    i.loaded && (order === null || (requotable && quantity !== null && quantity !== order.quantity));
  return { known, stale, requotable, quoteEnabled, quotePrice: quotePriceOf(i.price) };
}

export function qrView(i: QrViewInput): QrView {
  const { order, quote, price, quantity, quantityProblem, sending } = i;
  const r = qrRecord(i);
  const { known, requotable } = r;

  /** Something arrived for the record (or its window closed): the QR is no longer the thing to show. */
  const settled = known !== null && known.status !== 'awaiting_payment';
  const paid = known !== null && FULLY_PAID.has(known.status);
  const payNext =
    order !== null && order.detailsSent && known?.status === 'awaiting_payment' && known.amount !== null
      ? order.amount
      : null;

  // Only the record's own link is ever shown (record before showing); none once payment arrived, and none while
  // the open record is being moved to the page's quantity (or the quantity is not a number: no link).
  const following = requotable && order !== null && quantity !== order.quantity;
  const transferUrl = order && !settled && !following ? order.solanaPayUrl : null;
  // Over HTTPS the QR carries the transaction request (any wallet that reads Solana Pay links builds nothing itself);
  // the transfer request stays one tap away.
  const txUrl = transferUrl ? (order?.transactionRequestUrl ?? null) : null;
  const payUrl = i.stockKnown === false ? null : txUrl && !i.transferFallback ? txUrl : transferUrl;
  const payAmount = order ? order.amount : null;

  /** The price is unknown but the server issued an unpriced quote: the order can be confirmed with 'N/A'. */
  const unpricedQuote = order === null && quote.status === 'ready' && quote.quote.amount === null;
  const priceFailed =
    order === null &&
    (unpricedQuote ||
      (quote.status !== 'ready' && (price.status === 'unavailable' || price.status === 'error')) ||
      (quote.status === 'failed' && quote.code === 'price_unavailable'));
  /** The vendor cannot receive by QR yet (its token account does not exist or cannot be checked): no QR. */
  const payoutRefused =
    order === null &&
    quote.status === 'failed' &&
    (quote.code === 'payout_account_missing' || quote.code === 'payout_account_unknown');

  let box: QrBox;
  if (payUrl) box = { kind: 'qr', url: payUrl, amount: payAmount };
  else if (paid) box = { kind: 'paid', askDetails: !order?.detailsSent };
  else if (settled) box = { kind: 'settled', text: STATUS_TEXT[known.status] };
  else if (order?.solanaPayUrl === null) box = { kind: 'unpriced-order' };
  else if (priceFailed)
    box = { kind: 'price-failed', text: price.status === 'error' ? MSG_PRICE_ERROR : MSG_PRICE_FAILED };
  else if (quantityProblem) box = { kind: 'quantity-problem', text: quantityProblem };
  else if (payoutRefused && quote.status === 'failed')
    box = { kind: 'payout-refused', message: quote.message, sellsByWallet: i.sellsByWallet };
  else if (quote.status === 'failed' || i.recordFailed) box = { kind: 'link-failed' };
  else box = { kind: 'generating', text: GENERATING };

  return {
    ...r,
    paid,
    payoutRefused,
    title: payoutRefused ? TITLE_PAYOUT_REFUSED : i.phone ? TITLE_PHONE : TITLE_SCAN,
    payNext: payNext ? nowPay(payNext) : null,
    box,
    payLink:
      payUrl && payAmount
        ? {
            url: payUrl,
            amount: `${groupThousands(payAmount)} $CLAIM`,
            fallback: txUrl ? (i.transferFallback ? 'shown' : 'offer') : null,
          }
        : null,
    status: order ? statusBlock(order, known, { requotable, paid, settled, quantity }) : null,
    timeLeftUntil: known?.status === 'awaiting_payment' && known.amount !== null ? known.expiresAt : null,
    unpricedNote: unpricedQuote,
    notReadyError: i.notReady && !payUrl,
    button: {
      label: order?.confirmed ? CONFIRMATION_SENT_LABEL : confirmLabel(i.vendorId),
      disabled: sending || Boolean(order?.confirmed) || Boolean(quantityProblem) || payoutRefused,
    },
    confirmNow:
      order !== null &&
      known !== null &&
      paid &&
      order.detailsSent &&
      !order.confirmed &&
      !sending &&
      confirmationOutcome(known, {}) === 'sent',
  };
}

function statusBlock(
  order: StoredQrOrder,
  known: OrderPublic | null,
  s: { requotable: boolean; paid: boolean; settled: boolean; quantity: number | null },
): QrStatusBlock {
  const received =
    known?.receivedBaseUnits !== undefined &&
    known.amountBaseUnits !== null &&
    known.receivedBaseUnits !== known.amountBaseUnits
      ? ` (received ${formatClaim(BigInt(known.receivedBaseUnits))} of ${groupThousands(known.amount ?? '')} $CLAIM${
          known.status === 'underpaid' ? '; the seller will contact you' : ''
        })`
      : null;
  const quantityChanged = !s.requotable && s.quantity !== null && s.quantity !== order.quantity;
  return {
    orderNumber: orderNumberOf(order.orderId),
    quantity: order.quantity,
    dataStatus: known?.status ?? 'loading',
    text:
      known === null
        ? CHECKING_STATUS
        : known.amount === null
          ? SENT_WITHOUT_PRICE
          : STATUS_TEXT[known.status],
    received,
    paidLate: known?.status === 'paid_late',
    unreadableNote: known?.unreadablePayments
      ? unreadablePaymentNote(known.unreadablePayments.map((u) => u.signature))
      : null,
    paymentCheckNote: known?.paymentCheck === 'delayed' ? PAYMENT_CHECK_DELAYED : null,
    signature: known?.signature ?? null,
    orderPageLink: order.orderUrl && (order.detailsSent || s.settled) ? order.orderUrl : null,
    quantityChangedNote: quantityChanged
      ? `This order is for ${order.quantity}. To order a different quantity, start a new order.`
      : null,
    startNew: !s.requotable && !s.paid,
  };
}
