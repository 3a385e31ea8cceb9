/** The printable packing slip (shown only in print, order-view.css): what goes in the parcel. */
import { useState } from 'react';
import { formatCents } from '../../core/money';
import type { SellerOrderDetail } from '../../core/seller-api';
import { when } from './labels';

export function PackingSlip({ order }: { order: SellerOrderDetail }) {
  const [prices, setPrices] = useState(false);
  return (
    <>
      <label className="seller-slip-option">
        <input type="checkbox" checked={prices} onChange={(e) => setPrices(e.target.checked)} /> Prices on the
        packing slip
      </label>
      <section className="packing-slip" aria-label="Packing slip" data-testid="packing-slip">
        <h2>Packing slip</h2>
        <p>
          Order <strong>{order.orderNumber}</strong> · {when(order.createdAt)}
        </p>
        <h3>Ship to</h3>
        <address>
          {order.buyerName}
          <br />
          {order.shippingAddress}
        </address>
        <h3>Items</h3>
        <table>
          <thead>
            <tr>
              <th scope="col">Qty</th>
              <th scope="col">Item</th>
              {prices && <th scope="col">Price</th>}
            </tr>
          </thead>
          <tbody>
            {order.items.map((i, n) => (
              <tr key={n}>
                <td>{i.quantity}</td>
                <td>
                  {i.name}
                  {i.variantLabel ? ` (${i.variantLabel})` : ''}
                </td>
                {prices && <td>${formatCents(i.lineCents)}</td>}
              </tr>
            ))}
          </tbody>
        </table>
        {prices && <p>Total: ${formatCents(order.totalCents)}</p>}
      </section>
    </>
  );
}
