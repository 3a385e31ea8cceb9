/**
 * Stock: pure rules, no I/O. Browser-safe.
 *
 * Every product (or each variant of a product with variants) has a stock line in the store: `onHand` units not
 * yet sold, of which `reserved` are held by open orders (an order reserves its quantity for a short hold;
 * expiry releases it; payment turns it into a sale). Sold out is derived from stock, never a flag.
 *
 *   available = max(0, onHand − reserved)
 *   reserve n:  allowed when available ≥ n                  → reserved + n
 *   release n:  the order expired unpaid                   → reserved − n
 *   sell n (held reservation):                              → onHand − n, reserved − n
 *   sell n (reservation released, late payment):  available ≥ n → onHand − n; otherwise the order is oversold
 */

/** A stock line's key: the product and, for products with variants, the variant ('' for none). */
import { formatTime } from './zone-dates';
import { DomainError } from './errors';

export interface StockKey {
  productId: string;
  variantId?: string;
}

export interface StockLevel extends StockKey {
  onHand: number;
  reserved: number;
}

/** What the browser sees (GET /api/stock): units that can be bought now. */
export interface StockAvailability extends StockKey {
  available: number;
  /** Units held by unpaid orders (they come back if unpaid); 0 or absent when none. */
  held?: number;
  /** When the first held unit comes back if its order stays unpaid (ISO time); absent when none is held. */
  heldUntil?: string;
}

/** "Only N left" is shown at or below this many units (and above zero). */
export const LOW_STOCK_THRESHOLD = 3;

export const SOLD_OUT_TEXT = 'Sold out';

export function stockKey(k: StockKey): string {
  return `${k.productId}/${k.variantId ?? ''}`;
}

export function availableOf(level: Pick<StockLevel, 'onHand' | 'reserved'>): number {
  return Math.max(0, level.onHand - level.reserved);
}

/** The page's text for a number of available units: "Sold out", "Only N left", or nothing (plenty). */
export function stockText(available: number): string | undefined {
  if (available <= 0) return SOLD_OUT_TEXT;
  if (available <= LOW_STOCK_THRESHOLD) return `Only ${available} left`;
  return undefined;
}

/** A valid stock count: a whole number 0 … 1,000,000. */
export function isStockCount(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n >= 0 && n <= 1_000_000;
}

/** Parses the command line's `<productId>[:<variantId>]`. */
export function parseStockTarget(text: string): StockKey | undefined {
  const m = /^([a-z0-9]+(?:-[a-z0-9]+)*)(?::([a-z0-9]+(?:-[a-z0-9]+)*))?$/.exec(text);
  if (!m?.[1]) return undefined;
  return m[2] !== undefined ? { productId: m[1], variantId: m[2] } : { productId: m[1] };
}

/** A line asking for stock: an order or quote item. */
export interface StockRequest extends StockKey {
  name: string;
  quantity: number;
}

/** The first line that asks for more than is available, or undefined when every line fits. */
export function shortfall(
  lines: readonly StockRequest[],
  available: (k: StockKey) => number,
): { line: StockRequest; available: number } | undefined {
  // The same stock line twice (never from a validated quote) must add up.
  const asked = new Map<string, number>();
  for (const line of lines) {
    const k = stockKey(line);
    const total = (asked.get(k) ?? 0) + line.quantity;
    asked.set(k, total);
    const have = available(line);
    if (total > have) return { line, available: Math.max(0, have) };
  }
  return undefined;
}

/**
 * A domain refusal: more is asked than is available. A conflict (409 at the HTTP edge) with its message
 * ("Sold out" / "Only N left"), code `sold_out` or `low_stock`.
 */
export class OutOfStockError extends DomainError {
  override name = 'OutOfStockError';
  constructor(
    readonly productId: string,
    readonly variantId: string | undefined,
    readonly productName: string,
    readonly available: number,
  ) {
    super(
      'conflict',
      available > 0 ? 'low_stock' : 'sold_out',
      available <= 0
        ? `${SOLD_OUT_TEXT}: ${productName} is no longer available.`
        : `Only ${available} left of ${productName}.`,
      { field: 'items' },
    );
  }
}

/** "Reserved: may come back in N minutes": nothing free now, but an unpaid hold lapses at `heldUntil`. */
export function reservedText(heldUntil: string, nowMs: number): string {
  const minutes = Math.max(1, Math.ceil((Date.parse(heldUntil) - nowMs) / 60_000));
  return `Reserved: may come back in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'}`;
}

