import { lazy, Suspense, useCallback, useEffect, useLayoutEffect, useRef, useState } from 'react';
import { isEmailAddress } from '../../core/email-address';
import { stalePriceNote, usePrice, type PriceState } from '../api/price';
import { useStock } from '../api/stock';
import { hasStoredHold, hasStoredOrder, useHasStoredOrder } from '../lib/stored-order';
import { stockText } from '../../core/stock';
import { clearSavedForm, loadSavedForm, saveForm } from '../lib/saved-form';
import { onEarlyInput } from '../lib/early-input';
import { formatLocalTime } from '../lib/time';
import { productById, unitCents, vendorById } from '../catalog';
import { ShippingForm } from '../components/ShippingForm';
import { VendorHeader } from '../components/VendorHeader';
import { claimBaseUnits, formatClaim, formatUsd } from '../lib/claim-amount';
import { TELEGRAM_GROUP_URL } from '../lib/links';
import {
  MISSING_SHIPPING_QR,
  MISSING_SHIPPING_WALLET,
  missingFields,
  shippingFromValues,
  type ShippingField,
  type ShippingValues,
} from '../lib/shipping';
import { usePageTitle } from '../lib/title';
import type { CheckoutProps } from '../checkout/types';
import type { Product } from '../../core/catalog';
import { NotFoundPage } from './NotFoundPage';

/** The drop panel (countdown, line, turn): only a drop's page loads it (2.3 KB gzip the other product pages skip). */
const DropPanel = lazy(() => import('../components/DropPanel').then((m) => ({ default: m.DropPanel })));

// The checkouts: separate chunks. QrPay draws the QR code, so it loads right after the first render; WalletPay
// (@solana/kit and the Wallet Standard) loads on the visitor's first intent, see WalletSlot.
const loadQrPay = () => import('../checkout/qr/QrPay');
const QrPay = lazy(loadQrPay);
// The slot holds the placeholder until then: its own small chunk, so the QR pages do not load it.
const loadWalletSlot = () => import('./WalletSlot');
const WalletSlot = lazy(loadWalletSlot);

/** Fetches the checkout chunk a product page renders at once (main.tsx, before hydrating prerendered HTML). */
export function preloadCheckout(payment: Product['payment']): Promise<unknown> {
  return payment === 'qr' ? loadQrPay() : loadWalletSlot();
}

/** The form's message for an e-mail address the server would refuse. */
export const BAD_EMAIL = 'Enter a valid e-mail address, like name@example.com.';

/** Quantity input text → whole number ≥ 1, or null (spec: not clamped, bad entries give no amount). */
function parseQuantity(text: string): number | null {
  if (!/^\d{1,4}$/.test(text.trim())) return null;
  const n = Number(text.trim());
  return n >= 1 ? n : null;
}

function claimText(price: PriceState, units: bigint | null): string {
  if (price.status === 'loading') return 'Loading $CLAIM price...';
  if (units === null) return 'N/A';
  return `${formatClaim(units)} $CLAIM`;
}

function priceError(price: PriceState, qr: boolean): string | null {
  if (price.status === 'unavailable')
    return qr ? 'Failed to load price. Try again later.' : 'Failed to load $CLAIM price. Try again later.';
  if (price.status === 'error') return 'Error loading price.';
  return null;
}

