import { useCallback, useEffect, useRef, useState } from 'react';
import { useConfig } from '../../api/config';
import { getOrder, newIdempotencyKey } from '../shared/order-api';
import { createQrOrder, pageTokenOf, requestConfirmation } from './api';
import { storedReferrer } from '../../lib/referral';
import type { QrCheckoutProps } from '../types';
import { explorerTxUrl } from '../../../core/explorer';
import { forgetQrOrder, loadQrOrder, saveQrOrder, type StoredQrOrder } from './order-store';
import { TimeLeft } from '../shared/TimeLeft';
import { useOrderStatus } from './useOrderStatus';
import { useQrRecord } from './useQrRecord';
import { useQuote } from './useQuote';
import { catalog } from '../../catalog';
import { qrPurchase, qrRecord, qrView, soldOutView } from './view';
import { OrderStatusPanel, PayLinkBlock, QrBoxContent, StatusLine } from './parts';
import { Receipt } from '../shared/Receipt';
import { receiptText } from '../shared/receipt';
import { QrConfirmation } from './confirm';
import {
  COPIED,
  COPY_FAILED,
  MSG_FAILED,
  MSG_SENT,
  QR_TIME_UP,
  RECORD_SOLD_OUT,
  SCAN_ON_ANOTHER,
  TITLE_PHONE,
  TITLE_SCAN,
} from './messages';
import { usePhone } from './usePhone';

const sleep = (ms: number) => new Promise<void>((r) => window.setTimeout(r, ms));

