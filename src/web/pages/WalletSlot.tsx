/**
 * The wallet product page's checkout slot (see WalletSlot below). A chunk of its own: QR product pages never load
 * it, and it keeps WalletPay (@solana/kit, the Wallet Standard and the wallet picker) out of the page until it is needed.
 */
import { useCallback, useEffect, useRef, useState, type ComponentType } from 'react';
import { loadOpenOrder } from '../checkout/wallet/open-order';
import type { CheckoutProps } from '../checkout/types';

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

/** localStorage key of the chosen wallet, which reconnects silently (components/WalletSession.tsx). */
const CHOSEN_WALLET_KEY = 'walletName';

/** The wallet checkout must load at once: a chosen wallet will reconnect, or an order is open. */
function walletMustResume(productId: string): boolean {
  try {
    if (window.localStorage.getItem(CHOSEN_WALLET_KEY)) return true;
  } catch {
    // storage disabled: nothing to resume from it
  }
  return loadOpenOrder(productId) !== null;
}

type PendingClick = 'buy' | 'connect';

/** The real control a click on the placeholder stands for, once WalletPay has rendered it and it is usable. */
function realControl(box: HTMLElement, what: PendingClick): HTMLButtonElement | null {
  const selector = what === 'buy' ? 'button.buy-now' : 'button.wallet-button';
  const el = box.querySelector<HTMLButtonElement>(`${selector}:not([data-placeholder])`);
  if (!el || el.disabled) return null;
  if (what === 'buy' && el.textContent !== 'Buy Now') return null;
  return el;
}

/**
 * The wallet checkout's slot. Until the visitor shows intent (pointer over or down on the buy area, focus in the
 * shipping form, any key, a touch) it renders a placeholder with the same controls and texts as WalletPay, and no
 * wallet code is fetched; it loads at once when there is something to resume (a chosen wallet that reconnects, an
 * open order). The placeholder stays until the chunk has arrived, and a click on one of its controls is not lost:
 * the real control is clicked as soon as it is usable.
 */
export default function WalletSlot(seam: CheckoutProps) {
  const productId = seam.product.id;
  const [wanted, setWanted] = useState(false);
  const [Pay, setPay] = useState<WalletPayComponent | null>(null);
  const [pending, setPending] = useState<PendingClick | null>(null);
  const box = useRef<HTMLDivElement>(null);
  const intent = useCallback(() => setWanted(true), []);

  // Storage is read after the first render (prerendered at build time and hydrated: the placeholder either way).
  useEffect(() => {
    if (walletMustResume(productId)) setWanted(true);
  }, [productId]);

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
    // The slot's parent is the product's purchase column: the shipping form, quantity and size inputs.
    const column = box.current?.parentElement;
    if (wanted) return;
    const opts = { once: true, passive: true, capture: true } as const;
    window.addEventListener('keydown', intent, opts);
    window.addEventListener('touchstart', intent, opts);
    column?.addEventListener('focusin', intent, opts);
    return () => {
      window.removeEventListener('keydown', intent, opts);
      window.removeEventListener('touchstart', intent, opts);
      column?.removeEventListener('focusin', intent, opts);
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
    <div
      className="wallet-slot"
      ref={box}
      onPointerOver={wanted ? undefined : intent}
      onPointerDown={wanted ? undefined : intent}
    >
      {Pay ? (
        <Pay {...seam} />
      ) : (
        <div className="pay">
          <div className="wallet-connect">
            <button
              type="button"
              className="button secondary wallet-button"
              aria-haspopup="dialog"
              data-placeholder
              onClick={press('connect')}
            >
              Select Wallet
            </button>
          </div>
          <button
            type="button"
            className="button big buy-now"
            data-placeholder
            disabled={!ready}
            aria-busy={pending === 'buy'}
            onClick={press('buy')}
          >
            {ready ? 'Buy Now' : 'Loading Price...'}
          </button>
        </div>
      )}
    </div>
  );
}
