import { useEffect, useRef, useState } from 'react';
import type { OrderPublic, PublicConfig } from '../../../core/api';
import { groupThousands } from '../../../core/money';
import { orderNumberOf } from '../../../core/order-number';
import { getOrder } from '../shared/order-api';
import { QrImage } from '../shared/QrImage';
import { TimeLeft } from '../shared/TimeLeft';
import { TIME_UP } from './messages';
import { mailsDelivered } from './api';
import { unreadablePaymentNote } from '../../../core/unreadable-payment';
import { PAYMENT_CHECK_DELAYED } from '../../../core/payment-check';
import { Receipt } from '../shared/Receipt';
import { receiptText, showsReceipt } from '../shared/receipt';

const POLL_MS = 1_500;

export type OrderView = { status: 'loading' } | { status: 'known'; order: OrderPublic } | { status: 'gone' };

/** Settled: nothing will change any more without a new payment (final with both e-mails sent, or expired). */
export function isSettled(o: OrderPublic): boolean {
  return (o.status === 'final' && mailsDelivered(o)) || o.status === 'expired';
}

/**
 * Polls GET /api/orders/:id while the order can still change (with the order page's token, so the server knows
 * someone waits on the payment). The server decides; the page only shows.
 */
export function useOrderStatus(orderId: string | null, kick: number, pageToken = ''): OrderView {
  const [view, setView] = useState<OrderView>({ status: 'loading' });
  useEffect(() => {
    if (!orderId) return;
    const controller = new AbortController();
    let timer: number | undefined;
    const poll = async () => {
      try {
        const order = await getOrder(orderId, controller.signal, pageToken || undefined);
        if (controller.signal.aborted) return;
        setView({ status: 'known', order });
        if (isSettled(order)) return;
      } catch (err) {
        if (controller.signal.aborted) return;
        if ((err as { status?: number }).status === 404) {
          setView({ status: 'gone' });
          return;
        }
      }
      timer = window.setTimeout(() => void poll(), POLL_MS);
    };
    void poll();
    return () => {
      controller.abort();
      window.clearTimeout(timer);
    };
  }, [orderId, kick, pageToken]);
  if (!orderId) return { status: 'gone' };
  // Another order than the one shown (a new purchase): nothing to show until its first answer.
  if (view.status === 'known' && view.order.orderId !== orderId) return { status: 'loading' };
  return view;
}

const STATUS_TEXT: Record<OrderPublic['status'], string> = {
  awaiting_payment: 'Awaiting payment',
  paid: 'Payment received (waiting for final confirmation on chain)',
  final: 'Payment received and final',
  expired: 'Expired: no payment arrived before the quote ran out',
  underpaid: 'Underpaid: the payment was less than the order total; the seller will contact you',
  paid_late: 'Payment received after the quote expired; the seller will contact you',
  shipped: 'Shipped: the seller has sent your order',
  delivered: 'Delivered',
  oversold: 'Payment received after the quote expired, but the item had sold out: the seller will refund you',
  cancelled: 'Cancelled at your request: the seller refunds your payment',
};

const MAIL_TEXT = {
  pending: 'queued',
  sent: 'sent',
  retrying: 'not delivered yet, retrying',
  failed: 'failed',
  withheld: 'not sent (e-mail limit for this address; your order page has everything)',
} as const;

export function explorerTxUrl(signature: string, config: Pick<PublicConfig, 'cluster' | 'rpcUrl'>): string {
  const base = `https://explorer.solana.com/tx/${encodeURIComponent(signature)}`;
  if (config.cluster === 'mainnet-beta') return base;
  if (config.cluster === 'localnet')
    return `${base}?cluster=custom&customUrl=${encodeURIComponent(config.rpcUrl)}`;
  return `${base}?cluster=${config.cluster}`;
}

/**
 * The order in the purchase column: number, status, time left while it awaits payment, amount, transaction and
 * e-mails. `focus`: move keyboard focus to its heading once shown (after Buy Now created the order).
 */
