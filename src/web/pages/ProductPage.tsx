import { lazy, Suspense, useCallback, useEffect, useRef, useState, type ComponentType, type ReactNode } from 'react';
import { usePrice, type PriceState } from '../api/price';
import { productById, unitCents, vendorById } from '../catalog';
import { ShippingForm } from '../components/ShippingForm';
import { VendorHeader } from '../components/VendorHeader';
import { claimBaseUnits, formatBaseUnits, formatUsd } from '../lib/claim-amount';
import { TELEGRAM_GROUP_URL } from '../lib/links';
import { MISSING_SHIPPING_QR, MISSING_SHIPPING_WALLET, shippingFromValues, type ShippingField, type ShippingValues } from '../lib/shipping';
import { usePageTitle } from '../lib/title';
import { loadOpenOrder } from '../checkout/wallet/open-order';
import type { CheckoutProps } from '../checkout/types';
import { NotFoundPage } from './NotFoundPage';

// The checkouts: separate chunks. QrPay draws the QR code, so it loads right after the first render; WalletPay
// (web3.js and the wallet adapter, ~130 KB gzip) loads on the visitor's first intent, see WalletSlot.
const QrPay = lazy(() => import('../checkout/qr/QrPay'));
type WalletPayComponent = ComponentType<CheckoutProps>;
let walletPayLoad: Promise<WalletPayComponent> | undefined;
function loadWalletPay(): Promise<WalletPayComponent> {
  walletPayLoad ??= import('../checkout/wallet/WalletPay').then(
    (m) => m.default,
    (err: unknown) => {
      walletPayLoad = undefined; // a failed fetch is tried again on the next intent
      throw err;
    },
  );
  return walletPayLoad;
}

/** localStorage key of the wallet the adapter reconnects (WalletProvider's default `localStorageKey`). */
const ADAPTER_WALLET_KEY = 'walletName';

/** The wallet checkout must load at once: the adapter will reconnect a chosen wallet, or an order is open. */
function walletMustResume(productId: string): boolean {
  try {
    if (window.localStorage.getItem(ADAPTER_WALLET_KEY)) return true;
  } catch {
    // storage disabled: nothing to resume from it
  }
  return loadOpenOrder(productId) !== null;
}

type PendingClick = 'buy' | 'connect';

/** The real control a click on the placeholder stands for, once WalletPay has rendered it and it is usable. */
function realControl(box: HTMLElement, what: PendingClick): HTMLButtonElement | null {
  const selector = what === 'buy' ? 'button.buy-now' : 'button.wallet-adapter-button-trigger';
  const el = box.querySelector<HTMLButtonElement>(`${selector}:not([data-placeholder])`);
  if (!el || el.disabled) return null;
  if (what === 'buy' && el.textContent !== 'Buy Now') return null;
  return el;
}

/**
 * The wallet checkout's slot. Until the visitor shows intent (pointer over or down on the buy area, focus in the
 * shipping form, any key, a touch) it renders a placeholder with the same controls and texts as WalletPay, and no
 * wallet code is fetched; it loads at once when there is something to resume (a wallet the adapter reconnects, an
 * open order). The placeholder stays until the chunk has arrived, and a click on one of its controls is not lost:
 * the real control is clicked as soon as it is usable.
 */
