/**
 * The console's sales summary: today, 7 days, 30 days (GET /api/seller/summary), one card each. Folded on a
 * phone (the queue is the landing view there), open on wider screens.
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

export function SummaryCards(props: { summary: SellerSummary }) {
  const [open] = useState(wide);
  const today = props.summary.periods.find((p) => p.period === 'today');
  return (
    <details className="seller-summary" open={open}>
      <summary>
        Sales summary
        {today && (
          <span className="seller-note-inline">
            {' '}
            · today {plural(today.orders, 'order')}, {claim(today.receivedBaseUnits)} $CLAIM
          </span>
        )}
      </summary>
      <div className="seller-cards">
        {props.summary.periods.map((p) => (
          <article key={p.period} className="seller-card" data-period={p.period}>
            <h2>{TITLE[p.period]}</h2>
            <dl>
              <dt>Orders</dt>
              <dd data-testid="summary-orders">{p.orders}</dd>
              <dt>$CLAIM received</dt>
              <dd>{claim(p.receivedBaseUnits)}</dd>
              <dt>USD at each payment</dt>
              <dd>${formatCents(p.receivedUsdCents)}</dd>
              {p.paymentsWithoutUsd > 0 && (
                <dd className="seller-card-note">
                  {plural(p.paymentsWithoutUsd, 'payment')} without a known USD value, not included
                </dd>
              )}
              <dt>Refunds</dt>
              <dd>{p.refunds}</dd>
              {p.refunds > 0 && (
                <>
                  <dt>$CLAIM refunded</dt>
                  <dd>{claim(p.refundedBaseUnits)}</dd>
                </>
              )}
              <dt>Open exceptions</dt>
              <dd>{p.openExceptions}</dd>
            </dl>
          </article>
        ))}
        <p className="seller-note">Days start at midnight, {props.summary.timeZone} time.</p>
      </div>
    </details>
  );
}
