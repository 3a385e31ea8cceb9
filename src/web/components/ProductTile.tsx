import { Link } from 'react-router-dom';
import type { Product } from '../../core/catalog';
import { productPath } from '../../core/routes';
import { formatUsd } from '../lib/claim-amount';

/**
 * A catalogue tile. Name and (retail) price show on hover and on keyboard focus. Sold-out tiles (no stock, from
 * GET /api/stock) are shown and marked, but they are not links and take no focus.
 */
export function ProductTile({
  product,
  eager,
  soldOut,
}: {
  product: Product;
  eager: boolean;
  soldOut: boolean;
}) {
  const price = product.retailCents ?? product.saleCents;
  const info = (
    <span className="tile-info">
      <span className="tile-name">{product.name}</span>
      <span className="tile-price">
        <span className="visually-hidden">{product.retailCents ? 'Retail price ' : 'Price '}</span>
        {formatUsd(price)}
      </span>
    </span>
  );
  const img = (
    <img
      src={product.image}
      alt={soldOut ? product.imageAlt : ''}
      width={600}
      height={600}
      loading={eager ? 'eager' : 'lazy'}
      decoding="async"
    />
  );
  if (soldOut) {
    return (
      <div className="tile sold-out" data-product={product.id}>
        {img}
        <span className="badge sold-out-badge">Sold Out</span>
        {info}
      </div>
    );
  }
  return (
    <Link className="tile" to={productPath(product)} data-product={product.id}>
      {img}
      {info}
    </Link>
  );
}
