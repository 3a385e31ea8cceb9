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
import { extraText, nextSteps, overpaidBy, refundedAll, statusLine } from './order-page-words';
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