export function OrderStatusPanel({
  view,
  config,
  paymentSent = false,
  focus = false,
  orderPath,
  payLink,
  vendorName,
}: {
  view: OrderView;
  config: PublicConfig;
  /** A transfer was sent from this page: no count-down while the server confirms it. */
  paymentSent?: boolean;
  focus?: boolean;
  /** The buyer's order page (`/order/<token>`), when known. */
  orderPath?: string | undefined;
  /** The order's Solana Pay link, shown while it awaits payment (the phone path without a wallet browser). */
  payLink?: string | undefined;
  /** The vendor, named in the receipt's next step. */
  vendorName?: string | undefined;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  const shownId = view.status === 'known' ? view.order.orderId : null;
  useEffect(() => {
    if (focus && shownId) heading.current?.focus();
  }, [focus, shownId]);
  if (view.status !== 'known') return null;
  const o = view.order;
  const mails = o.emails.filter((e) => e.kind === 'order_confirmation');
  const mailLine = mails.length > 0 && (
    <p data-testid="order-emails">
      Confirmation e-mails: {mails.map((m) => `${m.recipient} ${MAIL_TEXT[m.state]}`).join(', ')}
    </p>
  );
  if (showsReceipt(o)) {
    // The end of the purchase: the paid state (checkout/shared/Receipt.tsx), the server's status kept under it.
    return (
      <section
        className="card order-status paid-state"
        aria-labelledby="order-status-title"
        data-order-id={o.orderId}
        data-status={o.status}
      >
        <Receipt
          text={receiptText(o, vendorName ? { vendorName } : {})}
          orderPath={orderPath}
          txUrl={o.signature ? explorerTxUrl(o.signature, config) : null}
          headingId="order-status-title"
          focus={focus}
        >
          <p role="status" className="muted small">
            Status: <span data-testid="order-status">{STATUS_TEXT[o.status]}</span>
          </p>
        </Receipt>
        {mailLine}
      </section>
    );
  }
  return (
    <section
      className="card order-status"
      aria-labelledby="order-status-title"
      data-order-id={o.orderId}
      data-status={o.status}
    >
      <h2 id="order-status-title" ref={heading} tabIndex={-1}>
        Your order
      </h2>
      <p>
        Order number: <strong data-testid="order-number">{orderNumberOf(o.orderId)}</strong>
      </p>
      <p role="status">
        Status: <strong data-testid="order-status">{STATUS_TEXT[o.status]}</strong>
      </p>
      {o.status === 'awaiting_payment' && !paymentSent && (
        <TimeLeft expiresAt={o.expiresAt} atZero={TIME_UP} />
      )}
      {o.amount !== null && <p>Amount: {groupThousands(o.amount)} $CLAIM</p>}
      {o.unreadablePayments && (
        <p className="note" data-testid="unreadable-payment">
          {unreadablePaymentNote(o.unreadablePayments.map((u) => u.signature))}
        </p>
      )}
      {o.paymentCheck === 'delayed' && (
        <p className="note" data-testid="payment-check">
          {PAYMENT_CHECK_DELAYED}
        </p>
      )}
      {payLink && o.status === 'awaiting_payment' && !paymentSent && (
        <div className="pay-link" data-testid="pay-link">
          <p>
            <a className="button" href={payLink}>
              Open the payment in your wallet app
            </a>
          </p>
          <p className="muted small">Or scan this code with a wallet app on another device:</p>
          <QrImage text={payLink} size={180} alt="Payment QR code" placeholder="Generating QR Code..." />
        </div>
      )}
      {o.signature && (
        <p>
          <a
            href={explorerTxUrl(o.signature, config)}
            target="_blank"
            rel="noopener noreferrer"
            className="button secondary tx-link"
          >
            View the transaction
          </a>
        </p>
      )}
      {orderPath && (
        <p>
          <a className="button" href={orderPath} data-testid="order-page-link">
            Your order page
          </a>{' '}
          <span className="muted small">(status, shipping and tracking; keep this link)</span>
        </p>
      )}
      {mailLine}
    </section>
  );
}
