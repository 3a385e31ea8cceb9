import { stalePriceNote, usePrice, usePriceHistory } from '../api/price';
import { Sparkline } from './Sparkline';

/** The live $CLAIM price (GET /api/price) with a 24 h sparkline (GET /api/price/history). */
export function PriceCard() {
  const price = usePrice();
  const history = usePriceHistory();
  const stale = stalePriceNote(price);
  return (
    <section className="card price-card" aria-labelledby="price-card-title">
      <h2 id="price-card-title">$CLAIM price</h2>
      <div role="status" aria-live="polite" className="price-card-value">
        {price.status === 'loading' && <p>Loading $CLAIM price...</p>}
        {price.status === 'known' && (
          <p>
            <strong className="big" data-testid="claim-price">
              ${price.priceUsd}
            </strong>{' '}
            <span className="muted">USD per $CLAIM</span>
          </p>
        )}
        {stale && (
          <p className="note" data-testid="price-stale">
            {stale}
          </p>
        )}
        {price.status === 'unavailable' && (
          <p className="error" data-testid="price-unavailable">
            {price.message ?? 'Failed to load $CLAIM price. Try again later.'}
          </p>
        )}
        {price.status === 'error' && <p className="error">Error loading price.</p>}
      </div>
      {history.status === 'known' && <Sparkline points={history.points} />}
    </section>
  );
}