function WalletSlot({ seam, children }: { seam: CheckoutProps; children: (intent: () => void) => ReactNode }) {
  const productId = seam.product.id;
  const [wanted, setWanted] = useState(() => walletMustResume(productId));
  const [Pay, setPay] = useState<WalletPayComponent | null>(null);
  const [pending, setPending] = useState<PendingClick | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const intent = useCallback(() => setWanted(true), []);

  useEffect(() => {
    if (!wanted || Pay) return;
    let live = true;
    loadWalletPay().then(
      (component) => {
        if (live) setPay(() => component);
      },
      () => {
        if (live) setWanted(false); // offline or a new deployment: the next intent tries again
      },
    );
    return () => {
      live = false;
    };
  }, [wanted, Pay]);

  useEffect(() => {
    if (wanted) return;
    const opts = { once: true, passive: true, capture: true } as const;
    window.addEventListener('keydown', intent, opts);
    window.addEventListener('touchstart', intent, opts);
    return () => {
      window.removeEventListener('keydown', intent, opts);
      window.removeEventListener('touchstart', intent, opts);
    };
  }, [wanted, intent]);

  // Replays a placeholder click on the real control once it is usable (WalletPay first fetches the store config).
  useEffect(() => {
    const el = box.current;
    if (!Pay || !pending || !el) return;
    let done = false;
    const flush = () => {
      const real = done ? null : realControl(el, pending);
      if (!real) return;
      done = true;
      observer.disconnect();
      setPending(null);
      real.click();
    };
    const observer = new MutationObserver(flush);
    observer.observe(el, { subtree: true, childList: true, attributes: true, characterData: true });
    flush();
    const giveUp = window.setTimeout(() => setPending(null), 20_000);
    return () => {
      observer.disconnect();
      window.clearTimeout(giveUp);
    };
  }, [Pay, pending]);

  const ready = seam.claimBaseUnits !== null && seam.claimBaseUnits > 0n;
  const press = (what: PendingClick) => () => {
    setPending(what);
    intent();
  };
  return (
    <>
      {children(intent)}
      <div className="wallet-slot" ref={box} onPointerOver={wanted ? undefined : intent} onPointerDown={wanted ? undefined : intent}>
        {Pay ? (
          <Pay {...seam} />
        ) : (
          <div className="pay">
            <div className="wallet-connect">
              <button type="button" className="wallet-adapter-button wallet-adapter-button-trigger wallet-placeholder" data-placeholder onClick={press('connect')}>
                Select Wallet
              </button>
            </div>
            <button type="button" className="button big buy-now" data-placeholder disabled={!ready} aria-busy={pending === 'buy'} onClick={press('buy')}>
              {ready ? 'Buy Now' : 'Loading Price...'}
            </button>
          </div>
        )}
      </div>
    </>
  );
}

/** Quantity input text → whole number ≥ 1, or null (spec: not clamped, bad entries give no amount). */
function parseQuantity(text: string): number | null {
  if (!/^\d{1,4}$/.test(text.trim())) return null;
  const n = Number(text.trim());
  return n >= 1 ? n : null;
}

function claimText(price: PriceState, units: bigint | null): string {
  if (price.status === 'loading') return 'Loading $CLAIM price...';
  if (units === null) return 'N/A';
  return `${formatBaseUnits(units)} $CLAIM`;
}

function priceError(price: PriceState, qr: boolean): string | null {
  if (price.status === 'unavailable') return qr ? 'Failed to load price. Try again later.' : 'Failed to load $CLAIM price. Try again later.';
  if (price.status === 'error') return 'Error loading price.';
  return null;
}

