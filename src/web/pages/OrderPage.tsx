import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import type { OrderPageView, OrderStatus, PaymentRole } from '../../core/api';
import { explorerTxUrl } from '../../core/explorer';
import { formatCents } from '../../core/money';
import { unreadablePaymentNote } from '../../core/unreadable-payment';
import { PAYMENT_CHECK_DELAYED } from '../../core/payment-check';
import { formatClaim, groupThousands } from '../lib/claim-amount';
import { paths } from '../../core/routes';
import { useConfig } from '../api/config';
import { getOrderPage } from '../api/order-page';
import { ApiRequestError, isAbort } from '../lib/call';
import { usePageTitle } from '../lib/title';
import OrderPrivacy from './OrderPrivacy';
import { formatLocalDateTime } from '../lib/time';

const POLL_MS = 2_000;
/** Nothing changes any more (a late payment is still recorded on an expired order: keep reading that one). */
const SETTLED: ReadonlySet<OrderStatus> = new Set(['final']);

type State =
  | { status: 'loading' }
  | { status: 'known'; view: OrderPageView }
  | { status: 'missing' }
  | { status: 'error' };

const ROLE_TEXT: Record<PaymentRole, string> = {
  payment: 'payment',
  top_up: 'top-up',
  partial: 'part payment',
  extra: 'extra payment',
};

/**
 * Everything owed back has been refunded (and something was). What is owed is the server's own rule
 * (src/core/refunds.ts with the order's dust threshold), sent with the page: never worked out again here.
 */
function refundedAll(v: OrderPageView): boolean {
  return BigInt(v.owed.remainingBaseUnits) === 0n && BigInt(v.owed.refundedBaseUnits) > 0n;
}

/** What arrived above the order's amount (0 when not overpaid or unpriced). */
function overpaidBy(v: OrderPageView): bigint {
  if (v.amountBaseUnits === null) return 0n;
  const over = BigInt(v.receivedBaseUnits) - BigInt(v.amountBaseUnits);
  return over > 0n ? over : 0n;
}

/** What the page says about an extra payment: owed back, back already, or dust (owed nothing). */
const extraText = (v: OrderPageView, index: number) => {
  if (BigInt(v.owed.perPayment[index] ?? '0') === 0n) return 'extra payment (too small to be sent back)';
  return refundedAll(v) ? 'extra payment (refunded)' : 'extra payment (the seller refunds it)';
};

/** The buyer asked the vendor to cancel and the vendor has not answered yet (the order's own fact). */
const cancelAsked = (v: OrderPageView) => v.privacy.cancel === 'requested';

function statusLine(v: OrderPageView, now: number): string {
  if (
    cancelAsked(v) &&
    (v.status === 'paid' || v.status === 'final' || v.status === 'paid_late' || v.status === 'underpaid')
  )
    return 'Cancellation requested: waiting for the seller';
  switch (v.status) {
    case 'awaiting_payment': {
      if (v.amount === null) return 'Awaiting payment: the seller will contact you to arrange it';
      const left = Date.parse(v.expiresAt) - now;
      return left > 0
        ? `Awaiting payment: ${Math.max(1, Math.ceil(left / 60_000))} min left`
        : 'Awaiting payment: the payment window is closing';
    }
    case 'paid':
      return 'Payment received';
    case 'final':
      return 'Payment received and final';
    case 'underpaid':
      return 'Payment received, but less than the order total';
    case 'paid_late':
      return 'Payment received after the payment window closed';
    case 'expired':
      return 'Expired: the payment window closed and no payment was received';
    case 'shipped':
      return v.shipment
        ? `Shipped: tracking number ${v.shipment.trackingNumber}${v.shipment.carrier ? ` (${v.shipment.carrier})` : ''}`
        : 'Shipped';
    case 'delivered':
      return 'Delivered';
    case 'oversold':
      return 'Payment received, but the item sold out before it arrived';
    case 'cancelled':
      return refundedAll(v) ? 'Cancelled and refunded' : 'Cancelled: the seller refunds your payment';
  }
}

