/**
 * The seller console's stock page: each of the vendor's products / variants with its units in stock, reserved
 * (held by open orders), available and sold, a "Set stock" field per line, "Release" for what open orders hold
 * (docs/decisions/holds.md), and the recent changes with who made them and when. The store refuses another
 * vendor's line and a count below what open orders hold (release them first).
 */
import { useCallback, useEffect, useState, type FormEvent } from 'react';
import type { SellerDrop, SellerStock, SellerStockChange, SellerStockLine } from '../../core/seller-api';
import { ApiRequestError } from '../lib/call';
import { sellerApi } from './api';
import { formatLocalDateTime } from '../lib/time';
import { orderNumberOf } from '../../core/order-number';
import './stock-page.css';

const when = (iso: string) => formatLocalDateTime(iso);
const lineKey = (l: { productId: string; variantId?: string }) => `${l.productId}:${l.variantId ?? ''}`;
const signed = (n: number) => (n > 0 ? `+${n}` : String(n));

/** Who made a change, in plain words: the store records `catalogue`, `order`, `payment`, `expiry`, `requote`,
 * `cancelled`, `cli:<user>` and `seller:<payout wallet>` (the signed-in vendor). */
function actorLabel(actor: string): string {
  if (actor.startsWith('seller:')) return 'you (payout wallet)';
  if (actor.startsWith('cli:')) return `a shell command (${actor.slice(4)})`;
  const words: Record<string, string> = {
    catalogue: 'the catalogue',
    order: 'a buyer',
    payment: 'a payment',
    expiry: 'a hold running out',
    requote: 'a new quote',
    cancelled: 'cancelling the order',
  };
  return words[actor] ?? actor;
}

const KIND_LABEL: Record<SellerStockChange['kind'], string> = {
  seed: 'Initial stock',
  set: 'Stock set',
  reserve: 'Reserved by an order',
  release: 'Reservation released',
  sale: 'Sold',
  oversold: 'Oversold',
  restock: 'Back on sale (order cancelled)',
};

export function StockPage() {
  const [stock, setStock] = useState<SellerStock | null>(null);
  const [error, setError] = useState('');
  const [notice, setNotice] = useState('');

  const load = useCallback(async () => {
    try {
      setStock(await sellerApi.stock());
      setError('');
    } catch (err) {
      setError(err instanceof ApiRequestError ? err.message : 'Something went wrong.');
    }
  }, []);
  useEffect(() => {
    void load();
  }, [load]);
  // A drop is live: its state is read again every 5 s while the page is open.
  const hasDrops = Boolean(stock?.drops?.length);
  useEffect(() => {
    if (!hasDrops) return;
    const t = window.setInterval(() => void load(), 5_000);
    return () => window.clearInterval(t);
  }, [hasDrops, load]);

  const names = new Map(
    (stock?.lines ?? []).map((l) => [
      lineKey(l),
      l.variantLabel ? `${l.productName} (${l.variantLabel})` : l.productName,
    ]),
  );

  return (
    <section className="seller-stock" aria-label="Stock">
      <h2>Stock</h2>
      <p>
        “In stock” counts the units not yet sold, reserved ones included. A reservation is held for a few
        minutes while its buyer pays; “Release” puts reserved units back on sale at once (their orders stay
        open: a payment that still comes gets the piece if it is free, otherwise it is refunded).
      </p>
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {notice && <p role="status">{notice}</p>}
      {stock && (
        <>
          <table className="seller-stock-lines">
            <thead>
              <tr>
                <th scope="col">Product</th>
                <th scope="col">Available</th>
                <th scope="col">Reserved</th>
                <th scope="col">Sold</th>
                <th scope="col">In stock</th>
              </tr>
            </thead>
            <tbody>
              {stock.lines.map((l) => (
                <StockRow
                  key={lineKey(l)}
                  line={l}
                  name={names.get(lineKey(l)) ?? l.productName}
                  onSaved={(next, name) => {
                    setStock(next);
                    setError('');
                    setNotice(`Stock of ${name} saved.`);
                  }}
                  onReleased={(next, name, released) => {
                    setStock(next);
                    setError('');
                    setNotice(
                      released > 0
                        ? `${released} reserved ${released === 1 ? 'unit' : 'units'} of ${name} back on sale.`
                        : `Nothing of ${name} was reserved any more.`,
                    );
                  }}
                  onError={(message) => {
                    setNotice('');
                    setError(message);
                  }}
                />
              ))}
            </tbody>
          </table>

          {stock.drops && <DropsTable drops={stock.drops} />}

          <h3>Recent changes</h3>
          {stock.changes.length === 0 ? (
            <p>No changes yet.</p>
          ) : (
            <ol className="seller-stock-changes">
              {stock.changes.map((c, n) => (
                <li key={n}>
                  {when(c.at)}: {names.get(lineKey(c)) ?? c.productId}: {KIND_LABEL[c.kind]} (in stock{' '}
                  {signed(c.onHandDelta)} → {c.onHandAfter}, reserved {signed(c.reservedDelta)} →{' '}
                  {c.reservedAfter}) by {actorLabel(c.actor)}
                  {c.orderId ? ` (order ${orderNumberOf(c.orderId)})` : ''}
                </li>
              ))}
            </ol>
          )}
        </>
      )}
    </section>
  );
}

