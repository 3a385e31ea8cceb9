/**
 * One order in the seller console, in plain words: the short order number, items, amounts, where it ships, the
 * seller's note, fulfilment (Mark shipped, tracking changed after shipping with the carrier's link, Mark
 * delivered), money back (who paid, what is owed, refunds; "Refund with wallet", or record a refund sent
 * elsewhere by its signature), exceptions, payments, history, e-mails (resend), the seller's actions, and a
 * printable packing slip (print styles: address, items, order number; prices only when asked).
 */
import './order-view.css';
import { lazy, Suspense, useEffect, useState } from 'react';
import { CARRIERS } from '../../core/carriers';
import { explorerTxUrl } from '../../core/explorer';
import { formatCents } from '../../core/money';
import { SHIPPABLE } from '../../core/order-status';
import type { SellerException, SellerOrderDetail, SellerPayer } from '../../core/seller-api';
import { NOTE_MAX_LENGTH } from '../../core/seller-api';
import type { ConfigState } from '../api/config';
import { formatClaim } from '../lib/claim-amount';
import { sellerApi } from './api';
import { EXCEPTION_LABEL, message, STATUS_LABEL, when } from './labels';
import { emailWords, eventWords, MAIL_STATE, PAYMENT_ROLE, REFUNDABLE } from './order-words';
import { parseClaimInput } from './refund-tx';

const RefundWithWallet = lazy(() => import('./RefundWithWallet'));

const claimText = (base: string | bigint | null) =>
  base === null ? 'N/A' : `${formatClaim(typeof base === 'bigint' ? base : BigInt(base))} $CLAIM`;
const short = (a: string) => `${a.slice(0, 4)}…${a.slice(-4)}`;

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
          <strong data-testid="order-status">{STATUS_LABEL[order.status]}</strong> · placed{' '}
          {when(order.createdAt)} · {order.paymentMethod === 'qr' ? 'paid by QR code' : 'paid with a wallet'}
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
        <address>
          {order.buyerName}
          <br />
          {order.shippingAddress}
          <br />
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
              {m.state === 'failed' && (
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

type Act = (fn: () => Promise<SellerOrderDetail>, done: string) => Promise<boolean>;

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
  const shippable = SHIPPABLE.has(order.status);
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
      {!shippable && !shipped && <p>Only a fully paid order can be shipped.</p>}
    </>
  );
}

/** The payer a refund for `exception` goes to by default: the latest extra payment's, else the first. */
function defaultPayer(order: SellerOrderDetail, exception: SellerException): SellerPayer | undefined {
  if (exception === 'extra_payment') {
    const extra = [...order.payments].reverse().find((p) => p.role === 'extra');
    const byExtra = order.payers.find((p) => extra && p.payments.includes(extra.signature));
    if (byExtra) return byExtra;
  }
  return order.payers[0];
}

function MoneyBack(props: {
  order: SellerOrderDetail;
  open: SellerException[];
  config: ConfigState;
  act: Act;
  onRecorded: (o: SellerOrderDetail, message: string) => void;
  onFailed: (message: string) => void;
}) {
  const { order, open } = props;
  const owed = BigInt(order.owed.owedBaseUnits);
  const refunded = BigInt(order.owed.refundedBaseUnits);
  const refundable = open.filter((x) => REFUNDABLE.includes(x));
  if (order.payments.length === 0 || (owed === 0n && refunded === 0n && refundable.length === 0)) return null;
  return (
    <section className="seller-money-back" aria-label="Money back">
      <h3>Money back</h3>
      <dl className="seller-facts" data-testid="order-owed">
        <dt>Owed back</dt>
        <dd>{claimText(order.owed.owedBaseUnits)}</dd>
        <dt>Refunded</dt>
        <dd>{claimText(order.owed.refundedBaseUnits)}</dd>
        <dt>Still owed</dt>
        <dd>
          <strong>{claimText(order.owed.remainingBaseUnits)}</strong>
        </dd>
      </dl>
      <h4>Who paid</h4>
      {order.payersKnown ? (
        <ul className="seller-rows" data-testid="order-payers">
          {order.payers.map((p) => (
            <li key={p.tokenAccount}>
              <a href={p.explorerUrl} target="_blank" rel="noopener noreferrer" className="seller-address">
                {p.owner ?? p.tokenAccount}
              </a>{' '}
              paid {claimText(p.paidBaseUnits)}
            </li>
          ))}
        </ul>
      ) : (
        <p>The paying wallet could not be read from the network just now. Reload the order to try again.</p>
      )}
      {order.refunds.length > 0 && (
        <>
          <h4>Refunds sent</h4>
          <ul className="seller-rows" data-testid="order-refunds">
            {order.refunds.map((r) => (
              <li key={r.signature}>
                {claimText(r.amountBaseUnits)}, {when(r.at)} —{' '}
                <a href={r.transactionUrl} target="_blank" rel="noopener noreferrer">
                  view transaction {short(r.signature)}
                </a>
              </li>
            ))}
          </ul>
        </>
      )}
      {refundable.map((x) =>
        x === 'cancel_requested' && order.status !== 'cancelled' ? (
          <CancelForm key={x} order={order} act={props.act} />
        ) : (
          <RefundForm key={x} {...props} exception={x} />
        ),
      )}
    </section>
  );
}