function nextSteps(v: OrderPageView): string {
  if (cancelAsked(v) && v.status !== 'cancelled')
    return 'You asked the seller to cancel this order. They have been e-mailed; while they look at it the order does not ship. Once they cancel it, they refund your payment to the wallet that paid, and this page shows the refund.';
  if (
    v.shippingDetails !== 'given' &&
    (v.status === 'paid' || v.status === 'final' || v.status === 'paid_late')
  )
    return 'We have your payment but not your shipping details yet: send them from the product page where you paid (same device), or contact the seller. The seller has been told.';
  switch (v.status) {
    case 'awaiting_payment':
      return 'Scan the QR code or use the payment link on the product page. This page updates by itself once the payment is recorded.';
    case 'paid':
    case 'final':
      return 'The seller has your order and ships it to the address you gave. The confirmation e-mail has the details.';
    case 'underpaid':
      return 'Pay the missing amount with the link below (it carries this order’s reference), or wait for the seller to contact you to settle the difference.';
    case 'paid_late':
      return 'Your payment is recorded. Because it arrived after the quote expired, the seller will review it and confirm your order before shipping.';
    case 'expired':
      return 'Nothing was paid, so nothing more happens. To buy, start a new order on the product page.';
    case 'shipped':
      return 'The seller has sent your order. Follow the parcel with the tracking number (it is also in your e-mail).';
    case 'delivered':
      return 'The seller has marked your order delivered.';
    case 'oversold':
      return refundedAll(v)
        ? 'Your payment arrived after the reservation lapsed and the item had sold out meanwhile. The seller has refunded it to your wallet (below).'
        : 'Your payment is recorded, but it arrived after the reservation lapsed and the item had sold out meanwhile. The seller will refund you.';
    case 'cancelled':
      return refundedAll(v)
        ? 'The seller cancelled this order as you asked and refunded your payment to your wallet (below). It will not ship.'
        : 'The seller cancelled this order as you asked. It will not ship, and the seller refunds your payment to your wallet.';
  }
}

/**
 * The buyer's order page (/order/<capability token>), linked from every buyer e-mail: number, items, amounts,
 * live status, each payment with its explorer link, the details as typed (name, address; the e-mail masked) and
 * what happens next. Client-rendered data (not prerendered); the page title names no one.
 */
