/**
 * One order in the seller console, in plain words: the short order number, items, amounts, where it ships, the
 * seller's note, fulfilment (Mark shipped, tracking changed after shipping with the carrier's link, Mark
 * delivered), money back (who paid, what is owed, refunds; "Refund with wallet", or record a refund sent
 * elsewhere by its signature), exceptions, payments, history, e-mails (resend), the seller's actions, and a
 * printable packing slip (print styles: address, items, order number; prices only when asked).
 */
import './order-view.css';
import { useEffect, useState } from 'react';
import { CARRIERS } from '../../core/carriers';
import { explorerTxUrl } from '../../core/explorer';
import { formatCents } from '../../core/money';
import { SHIPPABLE } from '../../core/order-status';
import { shipBlockOf } from '../../core/ship-readiness';
import type { SellerException, SellerOrderDetail } from '../../core/seller-api';
import { NOTE_MAX_LENGTH } from '../../core/seller-api';
import type { ConfigState } from '../api/config';
import { sellerApi } from './api';
import {
  EXCEPTION_LABEL,
  message,
  noShippingWords,
  shipToLines,
  STATUS_LABEL,
  statusWords,
  when,
} from './labels';
import { emailWords, eventWords, MAIL_STATE, PAYMENT_ROLE, UNREADABLE_REASON } from './order-words';
import { MoneyBack, ResolveForm } from './OrderMoneyBack';
import { claimText, short, type Act } from './order-view-lib';
import { PackingSlip } from './PackingSlip';

