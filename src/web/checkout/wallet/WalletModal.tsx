/**
 * The wallet modal, in place of @solana/wallet-adapter-react-ui's `WalletModalProvider`/`WalletModal`.
 * Same look (the library's classes and CSS, wallet-adapter-ui.css), same texts ('Connect a wallet on Solana to
 * continue', 'Detected', 'More options', "You'll need a wallet on Solana to continue", 'Already have a wallet?
 * View options'), same behaviour (Escape and the overlay close it after the 150 ms fade, choosing a wallet selects
 * it), plus what the library lacks:
 * - an accessible name (`aria-labelledby` points at the title, which the library's never had an id for);
 * - a named close button ('Close');
 * - a focus trap: focus moves into the dialog on open (the first wallet, else its first control) and Tab /
 *   Shift+Tab cycle through its controls only; focus that escapes (a click outside) is brought back;
 * - focus return: on close, focus goes back to the control that opened it (Select Wallet or Buy Now), or to the
 *   wallet button when that control is gone.
 * It provides the library's own `WalletModalContext`, so the library's `WalletMultiButton` opens this modal.
 *
 * Which wallets: every wallet the adapter knows (Phantom's adapter and each Wallet Standard wallet the browser
 * registered), Phantom first, detected ones before the rest; wallets that report `Unsupported` (the stand-in for
 * Android's Mobile Wallet Adapter, vendor/wallet-adapter-mobile-absent) are never listed. On a phone with no
 * wallet in the browser, the modal offers to open this page in Phantom's in-app browser (its universal browse link)
 * and, one tap away, the store's QR / payment-link path for the same order.
 */
import { WalletReadyState, type WalletName } from '@solana/wallet-adapter-base';
import { useWallet, type Wallet } from '@solana/wallet-adapter-react';
import { WalletModalContext } from '@solana/wallet-adapter-react-ui';
import {
  createContext,
  useCallback,
  useContext,
  useEffect,
  useLayoutEffect,
  useMemo,
  useRef,
  useState,
  type MouseEvent as ReactMouseEvent,
  type ReactNode,
} from 'react';
import { createPortal } from 'react-dom';

export const PHANTOM_NAME = 'Phantom';
const MOBILE_WALLET_ADAPTER_NAME = 'Mobile Wallet Adapter';
const FADE_MS = 150;

/** Phantom's universal link that opens `pageUrl` in Phantom's in-app browser (docs.phantom.com, "browse"). */
export function phantomBrowseUrl(pageUrl: string, origin: string): string {
  return `https://phantom.app/ul/browse/${encodeURIComponent(pageUrl)}?ref=${encodeURIComponent(origin)}`;
}

/** A phone or tablet: a touch screen whose main pointer is coarse (no hover). */
export function isTouchDevice(): boolean {
  if (typeof window === 'undefined' || typeof window.matchMedia !== 'function') return false;
  return window.matchMedia('(hover: none) and (pointer: coarse)').matches;
}

/** The wallets the modal lists, in order: Phantom first, then detected ones, then the rest; never unsupported. */
export function offeredWallets(wallets: readonly Wallet[]): Wallet[] {
  const rank = (w: Wallet) =>
    (w.adapter.name === PHANTOM_NAME ? 0 : 2) + (w.readyState === WalletReadyState.Installed ? 0 : 1);
  return wallets
    .filter(
      (w) => w.readyState !== WalletReadyState.Unsupported && w.adapter.name !== MOBILE_WALLET_ADAPTER_NAME,
    )
    .map((w, i) => ({ w, i }))
    .sort((a, b) => rank(a.w) - rank(b.w) || a.i - b.i)
    .map(({ w }) => w);
}

/** The "no wallet on this phone" alternatives the checkout offers in the modal. */
export interface PhoneOptions {
  /** Pays the order from a Solana Pay link / QR code instead (the page's own path); closes the modal first. */
  onPayByLink?: () => void;
}
const PhoneOptionsContext = createContext<{ current: PhoneOptions }>({ current: {} });

/** The checkout (inside the provider) sets what the phone paths do. */
export function usePhoneOptions(options: PhoneOptions): void {
  const holder = useContext(PhoneOptionsContext);
  useEffect(() => {
    holder.current = options;
  });
}

