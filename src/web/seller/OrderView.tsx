/**
 * One order in the seller console: items, shipping, buyer e-mail, ledger with explorer links, status history,
 * e-mails with resend, Mark shipped with a tracking number, Mark delivered, exception actions.
 */
import { useEffect, useState } from 'react';
import { explorerTxUrl } from '../../core/explorer';
import { formatCents } from '../../core/money';
import { SHIPPABLE } from '../../core/order-status';
import type { SellerOrderDetail } from '../../core/seller-api';
import type { ConfigState } from '../api/config';
import { sellerApi } from './api';
import { claim, EXCEPTION_LABEL, message, STATUS_LABEL, when } from './labels';

export function OrderView(props: { orderId: string; config: ConfigState; onBack: () => void }) {
  const [order, setOrder] = useState<SellerOrderDetail | null>(null);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');
  const [tracking, setTracking] = useState('');
  const [carrier, setCarrier] = useState('');
  const [note, setNote] = useState('');
  const [refundSig, setRefundSig] = useState('');
  const config = props.config.status === 'known' ? props.config.config : undefined;

  useEffect(() => {
    sellerApi.order(props.orderId).then(setOrder, (err: unknown) => setError(message(err)));
  }, [props.orderId]);

  const act = async (fn: () => Promise<SellerOrderDetail>, done: string) => {
    setError('');
    setNotice('');
    try {
      setOrder(await fn());
      setNotice(done);
    } catch (err) {
      setError(message(err));
    }
  };

  if (!order)
    return (
      <div>
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

  const shippable = SHIPPABLE.has(order.status);
  const open = order.exceptions.filter((x) => !order.resolved.includes(x));
  return (
    <article className="seller-order" aria-label={`Order ${order.orderId}`}>
      <button type="button" className="button" onClick={props.onBack}>
        Back to orders
      </button>
      <h2>Order {order.orderId}</h2>
      <p>
        Status: <strong data-testid="order-status">{STATUS_LABEL[order.status]}</strong> · placed{' '}
        {when(order.createdAt)} · {order.paymentMethod === 'qr' ? 'QR payment' : 'wallet payment'}
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {notice && <p role="status">{notice}</p>}

      <h3>Items</h3>
      <ul>
        {order.items.map((i, n) => (
          <li key={n}>
            {i.quantity} × {i.name}
            {i.variantLabel ? ` (${i.variantLabel})` : ''}: ${formatCents(i.lineCents)}
          </li>
        ))}
      </ul>
      <p>
        Total ${formatCents(order.totalCents)} · {claim(order.amountBaseUnits)} $CLAIM quoted · received{' '}
        {claim(order.receivedBaseUnits)} $CLAIM
      </p>

      <h3>Ship to</h3>
      <address>
        {order.buyerName}
        <br />
        {order.shippingAddress}
        <br />
        <a href={`mailto:${order.buyerEmail}`}>{order.buyerEmail}</a>
      </address>

      <h3>Fulfilment</h3>
      {order.shipment && (
        <p>
          Shipped {when(order.shipment.at)}: tracking number <strong>{order.shipment.trackingNumber}</strong>
          {order.shipment.carrier ? ` (${order.shipment.carrier})` : ''}
        </p>
      )}
      {shippable && (
        <form
          className="seller-ship"
          onSubmit={(e) => {
            e.preventDefault();
            void act(
              () =>
                sellerApi.ship(order.orderId, {
                  trackingNumber: tracking,
                  ...(carrier.trim() ? { carrier } : {}),
                }),
              'Marked shipped; the buyer is being e-mailed the tracking number.',
            );
          }}
        >
          <label>
            Tracking number <input required value={tracking} onChange={(e) => setTracking(e.target.value)} />
          </label>{' '}
          <label>
            Carrier (optional) <input value={carrier} onChange={(e) => setCarrier(e.target.value)} />
          </label>{' '}
          <button type="submit" className="button">
            Mark shipped
          </button>
        </form>
      )}
      {order.status === 'shipped' && (
        <button
          type="button"
          className="button"
          onClick={() => void act(() => sellerApi.delivered(order.orderId), 'Marked delivered.')}
        >
          Mark delivered
        </button>
      )}
      {!shippable && !order.shipment && <p>Only a fully paid order can be shipped.</p>}

      {order.exceptions.length > 0 && (
        <>
          <h3>Exceptions</h3>
          <ul>
            {order.exceptions.map((x) => (
              <li key={x}>
                {EXCEPTION_LABEL[x]}
                {order.resolved.includes(x) ? ': resolved' : ''}
              </li>
            ))}
          </ul>
          {open.map((x) => (
            <form
              key={x}
              className="seller-resolve"
              onSubmit={(e) => {
                e.preventDefault();
                void act(() => sellerApi.resolve(order.orderId, x, note), 'Recorded.');
              }}
            >
              <label>
                What you did about “{EXCEPTION_LABEL[x]}”{' '}
                <input required value={note} onChange={(e) => setNote(e.target.value)} />
              </label>{' '}
              <button type="submit" className="button">
                Record action
              </button>
            </form>
          ))}
          {open.map((x) => (
            <form
              key={`refund-${x}`}
              className="seller-refund"
              onSubmit={(e) => {
                e.preventDefault();
                void act(
                  () => sellerApi.refund(order.orderId, x, refundSig.trim()),
                  'Refund checked on chain and recorded.',
                );
              }}
            >
              <label>
                Refund transaction signature for “{EXCEPTION_LABEL[x]}”{' '}
                <input
                  required
                  spellCheck={false}
                  autoComplete="off"
                  value={refundSig}
                  onChange={(e) => setRefundSig(e.target.value)}
                />
              </label>{' '}
              <button type="submit" className="button">
                Mark refunded
              </button>
            </form>
          ))}
        </>
      )}

      <h3>Payments</h3>
      {order.payments.length === 0 ? (
        <p>No payment recorded.</p>
      ) : (
        <table>
          <thead>
            <tr>
              <th scope="col">When</th>
              <th scope="col">Role</th>
              <th scope="col">Amount ($CLAIM)</th>
              <th scope="col">Transaction</th>
            </tr>
          </thead>
          <tbody>
            {order.payments.map((p) => (
              <tr key={p.signature}>
                <td>{when(p.at)}</td>
                <td>{p.role}</td>
                <td>{claim(p.receivedBaseUnits)}</td>
                <td>
                  <a href={explorerTxUrl(p.signature, config)} target="_blank" rel="noopener noreferrer">
                    {p.signature.slice(0, 12)}…
                  </a>{' '}
                  ({p.confirmation})
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}

      <h3>Status history</h3>
      <ol>
        {order.history.map((h, n) => (
          <li key={n}>
            {when(h.at)}: {STATUS_LABEL[h.status]} ({h.event})
          </li>
        ))}
      </ol>

      <h3>E-mails</h3>
      <table>
        <thead>
          <tr>
            <th scope="col">Message</th>
            <th scope="col">To</th>
            <th scope="col">State</th>
            <th scope="col">Action</th>
          </tr>
        </thead>
        <tbody>
          {order.emails.map((m) => (
            <tr key={m.id}>
              <td>
                {m.kind} ({m.recipient})
              </td>
              <td>{m.to}</td>
              <td>
                {m.state}
                {m.deliveredAt ? ` ${when(m.deliveredAt)}` : ''}
                {m.lastError ? `: ${m.lastError}` : ''}
              </td>
              <td>
                {m.state === 'failed' && (
                  <button
                    type="button"
                    className="button"
                    onClick={() => void act(() => sellerApi.resend(order.orderId, m.id), 'Queued again.')}
                  >
                    Resend
                  </button>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>

      {order.actions.length > 0 && (
        <>
          <h3>Actions</h3>
          <ol>
            {order.actions.map((a, n) => (
              <li key={n}>
                {when(a.at)}: {a.action}
                {Object.keys(a.detail).length
                  ? ` (${Object.entries(a.detail)
                      .map(([k, v]) => `${k}: ${v}`)
                      .join(', ')})`
                  : ''}
              </li>
            ))}
          </ol>
        </>
      )}
    </article>
  );
}