export function OrderView(props: { orderId: string; config: ConfigState; onBack: () => void }) {
  const [order, setOrder] = useState<SellerOrderDetail | null>(null);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const config = props.config.status === 'known' ? props.config.config : undefined;

  useEffect(() => {
    sellerApi.order(props.orderId).then(setOrder, (err: unknown) => setError(message(err)));
  }, [props.orderId]);

  const act = async (fn: () => Promise<SellerOrderDetail>, done: string): Promise<boolean> => {
    setError('');
    setNotice('');
    try {
      setOrder(await fn());
      setNotice(done);
      return true;
    } catch (err) {
      setError(message(err));
      return false;
    }
  };

  if (!order)
    return (
      <div className="seller-order">
        <button type="button" className="button" onClick={props.onBack}>
          Back to orders
        </button>
        {error ? (
          <p className="error" role="alert">
            {error}
          </p>
        ) : (
          <p role="status">Loading the order…</p>
        )}
      </div>
    );

  const open = order.exceptions.filter((x) => !order.resolved.includes(x));
  return (
    <article className="seller-order" aria-label={`Order ${order.orderNumber}`}>
      <div className="seller-order-screen">
        <div className="seller-order-bar">
          <button type="button" className="button" onClick={props.onBack}>
            Back to orders
          </button>
          <button type="button" className="button secondary" onClick={() => window.print()}>
            Print packing slip
          </button>
        </div>
        <h2>Order {order.orderNumber}</h2>
        <p>
          <strong data-testid="order-status">{statusWords(order)}</strong> · placed {when(order.createdAt)} ·{' '}
          {order.paymentMethod === 'qr' ? 'paid by QR code' : 'paid with a wallet'}
        </p>
        {error && (
          <p className="error" role="alert">
            {error}
          </p>
        )}
        {notice && <p role="status">{notice}</p>}

        <h3>Items</h3>
        <ul data-testid="order-items">
          {order.items.map((i, n) => (
            <li key={n}>
              {i.quantity} × {i.name}
              {i.variantLabel ? ` (${i.variantLabel})` : ''}: ${formatCents(i.lineCents)}
            </li>
          ))}
        </ul>
        <dl className="seller-facts">
          <dt>Total</dt>
          <dd>${formatCents(order.totalCents)}</dd>
          <dt>Price in $CLAIM</dt>
          <dd>{claimText(order.amountBaseUnits)}</dd>
          <dt>Received</dt>
          <dd>{claimText(order.receivedBaseUnits)}</dd>
          {order.paidLateUsdCents !== undefined && (
            <>
              <dt>Value when paid (late)</dt>
              <dd data-testid="paid-late-usd">
                {order.paidLateUsdCents === null
                  ? 'unknown (no price known at that time)'
                  : `$${formatCents(order.paidLateUsdCents)}`}
              </dd>
            </>
          )}
        </dl>

        <h3>Ship to</h3>
        <address data-testid="ship-to">
          {shipToLines(order).map((line, i) => (
            <span key={i} className="seller-address-line">
              {line}
            </span>
          ))}
          {order.buyerEmail && <a href={`mailto:${order.buyerEmail}`}>{order.buyerEmail}</a>}
        </address>

        <NoteForm order={order} act={act} />
        <Fulfilment order={order} act={act} />
        <MoneyBack
          order={order}
          open={open}
          config={props.config}
          act={act}
          onRecorded={(o, m) => {
            setOrder(o);
            setError('');
            setNotice(m);
          }}
          onFailed={(m) => {
            setNotice('');
            setError(m);
          }}
        />

        {order.exceptions.length > 0 && (
          <>
            <h3>To look at</h3>
            <ul>
              {order.exceptions.map((x) => (
                <li key={x}>
                  {EXCEPTION_LABEL[x]}
                  {order.resolved.includes(x) ? ': resolved' : ''}
                </li>
              ))}
            </ul>
            {open.map((x) => (
              <ResolveForm key={x} order={order} exception={x} act={act} />
            ))}
          </>
        )}

        <h3>Payments</h3>
        {order.payments.length === 0 ? (
          <p>No payment recorded.</p>
        ) : (
          <ul className="seller-rows" data-testid="order-payments">
            {order.payments.map((p) => (
              <li key={p.signature}>
                {PAYMENT_ROLE[p.role]}: <strong>{claimText(p.receivedBaseUnits)}</strong>, {when(p.at)} —{' '}
                <a href={explorerTxUrl(p.signature, config)} target="_blank" rel="noopener noreferrer">
                  view transaction {short(p.signature)}
                </a>{' '}
                ({p.confirmation === 'finalized' ? 'final' : 'confirmed'})
              </li>
            ))}
            {order.refunds.map((r) => (
              <li key={r.signature} data-testid="order-refund-row">
                Refund to the payer: <strong>{claimText(r.amountBaseUnits)}</strong>, {when(r.at)} —{' '}
                <a href={r.transactionUrl} target="_blank" rel="noopener noreferrer">
                  view transaction {short(r.signature)}
                </a>
              </li>
            ))}
          </ul>
        )}
        {(order.unreadablePayments ?? []).length > 0 && (
          <>
            <h3>Transactions the store could not read</h3>
            <p>They may pay this order: check each in the explorer, then record what you did.</p>
            <ul className="seller-rows" data-testid="order-unreadable">
              {(order.unreadablePayments ?? []).map((u) => (
                <li key={u.signature}>
                  {UNREADABLE_REASON[u.reason] ?? u.reason}, {when(u.at)} —{' '}
                  <a href={u.transactionUrl} target="_blank" rel="noopener noreferrer">
                    view transaction {short(u.signature)}
                  </a>
                </li>
              ))}
            </ul>
          </>
        )}

        <h3>History</h3>
        <ol className="seller-rows">
          {order.history.map((h, n) => (
            <li key={n}>
              {when(h.at)}: {eventWords(h.event)} → {STATUS_LABEL[h.status]}
            </li>
          ))}
        </ol>

        <h3>E-mails</h3>
        <ul className="seller-rows" data-testid="order-emails">
          {order.emails.map((m) => (
            <li key={m.id}>
              {emailWords(m.kind, m.recipient)} to {m.to}: {MAIL_STATE[m.state]}
              {m.deliveredAt ? ` ${when(m.deliveredAt)}` : ''}
              {m.lastError ? ` (${m.lastError})` : ''}
              {(m.state === 'failed' || m.state === 'withheld') && (
                <>
                  {' '}
                  <button
                    type="button"
                    className="button"
                    onClick={() => void act(() => sellerApi.resend(order.orderId, m.id), 'Queued again.')}
                  >
                    Send again
                  </button>
                </>
              )}
            </li>
          ))}
        </ul>

        {order.actions.length > 0 && (
          <>
            <h3>What you did</h3>
            <ol className="seller-rows" data-testid="order-actions">
              {order.actions.map((a, n) => (
                <li key={n}>
                  {when(a.at)}: {actionWords(a)}
                </li>
              ))}
            </ol>
          </>
        )}
      </div>
      <PackingSlip order={order} />
    </article>
  );
}

function actionWords(a: SellerOrderDetail['actions'][number]): string {
  const d = a.detail;
  const amount = d.amountBaseUnits ? claimText(d.amountBaseUnits) : '';
  const exception = d.exception ? (EXCEPTION_LABEL[d.exception as SellerException] ?? d.exception) : '';
  switch (a.action) {
    case 'shipped':
      return `Marked shipped, tracking number ${d.trackingNumber ?? ''}${d.carrier ? ` (${d.carrier})` : ''}`;
    case 'tracking':
      return `Changed the tracking number to ${d.trackingNumber ?? ''}${d.carrier ? ` (${d.carrier})` : ''}`;
    case 'delivered':
      return 'Marked delivered';
    case 'cancelled':
      return 'Cancelled the order (the buyer asked); its pieces are back on sale';
    case 'note':
      return d.note ? 'Changed the note' : 'Cleared the note';
    case 'resolved':
      return `About “${exception}”: ${d.note ?? ''}`;
    case 'refund':
      return `Refunded ${amount} (part of what is owed; “${exception}”), transaction ${short(d.signature ?? '')}`;
    case 'refunded':
      return `Refunded ${amount} (“${exception}” settled), transaction ${short(d.signature ?? '')}`;
    case 'email_resent':
      return 'Sent an e-mail again';
    default:
      return a.action.replace(/_/g, ' ');
  }
}

