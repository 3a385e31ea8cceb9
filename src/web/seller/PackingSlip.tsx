/**
 * The printable packing slip (shown only in print, order-view.css): what goes in the parcel — the shop's name and
 * return address, the order number and date, the buyer's name and address on its lines, the items (prices only
 * when asked).
 */
import { useState } from 'react';
import { formatCents } from '../../core/money';
import type { SellerOrderDetail } from '../../core/seller-api';
import { when } from './labels';

export function PackingSlip({ order }: { order: SellerOrderDetail }) {
  const [prices, setPrices] = useState(false);
  const slip = order.packingSlip;
  return (
    <>
      <label className="seller-slip-option">
        <input type="checkbox" checked={prices} onChange={(e) => setPrices(e.target.checked)} /> Prices on the
        packing slip
      </label>
      {slip.returnAddress.length === 0 && (
        <p className="seller-note" data-testid="no-return-address">
          The packing slip has no return address: the store&apos;s operator sets it
          (VENDOR_&lt;KEY&gt;_RETURN_ADDRESS).
        </p>
      )}
      <section className="packing-slip" aria-label="Packing slip" data-testid="packing-slip">
        <header className="packing-slip-head">
          <h2>{slip.shopName}</h2>
          {slip.returnAddress.length > 0 && (
            <address data-testid="slip-return-address">
              <span className="packing-slip-label">Return address</span>
              {slip.returnAddress.map((line, i) => (
                <span key={i} className="packing-slip-line">
                  {line}
                </span>
              ))}
            </address>
          )}
        </header>
        <p>
          Packing slip · order <strong>{order.orderNumber}</strong> · {when(order.createdAt)}
        </p>
        <h3>Ship to</h3>
        <address data-testid="slip-ship-to">
          {(slip.shipTo.length > 0 ? slip.shipTo : [order.buyerName]).map((line, i) => (
            <span key={i} className="packing-slip-line">
              {line}
            </span>
          ))}
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
