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
  reserved = false,
}: {
  product: Product;
  eager: boolean;
  soldOut: boolean;
  /** Nothing available, but held by unpaid orders (it may come back): "Reserved", not "Sold Out". */
  reserved?: boolean;
}) {
  // The price the buyer pays, next to the retail price when there is one (glass pieces), on phones too.
  const info = (
    <span className="tile-info">
      <span className="tile-name">{product.name}</span>
      <span className="tile-price">
        {product.retailCents !== undefined && product.retailCents !== product.saleCents && (
          <>
            <span className="visually-hidden">Retail price </span>
            <s className="tile-retail">{formatUsd(product.retailCents)}</s>{' '}
          </>
        )}
        <span className="visually-hidden">Price </span>
        <span className="tile-sale">{formatUsd(product.saleCents)}</span>
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
        <span className="badge sold-out-badge">{reserved ? 'Reserved' : 'Sold Out'}</span>
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