/** The one product page template: every product route of the catalogue renders this. */
export default function ProductPage({ productId }: { productId: string }) {
  const product = productById(productId);
  const vendor = product ? vendorById(product.vendorId) : undefined;
  usePageTitle(product?.name ?? 'Page not found');
  const price = usePrice();
  const [variantId, setVariantId] = useState(product?.variants?.[0]?.id);
  const [quantityText, setQuantityText] = useState('1');
  const [values, setValues] = useState<ShippingValues>({});
  const qr = product?.payment === 'qr';

  const validateShipping = useCallback(() => {
    const shipping = shippingFromValues(qr ? 'us' : 'international', values);
    if (!shipping) window.alert(qr ? MISSING_SHIPPING_QR : MISSING_SHIPPING_WALLET);
    return shipping;
  }, [qr, values]);

  if (!product || !vendor) return <NotFoundPage />;

  const quantity = product.quantity ? parseQuantity(quantityText) : 1;
  const unit = unitCents(product, variantId);
  const totalCents = quantity === null ? null : unit * quantity;
  const units = claimBaseUnits(totalCents, price.status === 'known' ? price.priceUsd : undefined);
  const error = priceError(price, qr);
  const onField = (field: ShippingField, value: string) => setValues((v) => ({ ...v, [field]: value }));
  const seam: CheckoutProps = { product, vendor, variantId, quantity, totalCents, price, claimBaseUnits: units, validateShipping };

  const quantityInput = product.quantity && (
    <div className="field quantity">
      <label htmlFor="quantity">Quantity</label>
      <input id="quantity" name="quantity" type="number" min={1} step={1} inputMode="numeric" value={quantityText} onChange={(e) => setQuantityText(e.target.value)} />
    </div>
  );
  const variants = product.variants && (
    <fieldset className="variants">
      <legend>Size</legend>
      {product.variants.map((v) => (
        <label key={v.id} className="radio">
          <input type="radio" name="variant" value={v.id} checked={variantId === v.id} onChange={() => setVariantId(v.id)} /> {v.label} ({formatUsd(v.priceCents)})
        </label>
      ))}
    </fieldset>
  );
  const badge = product.freeShipping && <p className="badge free-shipping">Free Shipping</p>;
  const renderForm = (onFocus?: () => void) => (
    <form className="order-form" noValidate onSubmit={(e) => e.preventDefault()} onFocus={onFocus} aria-label="Shipping details">
      <ShippingForm kind={qr ? 'us' : 'international'} values={values} onChange={onField} />
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

  if (qr) {
    return (
      <div className="page product qr" data-product={product.id}>
        <VendorHeader vendor={vendor} />
        <section className="card product-card" aria-labelledby="product-title">
          <img className="product-image" src={product.image} alt={product.imageAlt} width={600} height={600} fetchPriority="high" />
          <div className="product-info">
            <h1 id="product-title">{product.name}</h1>
            {product.retailCents !== undefined && (
              <p className="retail">
                <span className="visually-hidden">Retail price </span>
                <s>{formatUsd(product.retailCents)}</s>
              </p>
            )}
            <p className="unit-price">
              Unit price: <strong>{formatUsd(unit)}</strong>
            </p>
            {badge}
            {variants}
            {quantityInput}
            <p className="claim-price" role="status">
              Approximate price: <strong data-testid="claim-amount">{claimText(price, units)}</strong>
            </p>
          </div>
        </section>
        <Suspense fallback={<p className="qr-box">Generating QR Code...</p>}>
          <QrPay {...seam}>
            <section className="card instructions" aria-labelledby="qr-steps-title">
              <h2 id="qr-steps-title">How to Complete Your Purchase</h2>
              <ol>
                <li>Scan the QR code with a Solana wallet app (Phantom, Solflare and others) and approve the payment.</li>
                <li>Fill in your shipping details below (US addresses only).</li>
                <li>Click the button to send the order confirmation to the seller and to you.</li>
              </ol>
            </section>
            {renderForm()}
          </QrPay>
        </Suspense>
        {help}
      </div>
    );
  }

  return (
    <div className="page product wallet" data-product={product.id}>
      <VendorHeader vendor={vendor} />
      <div className="product-layout">
        <img className="product-image" src={product.image} alt={product.imageAlt} width={600} height={600} fetchPriority="high" />
        <div className="product-info">
          <h1>{product.name}</h1>
          {product.retailCents !== undefined && (
            <p className="retail">
              <span className="visually-hidden">Retail price </span>
              <s>{formatUsd(product.retailCents)}</s>
            </p>
          )}
          <p className="sale-price">
            <strong>{formatUsd(totalCents ?? unit)} USD</strong>
            <span className="claim-price" role="status">
              {' '}
              ≈ <span data-testid="claim-amount">{claimText(price, units)}</span>
            </span>
          </p>
          {error && <p className="error">{error}</p>}
          {badge}
          {variants}
          {quantityInput}
          <WalletSlot seam={seam}>{renderForm}</WalletSlot>
        </div>
      </div>
      <section className="card instructions" aria-labelledby="steps-title">
        <h2 id="steps-title">How to Complete Your Purchase</h2>
        <ol>
          <li>Fill in your shipping details above.</li>
          <li>Click Buy Now to pay in $CLAIM with your Phantom wallet.</li>
          <li>Confirmation e-mails are sent automatically to you and to the seller.</li>
        </ol>
        <p className="note">
          Phantom may show a warning when you pay: this comes from its automated security filters, not from a problem with the order. If you are unsure,
          you can pay manually via direct message to the seller, or use a fresh wallet.
        </p>
      </section>
      {help}
    </div>
  );
}