function StockRow(props: {
  line: SellerStockLine;
  name: string;
  onSaved: (stock: SellerStock, name: string) => void;
  onReleased: (stock: SellerStock, name: string, released: number) => void;
  onError: (message: string) => void;
}) {
  const { line } = props;
  const [value, setValue] = useState(String(line.onHand));
  const [busy, setBusy] = useState(false);
  useEffect(() => setValue(String(line.onHand)), [line.onHand]);

  const save = async (e: FormEvent) => {
    e.preventDefault();
    const text = value.trim();
    if (!/^\d{1,7}$/.test(text)) {
      props.onError('The stock must be a whole number from 0 to 1000000.');
      return;
    }
    setBusy(true);
    try {
      props.onSaved(
        await sellerApi.setStock({
          productId: line.productId,
          ...(line.variantId !== undefined ? { variantId: line.variantId } : {}),
          onHand: Number(text),
        }),
        props.name,
      );
    } catch (err) {
      props.onError(err instanceof ApiRequestError ? err.message : 'Something went wrong.');
    } finally {
      setBusy(false);
    }
  };

  const key = {
    productId: line.productId,
    ...(line.variantId !== undefined ? { variantId: line.variantId } : {}),
  };
  const release = async () => {
    setBusy(true);
    try {
      const { released, ...next } = await sellerApi.releaseHolds(key);
      props.onReleased(next, props.name, released);
    } catch (err) {
      props.onError(err instanceof ApiRequestError ? err.message : 'Something went wrong.');
    } finally {
      setBusy(false);
    }
  };

  return (
    <tr data-stock={lineKey(line)}>
      <th scope="row">{props.name}</th>
      <td data-testid="available" data-label="Available">
        {line.available}
      </td>
      <td data-testid="reserved" data-label="Reserved">
        {line.reserved}
        {line.reserved > 0 && (
          <>
            {' '}
            <button type="button" className="button" disabled={busy} onClick={() => void release()}>
              Release<span className="visually-hidden"> the reserved units of {props.name}</span>
            </button>
          </>
        )}
      </td>
      <td data-testid="sold" data-label="Sold">
        {line.sold}
      </td>
      <td data-label="In stock">
        <form onSubmit={(e) => void save(e)}>
          <label>
            <span className="visually-hidden">In stock of {props.name}</span>
            <input
              type="number"
              inputMode="numeric"
              min={0}
              max={1_000_000}
              step={1}
              required
              value={value}
              onChange={(e) => setValue(e.target.value)}
            />
          </label>{' '}
          <button type="submit" className="button" disabled={busy}>
            Set stock
          </button>
        </form>
      </td>
    </tr>
  );
}

/** The vendor's drops, live (docs/decisions/drops.md): pieces sold, held, released, and the line. */
function DropsTable({ drops }: { drops: SellerDrop[] }) {
  // A vendor's batch is one drop of several pieces: its rows together, under a row with the batch's totals.
  const groups: { batch?: string; drops: SellerDrop[] }[] = [];
  for (const d of drops) {
    const g = d.batch !== undefined ? groups.find((x) => x.batch === d.batch) : undefined;
    if (g) g.drops.push(d);
    else groups.push({ ...(d.batch !== undefined ? { batch: d.batch } : {}), drops: [d] });
  }
  const sum = (ds: SellerDrop[], f: (d: SellerDrop) => number) => ds.reduce((n, d) => n + f(d), 0);
  return (
    <>
      <h3>Drops</h3>
      <table className="seller-stock-lines seller-drops">
        <thead>
          <tr>
            <th scope="col">Drop</th>
            <th scope="col">Starts</th>
            <th scope="col">Sold</th>
            <th scope="col">Held</th>
            <th scope="col">Released</th>
            <th scope="col">Available</th>
            <th scope="col">In line</th>
          </tr>
        </thead>
        {groups.map((g) => (
          <tbody key={g.batch ?? g.drops[0]!.productId}>
            {g.batch !== undefined && (
              <tr data-testid="drop-batch-row" className="seller-drop-batch">
                <th scope="rowgroup">
                  {g.batch}: a batch of {g.drops.length} {g.drops.length === 1 ? 'piece' : 'pieces'}
                </th>
                <td data-label="Starts">
                  <time dateTime={g.drops[0]!.startsAt}>{formatLocalDateTime(g.drops[0]!.startsAt)}</time>
                </td>
                <td data-label="Sold">{sum(g.drops, (d) => d.sold)}</td>
                <td data-label="Held">{sum(g.drops, (d) => d.held)}</td>
                <td data-label="Released">{sum(g.drops, (d) => d.released)}</td>
                <td data-label="Available">
                  {sum(g.drops, (d) => d.available)} of {sum(g.drops, (d) => d.onHand)}
                </td>
                <td data-label="In line">
                  {g.drops[0]!.perBuyer === 1 ? 'One piece' : `Up to ${g.drops[0]!.perBuyer} pieces`} per
                  buyer across the batch
                </td>
              </tr>
            )}
            {g.drops.map((d) => (
              <tr key={d.productId} data-testid="drop-row">
                <th scope="row">{d.productName}</th>
                <td data-label="Starts">
                  <time dateTime={d.startsAt}>{formatLocalDateTime(d.startsAt)}</time>
                </td>
                <td data-label="Sold">{d.sold}</td>
                <td data-label="Held">{d.held}</td>
                <td data-label="Released">{d.released}</td>
                <td data-label="Available">
                  {d.available} of {d.onHand}
                </td>
                <td data-label="In line">
                  {d.line.waiting} waiting, {d.line.through} let through ({d.line.joined} joined)
                  {d.line.elsewhere > 0 && `; ${d.line.elsewhere} had their turn on another piece or address`}
                </td>
              </tr>
            ))}
          </tbody>
        ))}
      </table>
      <p className="muted">
        Each piece is held {drops[0]?.holdMinutes} {drops[0]?.holdMinutes === 1 ? 'minute' : 'minutes'} for
        payment; released pieces go to the next buyer in line. This table updates every 5 seconds.
      </p>
    </>
  );
}
