import type { Vendor } from '../../core/catalog';
import { useStock } from '../api/stock';
import { gridOf } from '../catalog';
import { isSoldOut } from '../../core/stock';
import { ProductTile } from '../components/ProductTile';
import { VendorHeader } from '../components/VendorHeader';
import { usePageTitle } from '../lib/title';

export default function VendorPage({ vendor }: { vendor: Vendor }) {
  usePageTitle(vendor.name);
  const grid = gridOf(vendor.id);
  const stock = useStock();
  return (
    <div className="page">
      <VendorHeader vendor={vendor} full />
      <section aria-labelledby="catalogue-title">
        <h2 id="catalogue-title">Products</h2>
        <ul className="product-grid">
          {grid.map((p, i) => (
            <li key={p.id}>
              <ProductTile
                product={p}
                eager={i < 4}
                soldOut={stock.status === 'known' && isSoldOut(p, stock.available)}
                reserved={
                  stock.status === 'known' &&
                  (
                    p.variants?.map((v) => ({ productId: p.id, variantId: v.id })) ?? [{ productId: p.id }]
                  ).some((k) => (stock.line(k)?.held ?? 0) > 0)
                }
              />
            </li>
          ))}
        </ul>
      </section>
    </div>
  );
}
