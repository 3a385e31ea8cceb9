/**
 * The wallet picker, in the shop's style (./wallet-picker.css): a named modal dialog (the spec's texts: 'Connect
 * a wallet on Solana to continue', or "You'll need a wallet on Solana to continue" when none is found; 'Detected';
 * the collapsible 'More options'), a named close button, 44 px targets, focus moved in on open, kept inside (Tab,
 * Shift+Tab, focus that escapes is brought back) and returned on close by the provider, Escape and the overlay
 * close it after the spec's 150 ms fade.
 *
 * Order: the wallets this browser has (Phantom first), then Android's Mobile Wallet Adapter ("a wallet app on this
 * phone": under 'More options' when the browser has wallets of its own, listed when it has none). On a phone with no
 * wallet in its browser it also offers the phone paths: open this page in Phantom's in-app browser (its universal
 * browse link), and the store's own payment link / QR code for the same order.
 */
import {
  useCallback,
  useEffect,
  useLayoutEffect,
  useRef,
  useState,
  type MouseEvent as ReactMouseEvent,
} from 'react';
import { createPortal } from 'react-dom';
import './wallet-picker.css';
import { isDetected, MOBILE_WALLET_NAME, shortAddress, type Wallet } from '../lib/wallets';

const FADE_MS = 150;

/** What a wallet is called in the picker (the Mobile Wallet Adapter is a way to reach an app, not an app). */
export const walletLabel = (w: Wallet): string =>
  w.name === MOBILE_WALLET_NAME ? 'Use a wallet app on this phone' : w.name;

/** Phantom's universal link that opens `pageUrl` in Phantom's in-app browser (docs.phantom.com, "browse"). */
export function phantomBrowseUrl(pageUrl: string, origin: string): string {
  return `https://phantom.app/ul/browse/${encodeURIComponent(pageUrl)}?ref=${encodeURIComponent(origin)}`;
}

/** A phone or tablet: a touch screen whose main pointer is coarse (no hover). */
export function isTouchDevice(): boolean {
  if (typeof window === 'undefined' || typeof window.matchMedia !== 'function') return false;
  return window.matchMedia('(hover: none) and (pointer: coarse)').matches;
}

/** The checkout's alternatives on a phone whose browser has no wallet. */
export interface PhonePaths {
  /** Pays the order from a Solana Pay link / QR code instead (the page's own path); the picker closes first. */
  onPayByLink?: () => void;
}

const FOCUSABLE = 'button:not([disabled]), a[href], [tabindex]:not([tabindex="-1"])';

function focusableIn(node: HTMLElement): HTMLElement[] {
  return Array.from(node.querySelectorAll<HTMLElement>(FOCUSABLE)).filter(
    (el) => el.tabIndex >= 0 && !el.closest('[hidden]') && el.getClientRects().length > 0,
  );
}

