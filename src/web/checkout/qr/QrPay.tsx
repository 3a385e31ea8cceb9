import { useCallback, useEffect, useRef, useState } from 'react';
import type { OrderPublic, OrderRequest, OrderStatus } from '../../../core/api';
import { useConfig } from '../../api/config';
import { formatClaim, groupThousands } from '../../lib/claim-amount';
import { getOrder, newIdempotencyKey } from '../shared/order-api';
import { createQrOrder, pageTokenOf, requestConfirmation } from './api';
import { ApiRequestError } from '../../lib/call';
import { FULLY_PAID } from '../../../core/order-status';
import { storedReferrer } from '../../lib/referral';
import type { QrCheckoutProps } from '../types';
import { attemptBaseline, confirmationOutcome } from './confirmation';
import { explorerTxUrl } from '../../../core/explorer';
import { forgetQrOrder, loadQrOrder, saveQrOrder, type StoredQrOrder } from './order-store';
import { QrImage } from '../shared/QrImage';
import { TimeLeft } from '../shared/TimeLeft';
import { useOrderStatus } from './useOrderStatus';
import { useQrRecord } from './useQrRecord';
import { useQuote } from './useQuote';
import { catalog } from '../../catalog';
import { paths } from '../../../core/routes';
import { orderNumberOf } from '../../../core/order-number';

/** The QR image's size in CSS pixels (the `.qr-box` of styles.css is sized for it). */
export const QR_SIZE = 180;
export const MSG_SENT = 'Order confirmation sent to both seller and buyer!';
export const MSG_FAILED = 'Failed to send order confirmation.';
export const MSG_PRICE_FAILED = 'Failed to load price. Try again later.';
export const MSG_PRICE_ERROR = 'Error loading price.';
export const GENERATING = 'Generating QR Code...';
/** Shown in place of the time left when an awaiting order's window closes (the server then expires it). */
export const QR_TIME_UP =
  'Time is up: this order can no longer be paid. Do not send a payment with this QR code; start a new order instead. If you paid just now, the status above updates by itself.';
/** How long one press waits for both e-mails before it reports a failure (the server keeps retrying). */
const CONFIRM_WAIT_MS = 30_000;
const CONFIRM_POLL_MS = 1_000;

/** The confirmation button's text: the glass vendor's QR page (Eagles XL) reads 'Send Confirmation Email'. */
export function confirmLabel(vendorId: string): string {
  return vendorId === 'coopersglass' ? 'Send Confirmation Email' : 'Send Order Confirmation';
}

/** After the details of an unpaid record: the next step, where the QR is. */
export const nowPay = (amount: string) => `Now pay ${groupThousands(amount)} $CLAIM to complete the order.`;

const STATUS_TEXT: Record<OrderStatus, string> = {
  awaiting_payment: 'Awaiting payment',
  paid: 'Payment received — Paid, nothing more to pay',
  final: 'Payment received and final — Paid, nothing more to pay',
  expired: 'Payment window expired',
  underpaid: 'Payment received, but less than the order total',
  paid_late: 'Payment received after the payment window closed',
  shipped: 'Shipped',
  delivered: 'Delivered',
  oversold: 'Payment received, but the item sold out first: the seller will refund you',
  cancelled: 'Order cancelled: the seller refunds your payment',
};

const sleep = (ms: number) => new Promise((r) => window.setTimeout(r, ms));

/**
 * QR checkout (spec §2 QR order page, §4, §5, §8). Record before showing: the page's quote becomes a server
 * record (an order without shipping details) before its QR, copy link and open-in-wallet link appear; the
 * record is kept in localStorage and resumed after a reload or in a new tab. Its status is polled from the
 * server: a payment the watcher records shows as 'Payment received' at once (the QR goes) and the page asks for
 * the details. "Send Order Confirmation" attaches them (POST /api/orders/:id/confirmation {shipping}) and asks
 * for the confirmations (seller, then buyer), then waits for their delivery.
 */