/**
 * The refusal for a line with nothing free while unpaid holds may come back (409, code `reserved`): "Reserved: may
 * come back in N minutes" (N: until the first hold's own deadline, at least 1).
 */
export function reservedRefusal(
  productId: string,
  variantId: string | undefined,
  productName: string,
  heldUntil: string,
  nowMs: number,
): DomainError {
  return new DomainError(
    'conflict',
    'reserved',
    `${reservedText(heldUntil, nowMs)}. Someone has ${productName} in an unpaid order.`,
    {
      field: 'items',
    },
  );
}

export function assertInStock(lines: readonly StockRequest[], available: (k: StockKey) => number): void {
  const short = shortfall(lines, available);
  if (short)
    throw new OutOfStockError(short.line.productId, short.line.variantId, short.line.name, short.available);
}

/** What a payment that completes an order does to its stock. */
export type SaleOutcome = 'sold_reserved' | 'sold_unreserved' | 'oversold';

/**
 * The sale rule: a held reservation is sold; after it was released (late payment) the units are sold if still
 * available, and otherwise the order is oversold (the payment is recorded; the seller refunds).
 */
export function saleOutcome(reservationHeld: boolean, available: number, quantity: number): SaleOutcome {
  if (reservationHeld) return 'sold_reserved';
  return available >= quantity ? 'sold_unreserved' : 'oversold';
}

/** Sold out for a product: every one of its stock lines has nothing available. Unknown stock is not sold out. */
export function isSoldOut(
  product: { id: string; variants?: readonly { id: string }[] },
  available: (k: StockKey) => number | undefined,
): boolean {
  const keys: StockKey[] = product.variants
    ? product.variants.map((v) => ({ productId: product.id, variantId: v.id }))
    : [{ productId: product.id }];
  return keys.every((k) => {
    const n = available(k);
    return n !== undefined && n <= 0;
  });
}

// ---------------------------------------------------------------------------------------------------------
// Holds on intent, never on a view.
//
//   view (a QR record made to show a QR)           → holds nothing; not an order for the vendor or the catalogue
//   QR details sent (free to send)                  → holds nothing: the payment, once seen, takes the piece
//   wallet Buy Now                                  → holds the quantity for a short hold (HOLD_MS; available ≥ n,
//                                                     and the client holds at most `limit` units unpaid at once)
//   payment of a record that holds nothing          → sold when available, else oversold (saleOutcome, unheld)
//   payment of a held order                         → sold
//   expiry                                          → the hold is released

/** What happens in a checkout, for the hold rules. */
export type HoldEvent = 'view' | 'details' | 'buy_now' | 'payment' | 'expiry';

/** Whether the event holds stock (a view or QR details never do; a payment sells, it does not hold). */
export function holdsStock(event: HoldEvent): boolean {
  return event === 'buy_now';
}

/** Default units one client may hold unpaid at once (HOLD_LIMIT_PER_CLIENT). */
export const DEFAULT_HOLD_LIMIT = 5;

/**
 * The per-client cap on holds: a refusal (429 at the HTTP edge) when the client already holds `heldUnits` unpaid
 * and asks for `asking` more than `limit` allows; undefined when allowed (or `limit` is 0: no cap).
 */
export function holdLimitRefusal(
  heldUnits: number,
  asking: number,
  limit: number,
  nextRelease: string | undefined,
): DomainError | undefined {
  if (limit <= 0 || heldUnits + asking <= limit) return undefined;
  const when = nextRelease ? ` The first comes back at ${formatTimeUtc(nextRelease)} if unpaid.` : '';
  return new DomainError(
    'rate_limited',
    'hold_limit',
    `You already have ${heldUnits} ${heldUnits === 1 ? 'piece' : 'pieces'} reserved and unpaid, and one buyer can reserve at most ${limit} at once. Pay for ${heldUnits === 1 ? 'it' : 'them'} or wait before reserving more.${when}`,
    { field: 'items' },
  );
}

/** "16:35 UTC": a time of day that names its zone (the server and e-mails do not know the buyer's zone). */
export function formatTimeUtc(iso: string): string {
  return formatTime(iso, 'UTC');
}

/** The page's word for a line with nothing available: "Reserved" while unpaid holds may come back. */
export function unavailableText(line: Pick<StockAvailability, 'available' | 'held' | 'heldUntil'>): string {
  if (line.available > 0) return stockText(line.available) ?? '';
  return (line.held ?? 0) > 0 ? 'Reserved' : SOLD_OUT_TEXT;
}