export default function OrderPage({ token }: { token: string }) {
  usePageTitle('Your order');
  const config = useConfig();
  const [state, setState] = useState<State>({ status: 'loading' });
  const [now, setNow] = useState(() => Date.now());

  useEffect(() => {
    const controller = new AbortController();
    let timer: number | undefined;
    const load = async () => {
      try {
        const view = await getOrderPage(token, controller.signal);
        if (controller.signal.aborted) return;
        setState({ status: 'known', view });
        setNow(Date.now());
        if (SETTLED.has(view.status) && view.shippingDetails === 'given') return;
      } catch (err) {
        if (controller.signal.aborted || isAbort(err)) return;
        if (err instanceof ApiRequestError && err.status === 404) {
          setState({ status: 'missing' });
          return;
        }
        setState((s) => (s.status === 'known' ? s : { status: 'error' }));
      }
      timer = window.setTimeout(() => void load(), POLL_MS);
    };
    void load();
    return () => {
      controller.abort();
      if (timer !== undefined) window.clearTimeout(timer);
    };
  }, [token]);

  if (state.status === 'loading') return <p className="page narrow">Loading your order…</p>;
  if (state.status === 'missing') {
    return (
      <section className="page narrow not-found" data-testid="order-missing">
        <h1>Order not found</h1>
        <p>This order link is not valid. Please use the link from your order e-mail.</p>
        <p>
          <Link className="button" to={paths.home}>
            Back to Home
          </Link>
        </p>
      </section>
    );
  }
  if (state.status === 'error')
    return <p className="page narrow error">The order could not be loaded. Please try again in a moment.</p>;

  const v = state.view;
  const cfg = config.status === 'known' ? config.config : undefined;
  return (
    <section className="page narrow order-page" data-testid="order-page" data-status={v.status}>
      <h1>Order {v.number}</h1>
      <p>
        From <strong>{v.vendorName}</strong>, placed {formatLocalDateTime(v.createdAt)}
      </p>
      <h2>Items</h2>
      <ul data-testid="order-items">
        {v.items.map((i, n) => (
          <li key={n}>
            {i.quantity} × {i.name}
            {i.variantLabel ? ` (${i.variantLabel})` : ''} — ${formatCents(i.lineCents)}
          </li>
        ))}
      </ul>
      <p data-testid="order-total">
        Total: <strong>${formatCents(v.totalCents)}</strong>
        {v.amount !== null ? (
          <>
            {' '}
            = <strong>{groupThousands(v.amount)} $CLAIM</strong>
          </>
        ) : (
          ' ($CLAIM: N/A)'
        )}
      </p>
      <h2>Status</h2>
      <p role="status" aria-live="polite" data-testid="order-status-line">
        <strong>{statusLine(v, now)}</strong>
        {v.amountBaseUnits !== null &&
          BigInt(v.receivedBaseUnits) > 0n &&
          BigInt(v.receivedBaseUnits) !== BigInt(v.amountBaseUnits) && (
            <span>
              {' '}
              {BigInt(v.receivedBaseUnits) > BigInt(v.amountBaseUnits)
                ? // More than the order's amount came in: say so, rather than "received 2 of 1".
                  `(received ${formatClaim(BigInt(v.receivedBaseUnits))} $CLAIM for a ${groupThousands(v.amount ?? '')} $CLAIM order; the payments below show the extra)`
                : `(received ${formatClaim(BigInt(v.receivedBaseUnits))} of ${groupThousands(v.amount ?? '')} $CLAIM)`}
            </span>
          )}
      </p>
      {v.shipment?.trackingUrl && (
        <p data-testid="order-tracking">
          <a className="button" href={v.shipment.trackingUrl} target="_blank" rel="noopener noreferrer">
            Track the parcel with {v.shipment.carrier}
          </a>
        </p>
      )}
      {overpaidBy(v) > 0n && (
        <p className="note" data-testid="order-extra">
          {refundedAll(v)
            ? `You sent ${formatClaim(overpaidBy(v))} $CLAIM more than the order total; the seller has refunded it (below).`
            : `You sent ${formatClaim(overpaidBy(v))} $CLAIM more than the order total: the seller refunds the extra to the wallet that paid.`}
        </p>
      )}
      {v.shippingDetails !== 'given' && (
        <p className="note" data-testid="details-state">
          Shipping details: {v.shippingDetails === 'missing' ? 'missing (paid without them)' : 'not sent yet'}
          .
        </p>
      )}
      {v.unreadablePayments && (
        <p className="note" data-testid="unreadable-payment">
          {unreadablePaymentNote(v.unreadablePayments.map((u) => u.signature))}
        </p>
      )}
      {v.paymentCheck === 'delayed' && (
        <p className="note" data-testid="payment-check">
          {PAYMENT_CHECK_DELAYED}
        </p>
      )}
      {v.topUp && (
        <p data-testid="top-up">
          Missing: <strong>{v.topUp.amount} $CLAIM</strong>.{' '}
          <a className="button" href={v.topUp.solanaPayUrl}>
            Pay the missing amount
          </a>
        </p>
      )}
      {v.payments.length > 0 && (
        <>
          <h2>Payments</h2>
          <ul data-testid="order-payments">
            {[
              ...v.payments.map((p, i) => ({ kind: 'payment' as const, at: p.at, p, i })),
              ...v.refunds.map((r) => ({ kind: 'refund' as const, at: r.at, r })),
            ]
              .sort((a, b) => Date.parse(a.at) - Date.parse(b.at))
              .map((row) =>
                row.kind === 'payment' ? (
                  <li key={row.p.signature}>
                    {formatClaim(BigInt(row.p.receivedBaseUnits))} $CLAIM,{' '}
                    {row.p.role === 'extra' ? extraText(v, row.i) : ROLE_TEXT[row.p.role]},{' '}
                    {formatLocalDateTime(row.p.at)} —{' '}
                    <a
                      className="button small secondary"
                      href={explorerTxUrl(row.p.signature, cfg)}
                      target="_blank"
                      rel="noopener noreferrer"
                      data-testid="order-tx-link"
                    >
                      View the transaction
                    </a>
                  </li>
                ) : (
                  <li key={row.r.signature} data-testid="order-refund">
                    Refund to your wallet: {formatClaim(BigInt(row.r.amountBaseUnits))} $CLAIM,{' '}
                    {formatLocalDateTime(row.r.at)} —{' '}
                    <a
                      className="button small secondary"
                      href={explorerTxUrl(row.r.signature, cfg)}
                      target="_blank"
                      rel="noopener noreferrer"
                      data-testid="order-refund-link"
                    >
                      View the transaction
                    </a>
                  </li>
                ),
              )}
          </ul>
        </>
      )}
      {v.details && (
        <>
          <h2>Shipping to</h2>
          <p className="muted small">
            As you typed it: if something is wrong, contact the seller before it ships.
          </p>
          <address className="order-details" data-testid="order-details">
            <strong>{v.details.fullName}</strong>
            {v.details.addressLines.map((line, n) => (
              <span key={n}>{line}</span>
            ))}
            <span>
              E-mail: <span data-testid="order-email">{v.details.email}</span>
            </span>
          </address>
        </>
      )}
      <h2>What happens next</h2>
      <p data-testid="order-next">{nextSteps(v)}</p>
      <OrderPrivacy token={token} view={v} onChange={(view) => setState({ status: 'known', view })} />
    </section>
  );
}
