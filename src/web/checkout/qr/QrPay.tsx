import { useCallback, useEffect, useRef, useState } from 'react';
import type { OrderPublic, OrderRequest, OrderStatus } from '../../../core/api';
import { useConfig } from '../../api/config';
import { formatBaseUnits } from '../../../core/money';
import { createQrOrder, getOrder, newIdempotencyKey, requestConfirmation } from '../../api/orders';
import { storedReferrer } from '../../lib/referral';
import type { QrCheckoutProps } from '../types';
import { attemptBaseline, confirmationOutcome } from './confirmation';
import { explorerTxUrl } from './explorer';
import { forgetQrOrder, loadQrOrder, saveQrOrder, type StoredQrOrder } from './order-store';
import { QrImage } from './QrImage';
import { useOrderStatus } from './useOrderStatus';
import { useQuote } from './useQuote';

/** The QR image's size in CSS pixels (the `.qr-box` of styles.css is sized for it). */
export const QR_SIZE = 180;
export const MSG_SENT = 'Order confirmation sent to both seller and buyer!';
export const MSG_FAILED = 'Failed to send order confirmation.';
export const MSG_PRICE_FAILED = 'Failed to load price. Try again later.';
export const MSG_PRICE_ERROR = 'Error loading price.';
export const GENERATING = 'Generating QR Code...';
/** How long one press waits for both e-mails before it reports a failure (the server keeps retrying). */
const CONFIRM_WAIT_MS = 30_000;
const CONFIRM_POLL_MS = 1_000;

/** The confirmation button's text: the glass vendor's QR page (Eagles XL) reads 'Send Confirmation Email'. */
export function confirmLabel(vendorId: string): string {
  return vendorId === 'coopersglass' ? 'Send Confirmation Email' : 'Send Order Confirmation';
}

const STATUS_TEXT: Record<OrderStatus, string> = {
  awaiting_payment: 'Awaiting payment',
  paid: 'Payment received',
  final: 'Payment received and final',
  expired: 'Payment window expired',
  underpaid: 'Payment received, but less than the order total',
  paid_late: 'Payment received after the payment window closed',
};

const sleep = (ms: number) => new Promise((r) => window.setTimeout(r, ms));

/**
 * QR checkout (spec §2 QR order page, §4, §5, §8). The QR encodes the server's Solana Pay transfer request
 * (POST /api/quotes); "Send Order Confirmation" records the order with that quote (POST /api/orders, one
 * Idempotency-Key per attempt) and asks for the confirmations (seller, then buyer), then waits for their
 * delivery. Once an order exists its QR and link stay on screen and its status is polled from the server.
 */
export default function QrPay({
  product,
  vendor,
  variantId,
  quantity,
  price,
  validateShipping,
  children,
}: QrCheckoutProps) {
  const config = useConfig();
  // The stored order is read in the effect below, not at first render: the first frame is prerendered at build
  // time and hydrated ('Generating QR Code...').
  const [order, setOrder] = useState<StoredQrOrder | null>(null);
  const [sending, setSending] = useState(false);
  const [copyNote, setCopyNote] = useState<string | null>(null);
  const [nudge, setNudge] = useState(0);
  const [notReady, setNotReady] = useState(false);
  const attempt = useRef<{ body: string; key: string } | null>(null);

  useEffect(() => {
    setOrder(loadQrOrder(product.id));
  }, [product.id]);

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
    enabled: order === null,
  });
  const status = useOrderStatus(order?.orderId ?? null, nudge);

  // A stored order the server does not know (another store, a wiped database): start again.
  useEffect(() => {
    if (status.status === 'missing' && order) {
      forgetQrOrder(order.productId);
      setOrder(null);
    }
  }, [status.status, order]);

  // Once an order exists, its own link (or none: an unpriced order) is shown, never a newer quote's.
  const payUrl = order ? order.solanaPayUrl : quote.status === 'ready' ? quote.quote.solanaPayUrl : null;
  const payAmount = order ? order.amount : quote.status === 'ready' ? quote.quote.amount : null;
  /** The price is unknown but the server issued an unpriced quote: the order can be confirmed with 'N/A'. */
  const unpricedQuote = order === null && quote.status === 'ready' && quote.quote.amount === null;
  const priceFailed =
    order === null &&
    (unpricedQuote ||
      (quote.status !== 'ready' && (price.status === 'unavailable' || price.status === 'error')) ||
      (quote.status === 'failed' && quote.code === 'price_unavailable'));

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
  } else if (order?.solanaPayUrl === null) {
    qrContent = (
      <p data-testid="unpriced-order">No payment link: the price was unknown when this order was sent.</p>
    );
  } else if (priceFailed) {
    qrContent = <p className="error">{price.status === 'error' ? MSG_PRICE_ERROR : MSG_PRICE_FAILED}</p>;
  } else if (quote.status === 'failed') {
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
    setOrder(null);
    setCopyNote(null);
  };

  const onConfirm = useCallback(async () => {
    const shipping = validateShipping();
    if (!shipping || sending) return;
    setNotReady(false);
    setSending(true);
    try {
      let current = order;
      if (!current) {
        if (quote.status !== 'ready' || quantity === null) {
          // No price / link yet: an order needs the server's quote, so nothing is sent.
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
          solanaPayUrl: created.solanaPayUrl,
          amount: created.amount,
          quantity,
          confirmed: false,
        };
        saveQrOrder(current);
        setOrder(current);
      }
      let snapshot: OrderPublic = await requestConfirmation(current.orderId);
      setNudge((n) => n + 1);
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
        saveQrOrder(done);
        setOrder(done);
        window.alert(MSG_SENT);
      } else {
        window.alert(MSG_FAILED);
      }
    } catch {
      window.alert(MSG_FAILED);
    } finally {
      setSending(false);
    }
  }, [validateShipping, sending, order, quote, quantity, product.id]);

  const known = status.status === 'known' ? status.order : null;
  const signature = known?.signature;
  const canSend = !sending && !order?.confirmed;
  const quantityChanged = order !== null && quantity !== null && quantity !== order.quantity;

  return (
    <div className="qr-pay">
      <section className="card qr-area" aria-labelledby="qr-title">
        <h2 id="qr-title">Scan to pay</h2>
        <div className="qr-box" role="status" aria-live="polite" data-testid="qr-box">
          {qrContent}
        </div>
        {payUrl && payAmount && (
          <>
            <p className="qr-amount">
              Amount: <strong data-testid="qr-amount">{payAmount} $CLAIM</strong>
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
              Order <code>{order.orderId.slice(0, 8)}</code> ({order.quantity} × {product.name}):{' '}
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
                    (received {formatBaseUnits(BigInt(known.receivedBaseUnits))} of {known.amount} $CLAIM
                    {known.status === 'underpaid' ? '; the seller will contact you' : ''})
                  </span>
                )}
            </p>
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
            {quantityChanged && (
              <p className="note">
                This order is for {order.quantity}. To order a different quantity, start a new order.
              </p>
            )}
            <p>
              <button type="button" className="button link" onClick={startNewOrder} disabled={sending}>
                Start a new order
              </button>
            </p>
          </div>
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