export function WalletPicker({
  wallets,
  connected,
  onChoose,
  onDisconnect,
  onClosed,
  phonePaths,
}: {
  wallets: Wallet[];
  /** The wallet connected now (the picker then also offers to disconnect it). */
  connected: Wallet | null;
  onChoose: (wallet: Wallet) => void;
  onDisconnect: () => void;
  /** After the fade: the provider unmounts the picker and returns focus. */
  onClosed: () => void;
  phonePaths: PhonePaths | undefined;
}) {
  const ref = useRef<HTMLDivElement>(null);
  const [expanded, setExpanded] = useState(false);
  const [open, setOpen] = useState(false);
  const closing = useRef(false);

  const detected = wallets.filter(isDetected);
  const others = wallets.filter((w) => !isDetected(w));
  // The browser's own wallets listed, the rest under 'More options'; none of its own: the rest listed.
  const [listed, collapsed] = detected.length ? [detected, others] : [others, []];
  const noWalletHere = detected.length === 0 && isTouchDevice();

  const hide = useCallback(() => {
    if (closing.current) return;
    closing.current = true;
    setOpen(false);
    setTimeout(onClosed, FADE_MS);
  }, [onClosed]);
  const handleClose = useCallback(
    (event: ReactMouseEvent) => {
      event.preventDefault();
      hide();
    },
    [hide],
  );
  const choose = (w: Wallet) => {
    hide();
    onChoose(w);
  };

  // Open: no page scrolling, fade in, focus into the dialog (the first wallet, else its first control).
  useLayoutEffect(() => {
    const { overflow } = window.getComputedStyle(document.body);
    const fade = setTimeout(() => setOpen(true), 0);
    document.body.style.overflow = 'hidden';
    const node = ref.current;
    if (node) {
      const first =
        node.querySelector<HTMLElement>('.wallet-picker-list .wallet-picker-item') ??
        node.querySelector<HTMLElement>('[data-autofocus]') ??
        focusableIn(node)[0];
      first?.focus();
    }
    return () => {
      clearTimeout(fade);
      document.body.style.overflow = overflow;
    };
  }, []);

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

  const list = (items: Wallet[]) => (
    <ul className="wallet-picker-list">
      {items.map((w) => (
        <li key={w.name}>
          <button type="button" className="wallet-picker-item" onClick={() => choose(w)}>
            <img src={w.icon} alt="" width="28" height="28" />
            <span className="wallet-picker-name">{walletLabel(w)}</span>
            {isDetected(w) && <span className="wallet-picker-detected">Detected</span>}
          </button>
        </li>
      ))}
    </ul>
  );
  const more = (label: string) => (
    <>
      <button
        type="button"
        className="wallet-picker-more"
        aria-expanded={expanded}
        aria-controls="wallet-picker-more"
        onClick={() => setExpanded((e) => !e)}
      >
        {label}
      </button>
      <div id="wallet-picker-more" hidden={!expanded}>
        {list(collapsed)}
      </div>
    </>
  );

  return createPortal(
    <div
      aria-labelledby="wallet-picker-title"
      aria-modal="true"
      className={`wallet-picker${open ? ' is-open' : ''}`}
      ref={ref}
      role="dialog"
    >
      <div className="wallet-picker-overlay" onMouseDown={handleClose} />
      <div className="wallet-picker-panel">
        <button type="button" onClick={handleClose} className="wallet-picker-close" aria-label="Close">
          <svg width="14" height="14" viewBox="0 0 14 14" aria-hidden="true">
            <path d="M14 12.461 8.3 6.772l5.234-5.233L12.006 0 6.772 5.234 1.54 0 0 1.539l5.234 5.233L0 12.006l1.539 1.528L6.772 8.3l5.69 5.7L14 12.461z" />
          </svg>
        </button>
        <h2 className="wallet-picker-title" id="wallet-picker-title">
          {listed.length
            ? 'Connect a wallet on Solana to continue'
            : "You'll need a wallet on Solana to continue"}
        </h2>
        {listed.length > 0 && list(listed)}
        {collapsed.length > 0 && more(`${expanded ? 'Less' : 'More'} options`)}
        {noWalletHere && <PhonePathsView paths={phonePaths} onClose={hide} afterList={listed.length > 0} />}
        {connected && (
          <button
            type="button"
            className="wallet-picker-disconnect"
            onClick={() => {
              hide();
              onDisconnect();
            }}
          >
            Disconnect {walletLabel(connected)}
            {connected.accounts[0] ? ` (${shortAddress(connected.accounts[0].address)})` : ''}
          </button>
        )}
      </div>
    </div>,
    document.body,
  );
}

/** A phone with no wallet in its browser: Phantom's in-app browser, or the payment link / QR one tap away. */
function PhonePathsView({
  paths,
  onClose,
  afterList,
}: {
  paths: PhonePaths | undefined;
  onClose: () => void;
  /** Below the phone's wallet app (Android): an alternative, not the only way. */
  afterList: boolean;
}) {
  const href = phantomBrowseUrl(window.location.href, window.location.origin);
  return (
    <div className="wallet-phone-paths" data-testid="phone-paths">
      <p className="wallet-phone-text">
        {afterList
          ? 'Or open this page in the Phantom app to pay with your wallet there.'
          : 'On a phone, open this page in the Phantom app to pay with your wallet.'}
      </p>
      <a className="button wallet-phone-button" href={href} data-autofocus>
        Open in Phantom
      </a>
      {paths?.onPayByLink && (
        <button
          type="button"
          className="button secondary wallet-phone-button"
          onClick={() => {
            onClose();
            paths.onPayByLink?.();
          }}
        >
          Pay with another wallet app (payment link or QR code)
        </button>
      )}
    </div>
  );
}