/** Like the library's WalletModalProvider (same context), with the accessible modal below. */
export function WalletModalProvider({ children }: { children: ReactNode }) {
  const phone = useRef<PhoneOptions>({});
  const [visible, setVisibleState] = useState(false);
  const opener = useRef<HTMLElement | null>(null);
  const setVisible = useCallback((open: boolean) => {
    if (open) {
      const active = document.activeElement;
      opener.current = active instanceof HTMLElement && active !== document.body ? active : null;
    }
    setVisibleState(open);
  }, []);
  const context = useMemo(() => ({ visible, setVisible }), [visible, setVisible]);
  const restoreFocus = useCallback(() => {
    const back = opener.current;
    opener.current = null;
    // The opener may have been replaced meanwhile (Select Wallet becomes the connected wallet's button).
    const target =
      back?.isConnected && !(back as HTMLButtonElement).disabled
        ? back
        : document.querySelector<HTMLElement>('.wallet-adapter-button-trigger');
    target?.focus();
  }, []);
  return (
    <WalletModalContext.Provider value={context}>
      <PhoneOptionsContext.Provider value={phone}>
        {children}
        {visible && <WalletModal onClose={() => setVisible(false)} onClosed={restoreFocus} />}
      </PhoneOptionsContext.Provider>
    </WalletModalContext.Provider>
  );
}

const FOCUSABLE = 'button:not([disabled]), a[href], [tabindex]:not([tabindex="-1"])';

function focusableIn(node: HTMLElement): HTMLElement[] {
  return Array.from(node.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
    (el) => el.tabIndex >= 0 && !el.closest('[hidden]') && el.getClientRects().length > 0,
  );
}