function NoteForm({ order, act }: { order: SellerOrderDetail; act: Act }) {
  const [note, setNote] = useState(order.note?.text ?? '');
  useEffect(() => setNote(order.note?.text ?? ''), [order.note?.text]);
  return (
    <form
      className="seller-form"
      onSubmit={(e) => {
        e.preventDefault();
        void act(() => sellerApi.note(order.orderId, note), note.trim() ? 'Note saved.' : 'Note cleared.');
      }}
    >
      <h3>
        <label htmlFor="order-note">Your note</label>
      </h3>
      <p className="seller-hint">Only you see it.</p>
      <textarea
        id="order-note"
        rows={3}
        maxLength={NOTE_MAX_LENGTH}
        value={note}
        onChange={(e) => setNote(e.target.value)}
      />
      <button type="submit" className="button">
        Save note
      </button>
      {order.note && <p className="seller-hint">Saved {when(order.note.at)}.</p>}
    </form>
  );
}

function Fulfilment({ order, act }: { order: SellerOrderDetail; act: Act }) {
  // Mark shipped only when shipping is possible: paid in full, no refund returning the money, and an address to
  // ship to (src/core/ship-readiness.ts, the server's own rule); else why not, in words.
  const paidToShip = SHIPPABLE.has(order.status);
  const block = paidToShip
    ? shipBlockOf({
        shippingDetails: order.shippingDetails,
        refundedExceptions: order.refunds.map((r) => r.exception),
        closedByRefund: order.closedByRefund,
      })
    : undefined;
  const shippable = paidToShip && !block;
  const shipped = order.status === 'shipped' || order.status === 'delivered';
  const [tracking, setTracking] = useState('');
  const [carrier, setCarrier] = useState('');
  const [editing, setEditing] = useState(false);
  const submit = async () => {
    const body = { trackingNumber: tracking, ...(carrier.trim() ? { carrier: carrier.trim() } : {}) };
    const ok = shipped
      ? await act(
          () => sellerApi.tracking(order.orderId, body),
          'Tracking changed; the buyer is being e-mailed the new number.',
        )
      : await act(
          () => sellerApi.ship(order.orderId, body),
          'Marked shipped; the buyer is being e-mailed the tracking number.',
        );
    if (ok) {
      setEditing(false);
      setTracking('');
      setCarrier('');
    }
  };
  return (
    <>
      <h3>Shipping</h3>
      {order.shipment && (
        <p data-testid="order-tracking">
          Shipped {when(order.shipment.shippedAt)}: tracking number{' '}
          <strong>{order.shipment.trackingNumber}</strong>
          {order.shipment.carrier ? ` (${order.shipment.carrier})` : ''}
          {order.shipment.trackingUrl && (
            <>
              {' '}
              —{' '}
              <a href={order.shipment.trackingUrl} target="_blank" rel="noopener noreferrer">
                track it on {order.shipment.carrier}
              </a>
            </>
          )}
        </p>
      )}
      {(shippable || (shipped && editing)) && (
        <form
          className="seller-form"
          onSubmit={(e) => {
            e.preventDefault();
            void submit();
          }}
        >
          <label>
            {shipped ? 'New tracking number' : 'Tracking number'}
            <input required value={tracking} onChange={(e) => setTracking(e.target.value)} />
          </label>
          <label>
            Carrier (optional)
            <input
              list="seller-carriers"
              value={carrier}
              onChange={(e) => setCarrier(e.target.value)}
              autoComplete="off"
            />
          </label>
          <datalist id="seller-carriers">
            {CARRIERS.map((c) => (
              <option key={c} value={c} />
            ))}
          </datalist>
          <button type="submit" className="button">
            {shipped ? 'Save tracking' : 'Mark shipped'}
          </button>
          {shipped && (
            <button type="button" className="button secondary" onClick={() => setEditing(false)}>
              Cancel
            </button>
          )}
        </form>
      )}
      {shipped && !editing && (
        <p className="seller-order-bar">
          <button
            type="button"
            className="button secondary"
            onClick={() => {
              setTracking(order.shipment?.trackingNumber ?? '');
              setCarrier(order.shipment?.carrier ?? '');
              setEditing(true);
            }}
          >
            Change tracking
          </button>
          {order.status === 'shipped' && (
            <button
              type="button"
              className="button"
              onClick={() => void act(() => sellerApi.delivered(order.orderId), 'Marked delivered.')}
            >
              Mark delivered
            </button>
          )}
        </p>
      )}
      {!shippable && !shipped && (
        <p data-testid="no-shipping">{block ? block.message : noShippingWords(order.status)}</p>
      )}
    </>
  );
}

/** The payer a refund for `exception` goes to by default: the latest extra payment's, else the first. */