/**
 * QR checkout (spec §2 QR order page, §4, §5, §8). Record before showing: the page's quote becomes a server
 * record (an order without shipping details) before its QR, copy link and open-in-wallet link appear; the
 * record is kept in localStorage and resumed after a reload or in a new tab. Its status is polled from the
 * server: a payment the watcher records shows as 'Payment received' at once (the QR goes) and the page asks for
 * the details. "Send Order Confirmation" attaches them (POST /api/orders/:id/confirmation {shipping}) and asks
 * for the confirmations (seller, then buyer), then waits for their delivery.
 *
 * A thin view: what it shows is `qrView` (view.ts), what the button does is `QrConfirmation` (confirm.ts); both
 * are pure and unit-tested. This component holds the state, runs the hooks and effects and renders.
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
  paidChanged,
  payAmountShown,
  children,
  stockKnown,
  nothingLeft,
  purchaseChanged,
}: QrCheckoutProps) {
  const config = useConfig();
  // The stored record is read in the effect below, not at first render: the first frame is prerendered at build
  // time and hydrated ('Generating QR Code...').
  const [order, setOrder] = useState<StoredQrOrder | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [sending, setSending] = useState(false);
  const [copyNote, setCopyNote] = useState<string | null>(null);
  const [nudge, setNudge] = useState(0);
  const [notReady, setNotReady] = useState(false);
  const [transferFallback, setTransferFallback] = useState(false);
  const qrArea = useRef<HTMLElement>(null);
  const alerted = useRef(false);
  const phoneScreen = usePhone();
  const phone = phoneScreen === true;

  const record = useCallback((o: StoredQrOrder) => {
    saveQrOrder(o);
    setOrder(o);
  }, []);
  // The page's callbacks as of the last render, for the button's state machine (made once: it keeps the
  // unpriced order's attempt, so a retry after a lost reply replays it).
  const latest = useRef({ orderPlaced, refreshStock });
  latest.current = { orderPlaced, refreshStock };
  const [confirmation] = useState(
    () =>
      new QrConfirmation({
        createOrder: createQrOrder,
        requestConfirmation,
        getOrder: (id) => getOrder(id),
        newKey: newIdempotencyKey,
        now: () => Date.now(),
        sleep,
        record,
        detailsAttached: () => {
          latest.current.orderPlaced?.();
          setNudge((n) => n + 1);
          latest.current.refreshStock?.();
        },
      }),
  );

  useEffect(() => {
    const stored = loadQrOrder(product.id);
    setOrder(stored);
    setLoaded(true);
    // A reload keeps the order's quantity on the page.
    if (stored) resumeQuantity?.(stored.quantity);
  }, [product.id, resumeQuantity]);

  const refresh = useCallback(() => setNudge((n) => n + 1), []);
  const status = useOrderStatus(order?.orderId ?? null, nudge, pageTokenOf(order?.orderUrl ?? null));
  // The record's standing comes before the quote (which it enables); the rest of the view after it.
  const early = qrRecord({ loaded, order, status, quantity, price });
  // Sold out (the page's live stock): only a purchase (money arrived, or confirmed) keeps its checkout; an open
  // record with nothing paid holds nothing, so it gets no QR, no link and no button, and asks for no quote.
  const soldOut = soldOutView(nothingLeft === true, order, early.known);
  const purchase = qrPurchase(order, early.known);
  const quote = useQuote({
    productId: product.id,
    variantId,
    // A quantity the page already refuses (more than is available) is not quoted: the server would refuse it (409).
    quantity: quantityProblem ? null : quantity,
    priceUsd: early.quotePrice,
    // Not before the stock is known: a sold-out page asks for no quote (its QR checkout goes once the stock says so).
    enabled: early.quoteEnabled && stockKnown !== false && soldOut === 'checkout',
    scope: order?.orderId ?? null,
    renewFrom: order?.quote ?? null,
  });
  const recordError = useQrRecord({
    productId: product.id,
    quote: quote.status === 'ready' ? quote.quote : null,
    order,
    requotable: early.requotable,
    setOrder,
    onRefused: refresh,
  });
  const view = qrView({
    loaded,
    order,
    status,
    quote,
    price,
    quantity,
    quantityProblem,
    recordFailed: recordError !== null,
    sending,
    notReady,
    vendorId: vendor.id,
    sellsByWallet: catalog.products.some((p) => p.vendorId === vendor.id && p.payment === 'wallet'),
    phone,
    transferFallback,
    ...(stockKnown === undefined ? {} : { stockKnown }),
  });

  useEffect(() => {
    if (!order || !view.stale) return;
    forgetQrOrder(order.productId);
    confirmation.forget();
    setOrder(null);
  }, [view.stale, order, confirmation]);

  // The payment landed (the page is current: stock re-read). Details sent before paying: the confirmations go
  // now; once both are delivered the button reads 'Confirmation Sent' and the one alert says so.
  useEffect(() => {
    if (view.paid) refreshStock?.();
    paidChanged?.(view.paid);
  }, [view.paid, refreshStock, paidChanged]);
  // A priced record is on the page: its amount (or the receipt's) is the one amount shown from now on.
  const amountShown = order !== null && order.solanaPayUrl !== null && soldOut === 'checkout';
  useEffect(() => {
    payAmountShown?.(amountShown);
  }, [amountShown, payAmountShown]);
  useEffect(() => {
    purchaseChanged?.(purchase);
  }, [purchase, purchaseChanged]);
  // The receipt takes focus when the payment lands while the buyer watches (not when a reload finds it paid).
  const sawUnpaid = useRef(false);
  if (view.known?.status === 'awaiting_payment') sawUnpaid.current = true;
  useEffect(() => {
    if (!order || !view.confirmNow || alerted.current) return;
    alerted.current = true;
    record({ ...order, confirmed: true });
    window.alert(MSG_SENT);
  }, [order, view.confirmNow, record]);

  const payUrl = view.payLink?.url ?? null;
  // Sold out, not a purchase: the page's "Sold out" says it; no QR, no link, no form, no button.
  if (soldOut === 'record-sold-out')
    return (
      <p className="note" role="status" data-testid="record-sold-out">
        {RECORD_SOLD_OUT}
      </p>
    );
  if (soldOut !== 'checkout') return null;
  const onCopy = async () => {
    if (!payUrl) return;
    try {
      await navigator.clipboard.writeText(payUrl);
      setCopyNote(COPIED);
    } catch {
      setCopyNote(COPY_FAILED);
    }
  };

  const startNewOrder = () => {
    forgetQrOrder(product.id);
    confirmation.forget();
    setOrder(null);
    setCopyNote(null);
  };

  const onConfirm = async () => {
    const shipping = validateShipping();
    if (!shipping || sending) return;
    if (shipping.kind !== 'us') return;
    setNotReady(false);
    setSending(true);
    try {
      const outcome = await confirmation.send({
        order,
        quote,
        quantity,
        productId: product.id,
        shipping,
        referrer: storedReferrer(window.localStorage),
      });
      if (outcome.kind === 'not_ready') setNotReady(true);
      else if (outcome.kind === 'pay_next') qrArea.current?.focus();
      else if (outcome.kind === 'sent') {
        alerted.current = true;
        window.alert(MSG_SENT);
      } else if (outcome.kind === 'refused') {
        refreshStock?.();
        window.alert(outcome.message);
      } else window.alert(MSG_FAILED);
    } finally {
      setSending(false);
    }
  };

  // The amount to pay (the only amount on the screen) and the links: first on a phone (its own wallet pays),
  // under the QR at a desk.
  const payLinkBlock = view.payLink && (
    <PayLinkBlock
      payLink={view.payLink}
      phone={phone}
      copyNote={copyNote}
      onCopy={() => void onCopy()}
      setTransferFallback={setTransferFallback}
    />
  );
  const s = view.status;
  const paidOrder = view.paid && view.known && order ? view.known : null;
  if (paidOrder && order && s) {
    // The paid state: the receipt (checkout/shared/Receipt.tsx). The form stays only while the details are missing.
    const detailsMissing = !order.detailsSent;
    return (
      <div className="qr-pay paid-state">
        <section className="card qr-area" aria-labelledby="receipt-title" ref={qrArea} tabIndex={-1}>
          <Receipt
            text={receiptText(paidOrder, { detailsMissing, vendorName: vendor.name })}
            orderPath={s.orderPageLink}
            orderPageSecondary={detailsMissing}
            txUrl={
              s.signature
                ? explorerTxUrl(s.signature, config.status === 'known' ? config.config : undefined)
                : null
            }
            headingId="receipt-title"
            focus={sawUnpaid.current}
          >
            <p className="paid" data-testid="payment-received">
              <strong>Payment received</strong>
              {detailsMissing
                ? ': please fill in your shipping details below and send them to complete the order.'
                : ''}
            </p>
            <StatusLine s={s} productName={product.name} />
          </Receipt>
        </section>
        {detailsMissing && children}
        <button
          type="button"
          className="button big"
          onClick={() => void onConfirm()}
          disabled={view.button.disabled}
          aria-busy={sending}
        >
          {view.button.label}
        </button>
      </div>
    );
  }
  return (
    <div className="qr-pay">
      <section className="card qr-area" aria-labelledby="qr-title" ref={qrArea} tabIndex={-1}>
        <h2 id="qr-title">
          {phoneScreen === undefined && view.title === TITLE_SCAN ? (
            // The prerendered first frame, the same for every device: the screen's CSS shows its own title
            // (a phone leads with its own wallet before any script has run, e.g. on a slow network).
            <>
              <span className="for-desk">{TITLE_SCAN}</span>
              <span className="for-phone">{TITLE_PHONE}</span>
            </>
          ) : (
            view.title
          )}
        </h2>
        {view.payNext && (
          <p className="next-step" role="status" data-testid="pay-next">
            <strong>{view.payNext}</strong> Your details are saved; nothing is e-mailed until the payment
            arrives.
          </p>
        )}
        {phone && payLinkBlock}
        {phone && view.payLink && <p className="muted small scan-other">{SCAN_ON_ANOTHER}</p>}
        <div
          className={view.payoutRefused ? 'qr-box qr-box-message' : 'qr-box'}
          role="status"
          aria-live="polite"
          data-testid="qr-box"
        >
          <QrBoxContent box={view.box} vendor={vendor} />
        </div>
        {!phone && payLinkBlock}
        {s && (
          <OrderStatusPanel
            s={s}
            productName={product.name}
            txUrl={
              s.signature
                ? explorerTxUrl(s.signature, config.status === 'known' ? config.config : undefined)
                : null
            }
            onStartNew={startNewOrder}
            sending={sending}
          />
        )}
        {view.timeLeftUntil && <TimeLeft expiresAt={view.timeLeftUntil} atZero={QR_TIME_UP} />}
      </section>
      {children}
      {view.unpricedNote && (
        <p className="note" data-testid="unpriced-note">
          You can still send the order confirmation without a price ($CLAIM total 'N/A'); the seller will
          contact you to arrange payment.
        </p>
      )}
      {view.notReadyError && (
        <p className="error" role="alert">
          The order can be sent once the price and the payment link are known. Please try again in a moment.
        </p>
      )}
      <button
        type="button"
        className="button big"
        onClick={() => void onConfirm()}
        disabled={view.button.disabled}
        aria-busy={sending}
      >
        {view.button.label}
      </button>
    </div>
  );
}