/** The buyer asked to cancel a paid order: cancel it (pieces back on sale), then everything paid is owed back. */
function CancelForm({ order, act }: { order: SellerOrderDetail; act: Act }) {
  return (
    <div className="seller-refund" data-exception="cancel_requested">
      <h4>The buyer asked to cancel</h4>
      <p>
        Cancel the order to put its pieces back on sale; then refund everything the buyer paid (
        {claimText(order.owed.receivedBaseUnits)}) with your wallet. If it has already shipped or you decline,
        record why under “To look at” instead.
      </p>
      <button
        type="button"
        className="button"
        data-testid="cancel-order"
        onClick={() =>
          void act(
            () => sellerApi.cancel(order.orderId),
            'Order cancelled and its pieces are back on sale. Now refund what the buyer paid.',
          )
        }
      >
        Cancel order and refund
      </button>
    </div>
  );
}

function RefundForm(props: {
  order: SellerOrderDetail;
  exception: SellerException;
  config: ConfigState;
  act: Act;
  onRecorded: (o: SellerOrderDetail, message: string) => void;
  onFailed: (message: string) => void;
}) {
  const { order, exception } = props;
  const remaining = BigInt(order.owed.remainingBaseUnits);
  const refundable = BigInt(order.owed.refundableBaseUnits);
  // What is owed by default; an order that owes nothing by the rule (underpaid, paid late) may return what came.
  const most = remaining > 0n ? remaining : refundable;
  const [amount, setAmount] = useState(formatClaim(most));
  const [payerKey, setPayerKey] = useState(defaultPayer(order, exception)?.tokenAccount ?? '');
  const [sending, setSending] = useState<{ amount: bigint; payer: SellerPayer } | null>(null);
  const [refusal, setRefusal] = useState('');
  const [signature, setSignature] = useState('');
  useEffect(() => setAmount(formatClaim(most)), [most]);
  const payer = order.payers.find((p) => p.tokenAccount === payerKey);
  const config = props.config.status === 'known' ? props.config.config : undefined;

  const start = () => {
    setRefusal('');
    const base = parseClaimInput(amount);
    if (base === null || base <= 0n)
      return setRefusal('Type the amount to refund in $CLAIM, for example 5 or 2.5.');
    if (base > most)
      return setRefusal(
        `That is more than this order can refund: at most ${claimText(most)}${remaining > 0n ? ' (what is still owed)' : ' (what was received and not yet refunded)'}.`,
      );
    if (!payer) return setRefusal('Who paid is not known yet: reload the order to read it from the network.');
    setSending({ amount: base, payer });
  };

  return (
    <div className="seller-refund" data-exception={exception}>
      <h4>Refund for “{EXCEPTION_LABEL[exception]}”</h4>
      {most === 0n ? (
        <p>Nothing more can be refunded for this order.</p>
      ) : (
        <form
          className="seller-form"
          onSubmit={(e) => {
            e.preventDefault();
            start();
          }}
        >
          <label>
            Amount ($CLAIM, at most {formatClaim(most)})
            <input
              inputMode="decimal"
              autoComplete="off"
              value={amount}
              onChange={(e) => setAmount(e.target.value)}
              disabled={sending !== null}
            />
          </label>
          {order.payers.length > 1 && (
            <label>
              To
              <select value={payerKey} onChange={(e) => setPayerKey(e.target.value)}>
                {order.payers.map((p) => (
                  <option key={p.tokenAccount} value={p.tokenAccount}>
                    {short(p.owner ?? p.tokenAccount)} (paid {claimText(p.paidBaseUnits)})
                  </option>
                ))}
              </select>
            </label>
          )}
          {payer && order.payers.length === 1 && (
            <p className="seller-hint">
              To <span className="seller-address">{payer.owner ?? payer.tokenAccount}</span>, from your payout
              wallet, with the order number {order.orderNumber} in the memo.
            </p>
          )}
          <button type="submit" className="button" disabled={sending !== null || !config}>
            Refund with wallet
          </button>
        </form>
      )}
      {refusal && (
        <p className="error" role="alert">
          {refusal}
        </p>
      )}
      {sending && config && (
        <Suspense fallback={<p role="status">Loading the wallet…</p>}>
          <RefundWithWallet
            config={config}
            order={order}
            exception={exception}
            payer={sending.payer}
            amountBaseUnits={sending.amount}
            onRecorded={(o, m) => {
              setSending(null);
              props.onRecorded(o, m);
            }}
            onFailed={(m, sent) => {
              setSending(null);
              if (sent) setSignature(sent);
              props.onFailed(m);
            }}
          />
        </Suspense>
      )}
      <details>
        <summary>Refunded from another wallet or app? Record it by its signature</summary>
        <form
          className="seller-form"
          onSubmit={(e) => {
            e.preventDefault();
            void props.act(
              () => sellerApi.refund(order.orderId, exception, signature.trim()),
              'Refund checked on chain and recorded.',
            );
          }}
        >
          <label>
            Refund transaction signature for “{EXCEPTION_LABEL[exception]}”
            <input
              required
              spellCheck={false}
              autoComplete="off"
              value={signature}
              onChange={(e) => setSignature(e.target.value)}
            />
          </label>
          <button type="submit" className="button">
            Mark refunded
          </button>
        </form>
      </details>
    </div>
  );
}

