/**
 * The signed-in seller's console: the sales summary, the orders in queues (To ship — the landing view —,
 * Exceptions, Shipped, All, each with its count), search and a date range, new and changed orders shown live
 * (polled, with an unseen count in a badge and the tab title), CSV of the view; one order's view (OrderView.tsx),
 * the stock page (StockPage.tsx) and the wallet's open sessions (SessionsPage.tsx). Rows are cards on a phone.
 */
import { useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { formatCents } from '../../core/money';
import {
  SELLER_QUEUES,
  type SellerMe,
  type SellerOrderList,
  type SellerQueue,
  type SellerSummary,
} from '../../core/seller-api';
import type { ConfigState } from '../api/config';
import { fullTitle } from '../lib/title';
import { sellerApi, type OrderFilter } from './api';
import { claim, EXCEPTION_LABEL, message, QUEUE_LABEL, statusWords, when } from './labels';
import { useLiveOrders } from './live';
import { OrderView } from './OrderView';
import { SessionsPage } from './SessionsPage';
import { StockPage } from './StockPage';
import { WebhooksPage } from './WebhooksPage';
import { SummaryCards } from './SummaryCards';
import './seller-list.css';

/** The browser's time zone: dates typed in the console and the summary's days are the vendor's own. */
const TIME_ZONE = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
const SUMMARY_EVERY_MS = 30_000;

export function SellerConsole(props: { me: SellerMe; config: ConfigState; onSignOut: () => void }) {
  const { me } = props;
  const [filter, setFilter] = useState<OrderFilter>({ queue: 'to_ship', q: '', page: 1, tz: TIME_ZONE });
  const [search, setSearch] = useState('');
  const [from, setFrom] = useState('');
  const [to, setTo] = useState('');
  const [list, setList] = useState<SellerOrderList | null>(null);
  const [summary, setSummary] = useState<SellerSummary | null>(null);
  const [error, setError] = useState('');
  const [openId, setOpenId] = useState<string | null>(null);
  const [tab, setTab] = useState<'orders' | 'stock' | 'webhooks' | 'sessions'>('orders');
  const live = useLiveOrders(openId);
  const unseen = live.unseen.size;

  const load = useCallback(async () => {
    try {
      setList(await sellerApi.orders(filter));
      setError('');
    } catch (err) {
      setError(message(err));
    }
  }, [filter]);
  useEffect(() => {
    void load();
  }, [load, live.version]);
  // The summary reads 30 days of orders: on opening, then at most every 30 s while orders keep changing, and at
  // once after the vendor acted on an order or when the tabs' count of open exceptions no longer matches it.
  const summaryAt = useRef(0);
  const loadSummary = useCallback(() => {
    summaryAt.current = Date.now();
    sellerApi.summary(TIME_ZONE).then(setSummary, () => undefined);
  }, []);
  useEffect(() => {
    const wait = Math.max(0, summaryAt.current + SUMMARY_EVERY_MS - Date.now());
    const timer = setTimeout(loadSummary, wait);
    return () => clearTimeout(timer);
  }, [live.version, loadSummary]);
  const unfiltered = !filter.q && !filter.from && !filter.to;
  const tabExceptions = list && unfiltered ? list.counts.exceptions : undefined;
  useEffect(() => {
    if (tabExceptions !== undefined && summary && summary.openExceptions !== tabExceptions) loadSummary();
    // Only a new count asks again: a summary that still differs (an order changed in between) waits for the next.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [tabExceptions, loadSummary]);

  // The tab title counts what the vendor has not seen: "(2) Orders".
  useEffect(() => {
    document.title = fullTitle(unseen > 0 ? `(${unseen}) Orders` : 'Seller console');
  }, [unseen]);

  const open = (id: string) => {
    live.markSeen([id]);
    setOpenId(id);
  };
  const pages = list ? Math.max(1, Math.ceil(list.total / list.pageSize)) : 1;
  const onSearch = (e: FormEvent) => {
    e.preventDefault();
    setFilter((f) => ({ ...f, q: search, from, to, page: 1 }));
  };
  const clear = () => {
    setSearch('');
    setFrom('');
    setTo('');
    setFilter((f) => ({ ...f, q: '', from: '', to: '', page: 1 }));
  };
  const queue = filter.queue ?? 'all';

  return (
    <section className="seller-page seller-console">
      <header className="seller-head">
        <h1>Seller console</h1>
        <p>
          Signed in as <strong>{me.vendors.map((v) => v.name).join(', ')}</strong>{' '}
          <code className="address">{me.address}</code>{' '}
          <button type="button" className="button" onClick={props.onSignOut}>
            Sign out
          </button>
        </p>
      </header>
      <nav className="seller-tabs" aria-label="Console">
        <button
          type="button"
          className="button"
          aria-pressed={tab === 'orders'}
          onClick={() => {
            setTab('orders');
            void load();
          }}
        >
          Orders
          {unseen > 0 && (
            <span className="seller-unseen" data-testid="unseen-badge">
              {' '}
              {unseen} new
            </span>
          )}
        </button>{' '}
        <button
          type="button"
          className="button"
          aria-pressed={tab === 'stock'}
          onClick={() => setTab('stock')}
        >
          Stock
        </button>{' '}
        <button
          type="button"
          className="button"
          aria-pressed={tab === 'webhooks'}
          onClick={() => setTab('webhooks')}
        >
          Webhooks
        </button>{' '}
        <button
          type="button"
          className="button"
          aria-pressed={tab === 'sessions'}
          onClick={() => setTab('sessions')}
        >
          Sessions
        </button>
      </nav>

      {tab === 'sessions' ? (
        <SessionsPage onSignedOut={props.onSignOut} />
      ) : tab === 'webhooks' ? (
        <WebhooksPage me={me} />
      ) : tab === 'stock' ? (
        <StockPage />
      ) : openId ? (
        <OrderView
          orderId={openId}
          config={props.config}
          onBack={() => {
            live.markSeen([openId]);
            setOpenId(null);
            void load();
            loadSummary();
          }}
        />
      ) : (
        <>
          {summary && (
            <SummaryCards
              summary={summary}
              onShowExceptions={() => {
                // The figure counts every order, so the tab it opens has no search and no dates either.
                setSearch('');
                setFrom('');
                setTo('');
                setFilter((f) => ({ ...f, queue: 'exceptions', q: '', from: '', to: '', page: 1 }));
              }}
              onShowOrders={(fromDate) => {
                setSearch('');
                setFrom(fromDate);
                setTo('');
                setFilter((f) => ({ ...f, queue: 'all', q: '', from: fromDate, to: '', page: 1 }));
              }}
            />
          )}
          <nav className="seller-queues" aria-label="Queues">
            {SELLER_QUEUES.map((q: SellerQueue) => (
              <button
                key={q}
                type="button"
                className="button secondary"
                aria-pressed={queue === q}
                data-queue={q}
                onClick={() => setFilter((f) => ({ ...f, queue: q, page: 1 }))}
              >
                {QUEUE_LABEL[q]} <span className="seller-count">{list ? list.counts[q] : '…'}</span>
              </button>
            ))}
          </nav>
          <form className="seller-filter" onSubmit={onSearch} role="search">
            <label className="seller-search">
              Search
              <input
                type="search"
                value={search}
                placeholder="Buyer, e-mail, order number or product"
                onChange={(e) => setSearch(e.target.value)}
              />
            </label>
            <label>
              From
              <input
                type="date"
                value={from}
                max={to || undefined}
                onChange={(e) => setFrom(e.target.value)}
              />
            </label>
            <label>
              To
              <input type="date" value={to} min={from || undefined} onChange={(e) => setTo(e.target.value)} />
            </label>
            <p className="seller-note">Dates are days in {TIME_ZONE} time, both included.</p>
            <div className="seller-filter-actions">
              <button type="submit" className="button">
                Search
              </button>
              <button type="button" className="button secondary" onClick={clear}>
                Clear
              </button>
              <a className="button secondary" href={sellerApi.csvUrl(filter)} download="orders.csv">
                Export CSV
              </a>
            </div>
          </form>
          {unseen > 0 && (
            <p className="seller-unseen-bar" role="status">
              {unseen} order{unseen === 1 ? '' : 's'} new or changed since you last looked.{' '}
              <button type="button" className="button small" onClick={() => live.markSeen(live.unseen)}>
                Mark as seen
              </button>
            </p>
          )}
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
          {list && (
            <>
              <p role="status">
                {list.total} order{list.total === 1 ? '' : 's'} in {QUEUE_LABEL[queue]}
              </p>
              <table className="seller-orders">
                <thead>
                  <tr>
                    <th scope="col">Order</th>
                    <th scope="col">Placed</th>
                    <th scope="col">Buyer</th>
                    <th scope="col">Product</th>
                    <th scope="col">Total</th>
                    <th scope="col">Status</th>
                  </tr>
                </thead>
                <tbody>
                  {list.orders.map((o) => {
                    const isNew = live.unseen.has(o.orderId);
                    return (
                      <tr
                        key={o.orderId}
                        data-order={o.orderId}
                        className={isNew ? 'seller-row unseen' : 'seller-row'}
                      >
                        <td data-label="Order">
                          <div>
                            {/* The whole row is this button's target (CSS stretches it over the row). */}
                            <button type="button" className="seller-row-open" onClick={() => open(o.orderId)}>
                              <span className="visually-hidden">Open order </span>#{o.orderNumber}
                            </button>
                            {isNew && <span className="badge seller-new">New</span>}
                          </div>
                        </td>
                        <td data-label="Placed">
                          <div>{when(o.createdAt)}</div>
                        </td>
                        <td data-label="Buyer">
                          <div>
                            {o.buyerName}
                            {o.buyerEmail && (
                              <>
                                <br />
                                <small>{o.buyerEmail}</small>
                              </>
                            )}
                          </div>
                        </td>
                        <td data-label="Product">
                          <div>{o.product}</div>
                        </td>
                        <td data-label="Total">
                          <div>
                            <span className="seller-amount">${formatCents(o.totalCents)}</span>
                            {o.amountBaseUnits !== null && (
                              <>
                                <br />
                                <small className="seller-amount">{claim(o.amountBaseUnits)} $CLAIM</small>
                              </>
                            )}
                          </div>
                        </td>
                        <td data-label="Status">
                          <div>
                            {statusWords(o)}
                            {o.exceptions
                              .filter((x) => !o.resolved.includes(x))
                              .map((x) => (
                                <span key={x} className="badge">
                                  {EXCEPTION_LABEL[x]}
                                </span>
                              ))}
                          </div>
                        </td>
                      </tr>
                    );
                  })}
                </tbody>
              </table>
              {list.orders.length === 0 && (
                <p className="seller-empty">{queue === 'to_ship' ? 'Nothing to ship.' : 'No orders here.'}</p>
              )}
              <nav className="seller-pages" aria-label="Pages">
                <button
                  type="button"
                  className="button"
                  disabled={(filter.page ?? 1) <= 1}
                  onClick={() => setFilter((f) => ({ ...f, page: (f.page ?? 1) - 1 }))}
                >
                  Previous
                </button>{' '}
                Page {list.page} of {pages}{' '}
                <button
                  type="button"
                  className="button"
                  disabled={(filter.page ?? 1) >= pages}
                  onClick={() => setFilter((f) => ({ ...f, page: (f.page ?? 1) + 1 }))}
                >
                  Next
                </button>
              </nav>
            </>
          )}
        </>
      )}
    </section>
  );
}
