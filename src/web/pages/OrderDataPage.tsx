import { useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import type { OrderDataExport } from '../../core/api';
import { formatCents } from '../../core/money';
import { paths } from '../../core/routes';
import { getMyData, myDataUrl } from '../api/order-page';
import { formatClaim, groupThousands } from '../lib/claim-amount';
import { ApiRequestError, isAbort } from '../lib/call';
import { formatLocalDateTime } from '../lib/time';
import { usePageTitle } from '../lib/title';
import { actionWords, historyWords } from './order-data-words';

type State =
  | { status: 'loading' }
  | { status: 'known'; data: OrderDataExport }
  | { status: 'missing' }
  | { status: 'error' };

/** The shipping fields as a person reads them (the JSON keeps the field names). */
const FIELD_LABELS: Record<string, string> = {
  fullName: 'Name',
  email: 'E-mail',
  address1: 'Address',
  address2: 'Address line 2',
  city: 'City',
  stateProvince: 'State / province',
  usState: 'State',
  postalCode: 'Postal code',
  zip: 'ZIP code',
  country: 'Country',
};

/**
 * "Download my data" as a page a phone can read (/order/<token>/data): everything the shop keeps about the order
 * (the order, the details, every e-mail as sent, the history, the vendor's actions, how long it is kept), with
 * the same data as a JSON file beside it. The page token is the only key, as for the order page.
 */
export default function OrderDataPage({ token }: { token: string }) {
  usePageTitle('Your data');
  const [state, setState] = useState<State>({ status: 'loading' });
  useEffect(() => {
    const controller = new AbortController();
    getMyData(token, controller.signal).then(
      (data) => setState({ status: 'known', data }),
      (err: unknown) => {
        if (controller.signal.aborted || isAbort(err)) return;
        setState({ status: err instanceof ApiRequestError && err.status === 404 ? 'missing' : 'error' });
      },
    );
    return () => controller.abort();
  }, [token]);

  if (state.status === 'loading') return <p className="page narrow">Loading your data…</p>;
  if (state.status === 'missing')
    return (
      <section className="page narrow not-found" data-testid="order-missing">
        <h1>Order not found</h1>
        <p>This order link is not valid. Please use the link from your order e-mail.</p>
      </section>
    );
  if (state.status === 'error')
    return <p className="page narrow error">Your data could not be loaded. Please try again in a moment.</p>;

  const d = state.data;
  const o = d.order;
  return (
    <article className="page narrow my-data" data-testid="my-data">
      <h1>Your data for order {o.number}</h1>
      <p>
        Everything the shop keeps about this order, as of {formatLocalDateTime(d.exportedAt)}. The same data
        as a file:
      </p>
      <div className="actions">
        <a className="button" href={myDataUrl(token)} download data-testid="download-json">
          Download as a JSON file
        </a>
        <Link className="button secondary" to={paths.order(token)}>
          Back to your order
        </Link>
      </div>

      <h2>Order</h2>
      <dl className="data-list">
        <dt>Order number</dt>
        <dd>{o.number}</dd>
        <dt>Shop</dt>
        <dd>{o.vendorName}</dd>
        <dt>Placed</dt>
        <dd>{formatLocalDateTime(o.createdAt)}</dd>
        <dt>Items</dt>
        <dd>
          {o.items.map((i, n) => (
            <div key={n}>
              {i.quantity} × {i.name}
              {i.variantLabel ? ` (${i.variantLabel})` : ''}: ${formatCents(i.lineCents)}
            </div>
          ))}
        </dd>
        <dt>Total</dt>
        <dd>
          ${formatCents(o.totalCents)}
          {o.amount !== null ? ` = ${groupThousands(o.amount)} $CLAIM` : ''}
        </dd>
        <dt>Received</dt>
        <dd>{formatClaim(BigInt(o.receivedBaseUnits))} $CLAIM</dd>
        <dt>Referred by</dt>
        <dd>{o.referrer ?? 'nobody'}</dd>
      </dl>

      <h2>Your details</h2>
      {d.details.state === 'kept' ? (
        <dl className="data-list" data-testid="my-data-details">
          {Object.entries(d.details.shipping)
            .filter(([k, v]) => k !== 'kind' && v !== '')
            .map(([k, v]) => (
              <div key={k}>
                <dt>{FIELD_LABELS[k] ?? k}</dt>
                <dd>{v}</dd>
              </div>
            ))}
        </dl>
      ) : (
        <p>
          {d.details.state === 'none' && 'None: no name or address was given for this order.'}
          {d.details.state === 'erased' &&
            `Erased${d.details.erasedAt ? ` on ${formatLocalDateTime(d.details.erasedAt)}` : ''}: the shop no longer keeps your name, e-mail or address.`}
          {d.details.state === 'unreadable' && 'Unreadable: please contact the vendor.'}
        </p>
      )}

      <h2>Payments and refunds</h2>
      {o.payments.length === 0 && o.refunds.length === 0 ? (
        <p>None.</p>
      ) : (
        <ul>
          {o.payments.map((p) => (
            <li key={p.signature}>
              Payment of {formatClaim(BigInt(p.receivedBaseUnits))} $CLAIM, {formatLocalDateTime(p.at)},
              transaction <span className="mono break">{p.signature}</span>
            </li>
          ))}
          {o.refunds.map((r) => (
            <li key={r.signature}>
              Refund of {formatClaim(BigInt(r.amountBaseUnits))} $CLAIM, {formatLocalDateTime(r.at)},
              transaction <span className="mono break">{r.signature}</span>
            </li>
          ))}
        </ul>
      )}

      <h2>E-mails</h2>
      {d.emails.length === 0 ? (
        <p>None.</p>
      ) : (
        d.emails.map((m, n) => (
          <section key={n} className="card data-mail">
            <h3>{m.message?.subject ?? (m.erased ? '(erased)' : '(unreadable)')}</h3>
            <p className="muted small">
              To {m.recipient === 'buyer' ? (m.to ?? 'you') : 'the vendor'}, {m.state}, queued{' '}
              {formatLocalDateTime(m.createdAt)}
              {m.deliveredAt ? `, delivered ${formatLocalDateTime(m.deliveredAt)}` : ''}
            </p>
            {m.message && <p className="mail-text">{m.message.text}</p>}
          </section>
        ))
      )}

      <h2>History</h2>
      <ul>
        {o.history.map((h, n) => (
          <li key={n}>
            {formatLocalDateTime(h.at)}: {historyWords(h)}
          </li>
        ))}
      </ul>

      {d.sellerActions.length > 0 && (
        <>
          <h2>The vendor&apos;s actions</h2>
          <ul>
            {d.sellerActions.map((a, n) => (
              <li key={n}>
                {formatLocalDateTime(a.at)}: {actionWords(a)}
              </li>
            ))}
          </ul>
        </>
      )}

      <h2>How long it is kept</h2>
      <p>{d.retention.rule}</p>
    </article>
  );
}