function ResolveForm(props: { order: SellerOrderDetail; exception: SellerException; act: Act }) {
  const [note, setNote] = useState('');
  const { order, exception } = props;
  return (
    <form
      className="seller-form"
      onSubmit={(e) => {
        e.preventDefault();
        void props.act(() => sellerApi.resolve(order.orderId, exception, note), 'Recorded.');
      }}
    >
      <label>
        What you did about “{EXCEPTION_LABEL[exception]}”
        <input required value={note} onChange={(e) => setNote(e.target.value)} />
      </label>
      <button type="submit" className="button">
        Record action
      </button>
    </form>
  );
}

/** Shown only when printing (order-view.css): what goes in the parcel. */
function PackingSlip({ order }: { order: SellerOrderDetail }) {
  const [prices, setPrices] = useState(false);
  return (
    <>
      <label className="seller-slip-option">
        <input type="checkbox" checked={prices} onChange={(e) => setPrices(e.target.checked)} /> Prices on the
        packing slip
      </label>
      <section className="packing-slip" aria-label="Packing slip" data-testid="packing-slip">
        <h2>Packing slip</h2>
        <p>
          Order <strong>{order.orderNumber}</strong> · {when(order.createdAt)}
        </p>
        <h3>Ship to</h3>
        <address>
          {order.buyerName}
          <br />
          {order.shippingAddress}
        </address>
        <h3>Items</h3>
        <table>
          <thead>
            <tr>
              <th scope="col">Qty</th>
              <th scope="col">Item</th>
              {prices && <th scope="col">Price</th>}
            </tr>
          </thead>
          <tbody>
            {order.items.map((i, n) => (
              <tr key={n}>
                <td>{i.quantity}</td>
                <td>
                  {i.name}
                  {i.variantLabel ? ` (${i.variantLabel})` : ''}
                </td>
                {prices && <td>${formatCents(i.lineCents)}</td>}
              </tr>
            ))}
          </tbody>
        </table>
        {prices && <p>Total: ${formatCents(order.totalCents)}</p>}
      </section>
    </>
  );
}