/** The one product page template: every product route of the catalogue renders this. */
export default function ProductPage({ productId }: { productId: string }) {
  const product = productById(productId);
  const vendor = product ? vendorById(product.vendorId) : undefined;
  usePageTitle(product?.name ?? 'Page not found');
  const price = usePrice();
  const stock = useStock();
  // A drop (docs/decisions/drops.md): Buy Now shows only once the line lets this buyer through.
  const [dropTurn, setDropTurn] = useState(false);
  const storedAtLoad = useHasStoredOrder(product?.id);
  const [variantId, setVariantId] = useState(product?.variants?.[0]?.id);
  const [quantityText, setQuantityText] = useState('1');
  const [values, setValues] = useState<ShippingValues>({});
  const [invalid, setInvalid] = useState<readonly ShippingField[]>([]);
  const [messages, setMessages] = useState<Partial<Record<ShippingField, string>>>({});
  const qr = product?.payment === 'qr';
  const formRef = useRef<HTMLFormElement>(null);
  const pid = product?.id;
  // The form survives a reload and back/forward within this tab (sessionStorage), read after hydration.
  const [restored, setRestored] = useState(false);
  useEffect(() => {
    if (!pid) return;
    const saved = loadSavedForm(pid);
    // The form is in the prerendered HTML: what the buyer typed before the page came alive is kept.
    if (saved) setValues(saved);
    setRestored(true);
    return onEarlyInput((typed) => setValues((v) => ({ ...v, ...(typed as ShippingValues) })));
  }, [pid]);
  useEffect(() => {
    if (pid && restored) saveForm(pid, values);
  }, [pid, restored, values]);
  // The buyer's own order on this page is paid (the checkout shows its receipt).
  const [ownPaid, setOwnPaid] = useState(false);
  /** "Buy another": focus goes to the form's first field once it is open again (a disabled field takes none). */
  const focusForm = useRef(false);
  const startOver = useCallback(() => {
    setOwnPaid(false);
    setValues({});
    setInvalid([]);
    setMessages({});
    if (pid) clearSavedForm(pid);
    focusForm.current = true;
  }, [pid]);
  useLayoutEffect(() => {
    if (!focusForm.current || ownPaid) return;
    focusForm.current = false;
    formRef.current?.querySelector<HTMLElement>('input, select, textarea')?.focus();
  }, [ownPaid, values]);
  /** The order is placed: the tab's saved copy of the form is dropped (a reload starts clean). */
  const orderPlaced = useCallback(() => {
    if (pid) clearSavedForm(pid);
  }, [pid]);
  const resumeQuantity = useCallback((n: number) => setQuantityText(String(n)), []);
  // QR pages: this tab's stored record is a purchase (the QR checkout says so once the server answered).
  const [qrPurchase, setQrPurchase] = useState(false);
  // QR pages: the checkout shows the amount to pay; the card's approximate price then gives way (one amount).
  const [payAmountShown, setPayAmountShown] = useState(false);

  // Spec §5: an empty required field alerts the spec's text. Also: each empty field is marked
  // aria-invalid with a message next to it, and focus moves to the first one.
  const validateShipping = useCallback(() => {
    const kind = qr ? 'us' : 'international';
    const shipping = shippingFromValues(kind, values);
    const missing = missingFields(kind, values);
    setInvalid(missing);
    setMessages({});
    if (!shipping) {
      window.alert(qr ? MISSING_SHIPPING_QR : MISSING_SHIPPING_WALLET);
      const first = missing[0];
      if (first) formRef.current?.querySelector<HTMLElement>(`[name="${first}"]`)?.focus();
      return null;
    }
    // The server's own e-mail rule, in the form: a bad address stops here, before any wallet or server call.
    if (!isEmailAddress(shipping.email)) {
      setInvalid(['email']);
      setMessages({ email: BAD_EMAIL });
      formRef.current?.querySelector<HTMLElement>('[name="email"]')?.focus();
      return null;
    }
    return shipping;
  }, [qr, values]);

  if (!product || !vendor) return <NotFoundPage />;

  // Live stock of the chosen product/variant (GET /api/stock, after hydration). Sold out: no Buy Now, no QR and no
  // payment link; "Only N left" when low. Unknown (loading, or the read failed): the page as prerendered.
  const available =
    stock.status === 'known'
      ? stock.available(
          variantId !== undefined ? { productId: product.id, variantId } : { productId: product.id },
        )
      : undefined;
  const noStock = available !== undefined && available <= 0;
  // The buyer's own order of this product stays on its page (status, QR) even once the product is sold out,
  // also one this page made since it loaded (read at each render after hydration).
  const ownOrder = storedAtLoad || (restored && hasStoredOrder(product.id));
  // QR pages: a stored record is the buyer's own order only once it is a purchase (money arrived for it, or it was
  // confirmed: the QR checkout asks the server and says so); an open record with nothing paid holds nothing, so
  // the page is Sold out for it too. Before, the mere record kept the QR checkout and its button on a sold-out page.
  const soldOut = noStock && !(qr ? qrPurchase : ownOrder);
  // Every size sold out (BathSalts): no size choice either, only "Sold out". One size left: the choice stays.
  const noSizeLeft =
    soldOut &&
    stock.status === 'known' &&
    (product.variants ?? []).every(
      (v) => (stock.available({ productId: product.id, variantId: v.id }) ?? 0) <= 0,
    );
  const line =
    stock.status === 'known'
      ? stock.line(variantId !== undefined ? { productId: product.id, variantId } : { productId: product.id })
      : undefined;
  // Nothing available but unpaid holds may come back: "Reserved", with when (in the reader's zone, named).
  const reserved = noStock && (line?.held ?? 0) > 0;
  // The buyer just bought the last piece: "Sold out" is their own good news, so the page says nothing about stock
  // (the receipt is the answer).
  // Only a hold counts as this browser's own (src/web/lib/stored-order.ts): an unpaid wallet order that holds. A
  // QR record holds nothing (holds.md), nor a wallet order made without the wallet's proof, nor a paid one: with
  // any of those stored, the piece is held by another buyer.
  const ownHold = reserved && restored && hasStoredHold(product.id);
  const stockNote = available !== undefined && stockText(available) && !(noStock && ownPaid) && (
    // Held for what may be this browser's own unpaid order (its checkout is below): a note, not bad news in red.
    <p
      className={noStock && !ownHold ? 'stock sold-out-note' : 'stock low-stock'}
      role="status"
      data-testid="stock"
    >
      <strong>{reserved ? 'Reserved' : stockText(available)}</strong>
      {reserved && line?.heldUntil && (
        // This browser's own unpaid order may be the one holding it: then "another buyer" would be false.
        <>
          {' '}
          — {ownHold ? 'held for an unpaid order' : 'reserved by another buyer'}; back on sale at{' '}
          {formatLocalTime(line.heldUntil)} if unpaid.
        </>
      )}
    </p>
  );

  const quantity = product.quantity ? parseQuantity(quantityText) : 1;
  // The quantity is bounded by what is available now (inline, and the pay buttons wait for a good one).
  const quantityProblem =
    product.quantity && quantity === null
      ? 'Enter a whole number of 1 or more.'
      : quantity !== null && available !== undefined && available > 0 && quantity > available
        ? `Only ${available} left: choose ${available} or fewer.`
        : undefined;
  const unit = unitCents(product, variantId);
  const totalCents = quantity === null ? null : unit * quantity;
  const units = claimBaseUnits(totalCents, price.status === 'known' ? price.priceUsd : undefined);
  const error = priceError(price, qr);
  const stale = stalePriceNote(price);
  const staleNote = stale && (
    <p className="note" data-testid="price-stale">
      {stale}
    </p>
  );
  const onField = (field: ShippingField, value: string) => {
    setValues((v) => ({ ...v, [field]: value }));
    // A field filled in is no longer marked (the others stay marked until the next check).
    if (value.trim() !== '')
      setInvalid((list) => (list.includes(field) ? list.filter((f) => f !== field) : list));
  };
  const seam: CheckoutProps = {
    product,
    vendor,
    variantId,
    quantity,
    totalCents,
    price,
    claimBaseUnits: units,
    validateShipping,
    startOver,
    refreshStock: stock.refresh,
    resumeQuantity,
    orderPlaced,
    quantityProblem,
    nothingLeft: noStock,
    paidChanged: setOwnPaid,
    payAmountShown: setPayAmountShown,
  };

  const quantityInput = product.quantity && (
    <div className="field quantity">
      <label htmlFor="quantity">Quantity</label>
      <input
        id="quantity"
        name="quantity"
        type="number"
        min={1}
        step={1}
        inputMode="numeric"
        value={quantityText}
        aria-invalid={quantityProblem ? true : undefined}
        aria-describedby={quantityProblem ? 'quantity-problem' : undefined}
        {...(available !== undefined && available > 0 ? { max: available } : {})}
        onChange={(e) => setQuantityText(e.target.value)}
      />
      {quantityProblem && (
        <p className="field-error" id="quantity-problem" role="alert">
          {quantityProblem}
        </p>
      )}
    </div>
  );
  const variants = product.variants && (
    <fieldset className="variants">
      <legend>Size</legend>
      {product.variants.map((v) => (
        <label key={v.id} className="radio">
          <input
            type="radio"
            name="variant"
            value={v.id}
            checked={variantId === v.id}
            onChange={() => setVariantId(v.id)}
          />{' '}
          {v.label} ({formatUsd(v.priceCents)})
        </label>
      ))}
    </fieldset>
  );
  const badge = product.freeShipping && <p className="badge free-shipping">Free Shipping</p>;
  const form = (
    <form
      ref={formRef}
      className="order-form"
      noValidate
      onSubmit={(e) => e.preventDefault()}
      aria-label="Shipping details"
    >
      <ShippingForm
        kind={qr ? 'us' : 'international'}
        values={values}
        onChange={onField}
        invalid={invalid}
        messages={messages}
        sent={!qr && ownPaid}
      />
    </form>
  );
  const help = (
    <p className="help">
      Need help? Ask in our{' '}
      <a href={TELEGRAM_GROUP_URL} target="_blank" rel="noopener noreferrer">
        Telegram group
      </a>
      .
    </p>
  );

  const image = (
    <img
      className="product-image"
      src={product.image}
      alt={product.imageAlt}
      width={600}
      height={600}
      fetchPriority="high"
    />
  );
  const retail = product.retailCents !== undefined && (
    <p className="retail">
      <span className="visually-hidden">Retail price </span>
      <s>{formatUsd(product.retailCents)}</s>
    </p>
  );

  if (qr) {
    return (
      <div className="page product qr" data-product={product.id}>
        <VendorHeader vendor={vendor} />
        <section className="card product-card" aria-labelledby="product-title">
          {image}
          <div className="product-info">
            <h1 id="product-title">{product.name}</h1>
            {retail}
            <p className="unit-price">
              Unit price: <strong>{formatUsd(unit)}</strong>
            </p>
            {badge}
            {variants}
            {/* Sold out: nothing to buy, so no quantity to choose either. */}
            {soldOut ? null : quantityInput}
            {!payAmountShown && (
              <p className="claim-price" role="status">
                Approximate price: <strong data-testid="claim-amount">{claimText(price, units)}</strong>
              </p>
            )}
            {staleNote}
            {stockNote}
          </div>
        </section>
        {noStock && !ownOrder ? null : (
          // Rendered while the stock is read too (prerendered: the instructions and the form are in the HTML); the
          // QR and its links wait for the stock (a sold-out page never shows one, not even for a moment). Sold out
          // with a stored record, it stays mounted to ask the server whether the record is a purchase, and shows
          // nothing to pay or press until it is one.
          <Suspense fallback={<p className="qr-box">Generating QR Code...</p>}>
            <QrPay {...seam} stockKnown={stock.status !== 'loading'} purchaseChanged={setQrPurchase}>
              <section className="card instructions" aria-labelledby="qr-steps-title">
                <h2 id="qr-steps-title">How to Complete Your Purchase</h2>
                <ol>
                  <li>
                    {/* A phone pays with its own wallet (the QR area leads with it there): styles.css picks. */}
                    <span className="for-desk">
                      Scan the QR code with a Solana wallet app (Phantom, Solflare and others) and approve the
                      payment.
                    </span>
                    <span className="for-phone">
                      Tap Open in wallet to pay with a wallet app on this phone (Phantom, Solflare and
                      others), or scan the QR code from another device, and approve the payment.
                    </span>
                  </li>
                  <li>Fill in your shipping details below (US addresses only).</li>
                  <li>Click the button to send the order confirmation to the seller and to you.</li>
                </ol>
              </section>
              {form}
            </QrPay>
          </Suspense>
        )}
        {help}
      </div>
    );
  }

  return (
    <div className="page product wallet" data-product={product.id}>
      <VendorHeader vendor={vendor} />
      <div className="product-layout">
        {image}
        <div className="product-info">
          <h1>{product.name}</h1>
          {retail}
          <p className="sale-price">
            <strong>{formatUsd(totalCents ?? unit)} USD</strong>
            <span className="claim-price" role="status">
              {' '}
              ≈ <span data-testid="claim-amount">{claimText(price, units)}</span>
            </span>
          </p>
          {error && <p className="error">{error}</p>}
          {staleNote}
          {badge}
          {product.drop ? (
            <Suspense fallback={null}>
              <DropPanel product={product} onTurn={setDropTurn} />
            </Suspense>
          ) : (
            stockNote
          )}
          {noSizeLeft ? null : variants}
          {soldOut ? null : quantityInput}
          {soldOut ? null : form}
          {soldOut || (product.drop && !dropTurn) ? null : (
            <Suspense
              fallback={
                <button type="button" className="button big buy-now" disabled>
                  Loading Price...
                </button>
              }
            >
              <WalletSlot {...seam} />
            </Suspense>
          )}
        </div>
      </div>
      {/* Nothing left to buy on this page (no size in stock either): no steps to buy it, as the QR page. */}
      {soldOut && ((product.variants ?? []).length === 0 || noSizeLeft) ? null : (
        <section className="card instructions" aria-labelledby="steps-title">
          <h2 id="steps-title">How to Complete Your Purchase</h2>
          <ol>
            <li>Fill in your shipping details above.</li>
            <li>Click Buy Now to pay in $CLAIM with your Phantom wallet.</li>
            <li>Confirmation e-mails are sent automatically to you and to the seller.</li>
          </ol>
          <p className="note">
            Phantom may show a warning when you pay: this comes from its automated security filters, not from
            a problem with the order. If you are unsure, you can pay manually via direct message to the
            seller, or use a fresh wallet.
          </p>
        </section>
      )}
      {help}
    </div>
  );
}