function WalletModal({ onClose, onClosed }: { onClose: () => void; onClosed: () => void }) {
  const ref = useRef<HTMLDivElement>(null);
  const { wallets, select } = useWallet();
  const phone = useContext(PhoneOptionsContext).current;
  const [expanded, setExpanded] = useState(false);
  const [fadeIn, setFadeIn] = useState(false);
  const [portal, setPortal] = useState<HTMLElement | null>(null);
  const closing = useRef(false);

  const [listed, collapsed] = useMemo(() => {
    const offered = offeredWallets(wallets);
    const installed = offered.filter((w) => w.readyState === WalletReadyState.Installed);
    const rest = offered.filter((w) => w.readyState !== WalletReadyState.Installed);
    // As the library: the detected wallets, the others under 'More options'; none detected: the others listed.
    return installed.length ? [installed, rest] : [rest, []];
  }, [wallets]);
  const onPhoneWithout = listed.length === 0 && isTouchDevice();

  const hide = useCallback(() => {
    if (closing.current) return;
    closing.current = true;
    setFadeIn(false);
    setTimeout(onClose, FADE_MS);
  }, [onClose]);
  const handleClose = useCallback(
    (event: ReactMouseEvent) => {
      event.preventDefault();
      hide();
    },
    [hide],
  );
  const choose = useCallback(
    (event: ReactMouseEvent, name: WalletName) => {
      select(name);
      handleClose(event);
    },
    [select, handleClose],
  );

  useLayoutEffect(() => setPortal(document.body), []);

  // Open: no page scrolling, fade in, focus into the dialog. Close (unmount): scrolling back, focus back.
  useLayoutEffect(() => {
    const { overflow } = window.getComputedStyle(document.body);
    const fade = setTimeout(() => setFadeIn(true), 0);
    document.body.style.overflow = 'hidden';
    return () => {
      clearTimeout(fade);
      document.body.style.overflow = overflow;
      onClosed();
    };
  }, [onClosed]);

  useEffect(() => {
    const node = ref.current;
    if (!node || !portal) return;
    const first =
      node.querySelector<HTMLElement>('.wallet-adapter-modal-list .wallet-adapter-button') ??
      node.querySelector<HTMLElement>('[data-autofocus]') ??
      focusableIn(node)[0];
    first?.focus();
  }, [portal]);

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      const node = ref.current;
      if (!node) return;
      if (event.key === 'Escape') {
        event.preventDefault();
        hide();
        return;
      }
      if (event.key !== 'Tab') return;
      const items = focusableIn(node);
      if (items.length === 0) return;
      const first = items[0] as HTMLElement;
      const last = items[items.length - 1] as HTMLElement;
      const active = document.activeElement;
      const inside = active instanceof Node && node.contains(active);
      if (event.shiftKey && (active === first || !inside)) {
        event.preventDefault();
        last.focus();
      } else if (!event.shiftKey && (active === last || !inside)) {
        event.preventDefault();
        first.focus();
      }
    };
    // Focus that leaves the dialog while it is open (a click outside, a script) is brought back.
    const onFocusIn = (event: FocusEvent) => {
      const node = ref.current;
      if (!node || closing.current) return;
      if (event.target instanceof Node && !node.contains(event.target)) focusableIn(node)[0]?.focus();
    };
    window.addEventListener('keydown', onKey);
    document.addEventListener('focusin', onFocusIn);
    return () => {
      window.removeEventListener('keydown', onKey);
      document.removeEventListener('focusin', onFocusIn);
    };
  }, [hide]);

  if (!portal) return null;

  const moreButton = (label: string) => (
    <button
      type="button"
      className="wallet-adapter-modal-list-more"
      aria-expanded={expanded}
      aria-controls="wallet-adapter-modal-collapse"
      onClick={() => setExpanded((e) => !e)}
    >
      <span>{label}</span>
      <svg
        width="13"
        height="7"
        viewBox="0 0 13 7"
        aria-hidden="true"
        className={expanded ? 'wallet-adapter-modal-list-more-icon-rotate' : ''}
      >
        <path d="M0.71418 1.626L5.83323 6.26188C5.91574 6.33657 6.0181 6.39652 6.13327 6.43762C6.24844 6.47872 6.37371 6.5 6.50048 6.5C6.62725 6.5 6.75252 6.47872 6.8677 6.43762C6.98287 6.39652 7.08523 6.33657 7.16774 6.26188L12.2868 1.626C12.7753 1.1835 12.3703 0.5 11.6195 0.5H1.37997C0.629216 0.5 0.224175 1.1835 0.71418 1.626Z" />
      </svg>
    </button>
  );
  const collapse = (items: Wallet[]) => (
    <div className="wallet-adapter-collapse" id="wallet-adapter-modal-collapse" hidden={!expanded}>
      <ul className="wallet-adapter-modal-list">
        {items.map((w) => (
          <WalletListItem key={w.adapter.name} wallet={w} onClick={(e) => choose(e, w.adapter.name)} />
        ))}
      </ul>
    </div>
  );

  return createPortal(
    <div
      aria-labelledby="wallet-adapter-modal-title"
      aria-modal="true"
      className={`wallet-adapter-modal ${fadeIn ? 'wallet-adapter-modal-fade-in' : ''}`}
      ref={ref}
      role="dialog"
    >
      <div className="wallet-adapter-modal-container">
        <div className="wallet-adapter-modal-wrapper">
          <button
            type="button"
            onClick={handleClose}
            className="wallet-adapter-modal-button-close"
            aria-label="Close"
          >
            <svg width="14" height="14" aria-hidden="true">
              <path d="M14 12.461 8.3 6.772l5.234-5.233L12.006 0 6.772 5.234 1.54 0 0 1.539l5.234 5.233L0 12.006l1.539 1.528L6.772 8.3l5.69 5.7L14 12.461z" />
            </svg>
          </button>
          {listed.length ? (
            <>
              <h1 className="wallet-adapter-modal-title" id="wallet-adapter-modal-title">
                Connect a wallet on Solana to continue
              </h1>
              <ul className="wallet-adapter-modal-list">
                {listed.map((w) => (
                  <WalletListItem
                    key={w.adapter.name}
                    wallet={w}
                    onClick={(e) => choose(e, w.adapter.name)}
                  />
                ))}
              </ul>
              {collapsed.length ? (
                <>
                  {moreButton(`${expanded ? 'Less' : 'More'} options`)}
                  {collapse(collapsed)}
                </>
              ) : null}
            </>
          ) : (
            <>
              <h1 className="wallet-adapter-modal-title" id="wallet-adapter-modal-title">
                You&apos;ll need a wallet on Solana to continue
              </h1>
              <div className="wallet-adapter-modal-middle">
                <WalletSvg />
                {onPhoneWithout && <PhonePaths phone={phone} onClose={hide} />}
              </div>
              {collapsed.length ? (
                <>
                  {moreButton(expanded ? 'Hide options' : 'Already have a wallet? View options')}
                  {collapse(collapsed)}
                </>
              ) : null}
            </>
          )}
        </div>
      </div>
      <div className="wallet-adapter-modal-overlay" onMouseDown={handleClose} />
    </div>,
    portal,
  );
}