export default function QrPay({
  product,
  vendor,
  variantId,
  quantity,
  price,
  validateShipping,
  refreshStock,
  resumeQuantity,
  orderPlaced,
  quantityProblem,
  children,
}: QrCheckoutProps) {
  const config = useConfig();
  // The stored record is read in the effect below, not at first render: the first frame is prerendered at build
  // time and hydrated ('Generating QR Code...').
  const [order, setOrderState] = useState<StoredQrOrder | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [sending, setSending] = useState(false);
  const [copyNote, setCopyNote] = useState<string | null>(null);
  const [nudge, setNudge] = useState(0);
  const [notReady, setNotReady] = useState(false);
  const attempt = useRef<{ body: string; key: string } | null>(null);
  const qrArea = useRef<HTMLElement>(null);
  const alerted = useRef(false);

  useEffect(() => {
    const stored = loadQrOrder(product.id);
    setOrderState(stored);
    setLoaded(true);
    // A reload keeps the order's quantity on the page.
    if (stored) resumeQuantity?.(stored.quantity);
  }, [product.id, resumeQuantity]);

  const setOrder = useCallback((o: StoredQrOrder) => setOrderState(o), []);
  const refresh = useCallback(() => setNudge((n) => n + 1), []);
  const status = useOrderStatus(order?.orderId ?? null, nudge);
  const known = status.status === 'known' && status.order.orderId === order?.orderId ? status.order : null;

  // A stored record the server does not know (cleaned up, another store, a wiped database), or one that expired
  // with nothing paid and no details: start again with a fresh record.
  useEffect(() => {
    if (!order) return;
    const stale =
      status.status === 'missing' ||
      (known !== null && known.status === 'expired' && known.payments.length === 0 && !order.detailsSent);
    if (stale) {
      forgetQrOrder(order.productId);
      attempt.current = null;
      setOrderState(null);
    }
  }, [status.status, known, order]);

  /** The open record follows the page's quantity: nothing paid, no details sent. */
  const requotable =
    order !== null &&
    order.solanaPayUrl !== null &&
    !order.detailsSent &&
    known !== null &&
    known.status === 'awaiting_payment' &&
    known.payments.length === 0;
  const quote = useQuote({
    productId: product.id,
    variantId,
    quantity,
    priceUsd:
      price.status === 'known'
        ? price.priceUsd
        : price.status === 'unavailable' || price.status === 'error'
          ? 'failed'
          : undefined,
    enabled: loaded && (order === null || (requotable && quantity !== null && quantity !== order.quantity)),
    scope: order?.orderId ?? null,
    renewFrom: order?.quote ?? null,
  });
  const recordError = useQrRecord({
    productId: product.id,
    quote: quote.status === 'ready' ? quote.quote : null,
    order,
    requotable,
    setOrder,
    onRefused: refresh,
  });

  /** Something arrived for the record (or its window closed): the QR is no longer the thing to show. */
  const settled = known !== null && known.status !== 'awaiting_payment';
  const paid = known !== null && FULLY_PAID.has(known.status);
  /** The details are in and the record is not paid yet: the next step is the QR. */
  const payNext =
    order !== null && order.detailsSent && known?.status === 'awaiting_payment' && known.amount !== null;

  // The payment landed (the page is current: stock re-read). Details sent before paying: the confirmations go
  // now; once both are delivered the button reads 'Confirmation Sent' and the one alert says so.
  useEffect(() => {
    if (paid) refreshStock?.();
  }, [paid, refreshStock]);
  useEffect(() => {
    if (!order || !known || !paid || !order.detailsSent || order.confirmed || sending || alerted.current)
      return;
    if (confirmationOutcome(known, {}) !== 'sent') return;
    alerted.current = true;
    const done = { ...order, confirmed: true };
    saveQrOrder(done);
    setOrderState(done);
    window.alert(MSG_SENT);
  }, [order, known, paid, sending]);
  // Only the record's own link is ever shown (record before showing); none once payment arrived, and none while
  // the open record is being moved to the page's quantity (or the quantity is not a number: no link).
  const following = requotable && quantity !== order.quantity;
  const payUrl = order && !settled && !following ? order.solanaPayUrl : null;
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
  const sellsByWallet = catalog.products.some((p) => p.vendorId === vendor.id && p.payment === 'wallet');

  let qrContent;
  if (payUrl) {
    qrContent = (
      <QrImage
        text={payUrl}
        size={QR_SIZE}
        alt={`Solana Pay QR code: pay ${payAmount ?? ''} $CLAIM to ${vendor.name}`}
        placeholder={GENERATING}
      />
    );
  } else if (paid) {
    qrContent = (
      <p className="paid" data-testid="payment-received">
        <strong>Payment received</strong>
        {order?.detailsSent
          ? ''
          : ': please fill in your shipping details below and send them to complete the order.'}
      </p>
    );
  } else if (settled) {
    qrContent = <p data-testid="qr-settled">{known ? STATUS_TEXT[known.status] : ''}</p>;
  } else if (order?.solanaPayUrl === null) {
    qrContent = (
      <p data-testid="unpriced-order">No payment link: the price was unknown when this order was sent.</p>
    );
  } else if (priceFailed) {
    qrContent = <p className="error">{price.status === 'error' ? MSG_PRICE_ERROR : MSG_PRICE_FAILED}</p>;
  } else if (quantityProblem) {
    qrContent = <p data-testid="quantity-problem">{quantityProblem}</p>;
  } else if (payoutRefused) {
    // No QR to a recipient that cannot receive: the vendor's token account does not exist (or cannot be checked).
    qrContent = (
      <div data-testid="payout-not-ready">
        <p className="error">{quote.message}</p>
        {sellsByWallet && (
          <p>
            {vendor.name}&apos;s <a href={paths.vendor(vendor.id)}>wallet products</a> can still be bought
            with Buy Now: your wallet creates the vendor&apos;s account first (one more approval).
          </p>
        )}
      </div>
    );
  } else if (quote.status === 'failed' || recordError) {
    qrContent = <p className="error">The payment link could not be prepared. Try again later.</p>;
  } else {
    qrContent = <p>{GENERATING}</p>;
  }

  const onCopy = async () => {
    if (!payUrl) return;
    try {
      await navigator.clipboard.writeText(payUrl);
      setCopyNote('Payment link copied.');
    } catch {
      setCopyNote('Could not copy: use "Open in wallet" or copy the link by hand.');
    }
  };

  const startNewOrder = () => {
    forgetQrOrder(product.id);
    attempt.current = null;
    setOrderState(null);
    setCopyNote(null);
  };

  const onConfirm = useCallback(async () => {
    const shipping = validateShipping();
    if (!shipping || sending) return;
    if (shipping.kind !== 'us') return;
    setNotReady(false);
    setSending(true);
    try {
      let current = order;
      if (!current) {
        // Only an unpriced quote (no price: no QR, nothing to pay) is ordered here, with the details at once.
        if (quote.status !== 'ready' || quote.quote.amount !== null || quantity === null) {
          setNotReady(true);
          return;
        }
        const referrer = storedReferrer(window.localStorage);
        const req: OrderRequest = {
          quote: quote.quote.quote,
          shipping,
          paymentMethod: 'qr',
          ...(referrer ? { referrer } : {}),
        };
        const body = JSON.stringify(req);
        // The same attempt (same quote and form) keeps its key, so a retry after a lost reply replays the order.
        if (attempt.current?.body !== body) attempt.current = { body, key: newIdempotencyKey() };
        const created = await createQrOrder(req, attempt.current.key);
        current = {
          orderId: created.orderId,
          productId: product.id,
          orderUrl: created.orderUrl,
          solanaPayUrl: created.solanaPayUrl,
          amount: created.amount,
          quantity,
          quote: quote.quote.quote,
          expiresAt: created.expiresAt,
          detailsSent: true,
          confirmed: false,
        };
        saveQrOrder(current);
        setOrderState(current);
      }
      // The details attach to the record, with its page token (the id alone attaches nothing).
      let snapshot: OrderPublic = await requestConfirmation(
        current.orderId,
        pageTokenOf(current.orderUrl),
        shipping,
      );
      orderPlaced?.();
      if (!current.detailsSent) {
        current = { ...current, detailsSent: true };
        saveQrOrder(current);
        setOrderState(current);
      }
      setNudge((n) => n + 1);
      refreshStock?.();
      if (
        snapshot.amount !== null &&
        (snapshot.status === 'awaiting_payment' || snapshot.status === 'expired')
      ) {
        // Not paid yet: nothing is e-mailed until the payment lands. The next step is the QR, above.
        qrArea.current?.focus();
        return;
      }
      const baseline = attemptBaseline(snapshot);
      const deadline = Date.now() + CONFIRM_WAIT_MS;
      let outcome = confirmationOutcome(snapshot, baseline);
      while (outcome === 'pending' && Date.now() < deadline) {
        await sleep(CONFIRM_POLL_MS);
        snapshot = await getOrder(current.orderId);
        outcome = confirmationOutcome(snapshot, baseline);
      }
      if (outcome === 'sent') {
        const done = { ...current, confirmed: true };
        alerted.current = true;
        saveQrOrder(done);
        setOrderState(done);
        window.alert(MSG_SENT);
      } else {
        window.alert(MSG_FAILED);
      }
    } catch (err) {
      // A refusal by the shop (sold out, details already sent, too many pieces held, …) is its own sentence.
      if (err instanceof ApiRequestError && err.status >= 400 && err.status < 500) {
        refreshStock?.();
        window.alert(err.message);
      } else {
        window.alert(MSG_FAILED);
      }
    } finally {
      setSending(false);
    }
  }, [validateShipping, sending, order, quote, quantity, product.id, refreshStock, orderPlaced]);

  const signature = known?.signature;
  const canSend = !sending && !order?.confirmed && !quantityProblem && !payoutRefused;
  const quantityChanged = order !== null && !requotable && quantity !== null && quantity !== order.quantity;

  return (
    <div className="qr-pay">
      <section className="card qr-area" aria-labelledby="qr-title" ref={qrArea} tabIndex={-1}>
        <h2 id="qr-title">{payoutRefused ? 'Not ready for QR payments' : 'Scan to pay'}</h2>
        {payNext && order.amount && (
          <p className="next-step" role="status" data-testid="pay-next">
            <strong>{nowPay(order.amount)}</strong> Your details are saved; nothing is e-mailed until the
            payment arrives.
          </p>
        )}
        <div
          className={payoutRefused ? 'qr-box qr-box-message' : 'qr-box'}
          role="status"
          aria-live="polite"
          data-testid="qr-box"
        >
          {qrContent}
        </div>
        {payUrl && payAmount && (
          <>
            <p className="qr-amount">
              Amount: <strong data-testid="qr-amount">{groupThousands(payAmount)} $CLAIM</strong>
            </p>
            <p className="qr-actions">
              <button type="button" className="button" onClick={() => void onCopy()}>
                Copy payment link
              </button>{' '}
              <a className="button" href={payUrl} data-testid="open-in-wallet">
                Open in wallet
              </a>
            </p>
            {copyNote && (
              <p className="note" role="status">
                {copyNote}
              </p>
            )}
          </>
        )}
        {order && (
          <div
            className="order-status"
            data-testid="order-status"
            data-status={known?.status ?? 'loading'}
            role="status"
            aria-live="polite"
          >
            <p>
              Order <code>{orderNumberOf(order.orderId)}</code> ({order.quantity} × {product.name}
              ):{' '}
              <strong>
                {known === null
                  ? 'Checking payment status...'
                  : known.amount === null
                    ? 'Sent without a price: the seller will contact you to arrange payment'
                    : STATUS_TEXT[known.status]}
              </strong>
              {known?.receivedBaseUnits !== undefined &&
                known.amountBaseUnits !== null &&
                known.receivedBaseUnits !== known.amountBaseUnits && (
                  <span data-testid="received">
                    {' '}
                    (received {formatClaim(BigInt(known.receivedBaseUnits))} of{' '}
                    {groupThousands(known.amount ?? '')} $CLAIM
                    {known.status === 'underpaid' ? '; the seller will contact you' : ''})
                  </span>
                )}
            </p>
            {known?.status === 'paid_late' && (
              <p className="note">
                The payment arrived after the payment window closed: the seller will confirm.
              </p>
            )}
            {signature && (
              <p>
                <a
                  href={explorerTxUrl(signature, config.status === 'known' ? config.config : undefined)}
                  target="_blank"
                  rel="noopener noreferrer"
                  data-testid="tx-link"
                >
                  View the transaction
                </a>
              </p>
            )}
            {order.orderUrl && (order.detailsSent || settled) && (
              <p>
                <a href={order.orderUrl} data-testid="order-page-link">
                  Your order page
                </a>
              </p>
            )}
            {quantityChanged && (
              <p className="note">
                This order is for {order.quantity}. To order a different quantity, start a new order.
              </p>
            )}
            {!requotable && !paid && (
              <p>
                <button type="button" className="button link" onClick={startNewOrder} disabled={sending}>
                  Start a new order
                </button>
              </p>
            )}
          </div>
        )}
        {known?.status === 'awaiting_payment' && known.amount !== null && (
          <TimeLeft expiresAt={known.expiresAt} atZero={QR_TIME_UP} />
        )}
      </section>
      {children}
      {unpricedQuote && (
        <p className="note" data-testid="unpriced-note">
          You can still send the order confirmation without a price ($CLAIM total 'N/A'); the seller will
          contact you to arrange payment.
        </p>
      )}
      {notReady && !payUrl && (
        <p className="error" role="alert">
          The order can be sent once the price and the payment link are known. Please try again in a moment.
        </p>
      )}
      <button
        type="button"
        className="button big"
        onClick={() => void onConfirm()}
        disabled={!canSend}
        aria-busy={sending}
      >
        {order?.confirmed ? 'Confirmation Sent' : confirmLabel(vendor.id)}
      </button>
    </div>
  );
}
