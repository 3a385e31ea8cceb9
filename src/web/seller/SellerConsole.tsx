/**
 * The signed-in seller's console: orders (newest first, status filter incl. exceptions, search, pages, CSV of
 * the filter), one order's view (OrderView.tsx), the stock page (StockPage.tsx) and the wallet's open sessions
 * (SessionsPage.tsx).
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { formatCents } from '../../core/money';
import { ORDER_STATUSES } from '../../core/order-status';
import type { SellerMe, SellerOrderList, SellerStatusFilter } from '../../core/seller-api';
import type { ConfigState } from '../api/config';
import { sellerApi, type OrderFilter } from './api';
import { EXCEPTION_LABEL, message, STATUS_LABEL, when } from './labels';
import { OrderView } from './OrderView';
import { SessionsPage } from './SessionsPage';
import { StockPage } from './StockPage';

export function SellerConsole(props: { me: SellerMe; config: ConfigState; onSignOut: () => void }) {
  const { me } = props;
  const [filter, setFilter] = useState<OrderFilter>({ status: '', q: '', page: 1 });
  const [search, setSearch] = useState('');
  const [list, setList] = useState<SellerOrderList | null>(null);
  const [error, setError] = useState('');
  const [openId, setOpenId] = useState<string | null>(null);
  const [tab, setTab] = useState<'orders' | 'stock' | 'sessions'>('orders');

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
  }, [load]);

  const pages = list ? Math.max(1, Math.ceil(list.total / list.pageSize)) : 1;
  const onSearch = (e: FormEvent) => {
    e.preventDefault();
    setFilter((f) => ({ ...f, q: search, page: 1 }));
  };

  return (
    <section className="seller-page">
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
          aria-pressed={tab === 'sessions'}
          onClick={() => setTab('sessions')}
        >
          Sessions
        </button>
      </nav>

      {tab === 'sessions' ? (
        <SessionsPage onSignedOut={props.onSignOut} />
      ) : tab === 'stock' ? (
        <StockPage />
      ) : openId ? (
        <OrderView
          orderId={openId}
          config={props.config}
          onBack={() => {
            setOpenId(null);
            void load();
          }}
        />
      ) : (
        <>
          <form className="seller-filter" onSubmit={onSearch} role="search">
            <label>
              Status{' '}
              <select
                value={filter.status ?? ''}
                onChange={(e) =>
                  setFilter((f) => ({ ...f, status: e.target.value as SellerStatusFilter | '', page: 1 }))
                }
              >
                <option value="">All orders</option>
                <option value="exceptions">Exceptions</option>
                {ORDER_STATUSES.map((s) => (
                  <option key={s} value={s}>
                    {STATUS_LABEL[s]}
                  </option>
                ))}
              </select>
            </label>{' '}
            <label>
              Search{' '}
              <input
                type="search"
                value={search}
                placeholder="Buyer name, e-mail or order number"
                onChange={(e) => setSearch(e.target.value)}
              />
            </label>{' '}
            <button type="submit" className="button">
              Search
            </button>{' '}
            <a className="button" href={sellerApi.csvUrl(filter)} download="orders.csv">
              Export CSV
            </a>
          </form>
          {error && (
            <p className="error" role="alert">
              {error}
            </p>
          )}
          {list && (
            <>
              <p role="status">
                {list.total} order{list.total === 1 ? '' : 's'}
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
                  {list.orders.map((o) => (
                    <tr key={o.orderId} data-order={o.orderId}>
                      <td>
                        <button type="button" className="link" onClick={() => setOpenId(o.orderId)}>
                          {o.orderId.slice(0, 8)}
                        </button>
                      </td>
                      <td>{when(o.createdAt)}</td>
                      <td>
                        {o.buyerName}
                        <br />
                        <small>{o.buyerEmail}</small>
                      </td>
                      <td>{o.product}</td>
                      <td>${formatCents(o.totalCents)}</td>
                      <td>
                        {STATUS_LABEL[o.status]}
                        {o.exceptions
                          .filter((x) => !o.resolved.includes(x))
                          .map((x) => (
                            <span key={x} className="badge">
                              {EXCEPTION_LABEL[x]}
                            </span>
                          ))}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
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