/** A phone with no wallet in its browser: Phantom's in-app browser, or the payment link / QR one tap away. */
function PhonePaths({ phone, onClose }: { phone: PhoneOptions; onClose: () => void }) {
  const href = phantomBrowseUrl(window.location.href, window.location.origin);
  return (
    <div className="wallet-phone-paths" data-testid="phone-paths">
      <p className="wallet-phone-text">
        On a phone, open this page in the Phantom app to pay with your wallet.
      </p>
      <a className="wallet-adapter-modal-middle-button" href={href} data-autofocus>
        Open in Phantom
      </a>
      {phone.onPayByLink && (
        <button
          type="button"
          className="wallet-phone-link-button"
          onClick={() => {
            onClose();
            phone.onPayByLink?.();
          }}
        >
          Pay with another wallet app (payment link or QR code)
        </button>
      )}
    </div>
  );
}

function WalletListItem({ wallet, onClick }: { wallet: Wallet; onClick: (event: ReactMouseEvent) => void }) {
  return (
    <li>
      <button type="button" className="wallet-adapter-button" onClick={onClick}>
        <i className="wallet-adapter-button-start-icon">
          <img src={wallet.adapter.icon} alt="" />
        </i>
        {wallet.adapter.name}
        {wallet.readyState === WalletReadyState.Installed && <span>Detected</span>}
      </button>
    </li>
  );
}

const GRADIENT_STOPS: [string, string][] = [
  ['0', '#9945FF'],
  ['0.14', '#8A53F4'],
  ['0.42', '#6377D6'],
  ['0.79', '#24B0A7'],
  ['0.99', '#00D18C'],
  ['1', '#00D18C'],
];
const gradient = (id: string, x1: string, y1: string, x2: string, y2: string) => (
  <linearGradient id={id} x1={x1} y1={y1} x2={x2} y2={y2} gradientUnits="userSpaceOnUse">
    {GRADIENT_STOPS.map(([offset, color]) => (
      <stop key={offset} offset={offset} stopColor={color} />
    ))}
  </linearGradient>
);

/** The library's wallet picture (WalletSVG, Apache-2.0), decorative. */
function WalletSvg() {
  return (
    <svg width="97" height="96" viewBox="0 0 97 96" fill="none" aria-hidden="true">
      <circle cx="48.5" cy="48" r="48" fill="url(#wm-g0)" fillOpacity="0.1" />
      <circle cx="48.5" cy="48" r="47" stroke="url(#wm-g1)" strokeOpacity="0.4" strokeWidth="2" />
      <g clipPath="url(#wm-clip)">
        <path
          d="M65.5769 28.1523H31.4231C27.6057 28.1523 24.5 31.258 24.5 35.0754V60.9215C24.5 64.7389 27.6057 67.8446 31.4231 67.8446H65.5769C69.3943 67.8446 72.5 64.7389 72.5 60.9215V35.0754C72.5 31.258 69.3943 28.1523 65.5769 28.1523ZM69.7308 52.1523H59.5769C57.2865 52.1523 55.4231 50.289 55.4231 47.9985C55.4231 45.708 57.2864 43.8446 59.5769 43.8446H69.7308V52.1523ZM69.7308 41.0754H59.5769C55.7595 41.0754 52.6539 44.1811 52.6539 47.9985C52.6539 51.8159 55.7595 54.9215 59.5769 54.9215H69.7308V60.9215C69.7308 63.2119 67.8674 65.0754 65.5769 65.0754H31.4231C29.1327 65.0754 27.2692 63.212 27.2692 60.9215V35.0754C27.2692 32.785 29.1326 30.9215 31.4231 30.9215H65.5769C67.8673 30.9215 69.7308 32.7849 69.7308 35.0754V41.0754Z"
          fill="url(#wm-g2)"
        />
        <path
          d="M61.4231 46.6172H59.577C58.8123 46.6172 58.1924 47.2371 58.1924 48.0018C58.1924 48.7665 58.8123 49.3863 59.577 49.3863H61.4231C62.1878 49.3863 62.8077 48.7664 62.8077 48.0018C62.8077 47.2371 62.1878 46.6172 61.4231 46.6172Z"
          fill="url(#wm-g3)"
        />
      </g>
      <defs>
        {gradient('wm-g0', '3.41664', '98.0933', '103.05', '8.42498')}
        {gradient('wm-g1', '3.41664', '98.0933', '103.05', '8.42498')}
        {gradient('wm-g2', '25.9583', '68.7101', '67.2337', '23.7879')}
        {gradient('wm-g3', '58.3326', '49.4467', '61.0002', '45.4453')}
        <clipPath id="wm-clip">
          <rect width="48" height="48" fill="white" transform="translate(24.5 24)" />
        </clipPath>
      </defs>
    </svg>
  );
}
