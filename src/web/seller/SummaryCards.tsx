/**
 * The console's sales summary: what stands open now (orders with an open exception — the Exceptions tab's count —
 * and what is still owed back to buyers), then today, 7 days, 30 days (GET /api/seller/summary), one card each:
 * orders placed (the All tab's count for the period's days), $CLAIM received, refunded, net. Each count that names
 * a tab opens it ("Show them"), so the figure and the tab can be compared. Folded on a phone (the queue is the
 * landing view there), open on wider screens.
 */
import { useState } from 'react';
import { formatCents } from '../../core/money';
import type { SellerSummary, SellerSummaryPeriod } from '../../core/seller-api';
import { claim } from './labels';

const TITLE: Record<SellerSummaryPeriod['period'], string> = {
  today: 'Today',
  '7d': 'Last 7 days',
  '30d': 'Last 30 days',
};

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;
const wide = () => typeof window === 'undefined' || window.matchMedia('(min-width: 701px)').matches;
/** A signed amount of base units: "−1,500.000000" when the period refunded more than it received. */
const signed = (base: string) => (base.startsWith('-') ? `−${claim(base.slice(1))}` : claim(base));

export function SummaryCards(props: {
  summary: SellerSummary;
  onShowExceptions: () => void;
  /** Opens the All tab from the period's first day (`YYYY-MM-DD`, the vendor's zone) to today. */
  onShowOrders: (fromDate: string) => void;
}) {
  const [open] = useState(wide);
  const s = props.summary;
  const today = s.periods.find((p) => p.period === 'today');
  return (
    <details className="seller-summary" open={open}>
      <summary>
        Sales summary
        {today && (
          <span className="seller-note-inline">
            {' '}
            · today {plural(today.orders, 'order')}, {signed(today.netBaseUnits)} $CLAIM net
          </span>
        )}
        {s.openExceptions > 0 && (
          <span className="seller-note-inline"> · {plural(s.openExceptions, 'open exception')}</span>
        )}
      </summary>
      <dl className="seller-now" data-testid="summary-now">
        <div>
          <dt>Open exceptions</dt>
          <dd data-testid="summary-open-exceptions">
            {s.openExceptions}{' '}
            {s.openExceptions > 0 && (
              <button type="button" className="button secondary" onClick={props.onShowExceptions}>
                Show them
              </button>
            )}
          </dd>
        </div>
        <div>
          <dt>Still to refund to buyers</dt>
          <dd data-testid="summary-owed-back">
            {s.owedBackOrders === 0
              ? 'nothing'
              : `${claim(s.owedBackBaseUnits)} $CLAIM (${plural(s.owedBackOrders, 'order')})`}
          </dd>
        </div>
      </dl>
      <div className="seller-cards">
        {s.periods.map((p) => (
          <article key={p.period} className="seller-card" data-period={p.period}>
            <h2>{TITLE[p.period]}</h2>
            <dl>
              <dt>Orders placed</dt>
              <dd data-testid="summary-orders">{p.orders}</dd>
              {p.orders > 0 && (
                <dd className="seller-card-action">
                  <button
                    type="button"
                    className="button secondary"
                    onClick={() => props.onShowOrders(p.fromDate)}
                  >
                    Show them
                    <span className="visually-hidden">
                      {' '}
                      (orders placed{' '}
                      {p.period === 'today' ? 'today' : `in the ${TITLE[p.period].toLowerCase()}`})
                    </span>
                  </button>
                </dd>
              )}
              <dt>$CLAIM received</dt>
              <dd>{claim(p.receivedBaseUnits)}</dd>
              <dt>Worth in USD when received</dt>
              <dd>${formatCents(p.receivedUsdCents)}</dd>
              {p.paymentsWithoutUsd > 0 && (
                <dd className="seller-card-note">
                  {plural(p.paymentsWithoutUsd, 'payment')} without a known USD value, not included
                </dd>
              )}
              <dt>Refunded</dt>
              <dd className="seller-wrap">
                {p.refunds === 0
                  ? 'nothing'
                  : `${claim(p.refundedBaseUnits)} $CLAIM (${plural(p.refunds, 'refund')})`}
              </dd>
              <dt>$CLAIM received less refunds</dt>
              <dd data-testid="summary-net">{signed(p.netBaseUnits)}</dd>
            </dl>
          </article>
        ))}
        <p className="seller-note">
          Orders placed counts every order, whatever became of it (cancelled and refunded ones too), as the
          All tab lists them. Received counts every payment, overpayments and extra payments included; what is
          still to refund is part of it. Days start at midnight, {s.timeZone} time.
        </p>
      </div>
    </details>
  );
}
