/**
 * Wallet checkout (Phantom), spec §4 "Wallet purchase flow". Default export: loaded lazily by the product page,
 * so @solana/web3.js, spl-token and the wallet adapter (and its modal's CSS) live in this chunk only.
 *
 * Buy Now: check the form → Phantom present and connected (through the adapter; the library's modal when the
 * adapter cannot connect directly) → the server records the order (quote, then POST /api/orders with an
 * Idempotency-Key kept per attempt) → pay it on chain (./pay.ts) → tell the server the signature → poll the
 * order until the server has verified the payment and delivered both e-mails.
 */
import '../../lib/wallet-adapter-ui.css';
import '../../lib/buffer-global';
import { WalletReadyState, type Adapter } from '@solana/wallet-adapter-base';
import { PhantomWalletAdapter } from '@solana/wallet-adapter-phantom';
import { ConnectionProvider, useConnection, useWallet, WalletProvider } from '@solana/wallet-adapter-react';
import { useWalletModal, WalletMultiButton } from '@solana/wallet-adapter-react-ui';
import { PublicKey } from '@solana/web3.js';
import { useCallback, useMemo, useRef, useState } from 'react';
import type { OrderCreated, PublicConfig, QuoteResponse, Shipping } from '../../../core/api';
import { useConfig } from '../../api/config';
import { ApiRequestError } from '../../lib/call';
import { getOrder, newIdempotencyKey } from '../shared/order-api';
import { createOrder, requestQuote } from './api';
import { storedReferrer } from '../../lib/referral';
import type { CheckoutProps } from '../types';
import {
  CONFIRMATION_FAILED,
  CONFIRMATION_SENT,
  DECLINED_NOTE,
  flowFailed,
  MAIL_PENDING_NOTE,
  NO_PHANTOM,
  NO_TOKEN_ACCOUNT,
  paymentSuccessful,
  plainError,
  SELLER_ACCOUNT_NOTE,
  shortfallText,
} from './messages';
import {
  clearOpenOrder,
  inputHash,
  loadOpenOrder,
  orderPathOf,
  saveOpenOrder,
  type OpenOrder,
} from './open-order';
import { OrderStatusPanel, useOrderStatus } from './OrderStatus';
import { sendPaymentHint, waitForConfirmation } from './api';
import { CheckoutStop, payOrder, preflight, targetOf } from './pay';
import type { Shortfall } from './shortfall';
import { paths } from '../../../core/routes';
import {
  isTouchDevice,
  offeredWallets,
  PHANTOM_NAME,
  usePhoneOptions,
  WalletModalProvider,
} from './WalletModal';

/** What a quote or an order asks to be paid (both carry these). */
type Payable = Pick<QuoteResponse, 'mint' | 'recipient' | 'amountBaseUnits'>;

/** Stops the purchase before any order is created: the wallet lacks something (shown next to Buy Now). */
class ShortfallStop extends Error {
  override name = 'ShortfallStop';
  constructor(readonly shortfall: Shortfall) {
    super(shortfall.kind);
  }
}

/** How long the page waits for the server to verify the payment and deliver both e-mails before it says so. */
const CONFIRMATION_TIMEOUT_MS = 30_000;

function LoadingButton() {
  return (
    <button type="button" className="button big buy-now" disabled>
      Loading Price...
    </button>
  );
}

export default function WalletPay(props: CheckoutProps) {
  const config = useConfig();
  // Phantom's adapter when its injected provider is there; WalletProvider adds every Wallet Standard wallet the
  // browser registers (issue 14). With none, the modal says "You'll need a wallet on Solana to continue" (spec §2)
  // instead of listing an undetected Phantom.
  const wallets = useMemo(() => (phantomInjected() ? [new PhantomWalletAdapter()] : []), []);
  // Errors are reported by the flow itself (alerts, inline notes); the provider's default logs them instead.
  const onError = useCallback(() => undefined, []);
  if (config.status === 'loading') return <LoadingButton />;
  if (config.status === 'failed') {
    return (
      <div className="pay">
        <LoadingButton />
        <p className="error">The store settings could not be loaded. Please reload the page.</p>
      </div>
    );
  }
  return (
    <ConnectionProvider
      endpoint={config.config.rpcUrl}
      config={{ commitment: 'confirmed', wsEndpoint: config.config.wsUrl }}
    >
      <WalletProvider wallets={wallets} autoConnect onError={onError}>
        <WalletModalProvider>
          <WalletCheckout {...props} config={config.config} />
        </WalletModalProvider>
      </WalletProvider>
    </ConnectionProvider>
  );
}

/** Spec §5: Phantom's injected provider. */
function phantomInjected(): boolean {
  const w = window as { phantom?: { solana?: { isPhantom?: boolean } } };
  return w.phantom?.solana?.isPhantom === true;
}

/** Connects the adapter (or waits for a connection already under way). */
function connectAdapter(adapter: Adapter): Promise<PublicKey> {
  if (adapter.connected && adapter.publicKey) return Promise.resolve(adapter.publicKey);
  return new Promise<PublicKey>((resolve, reject) => {
    const done = () => {
      adapter.off('connect', onConnect);
      adapter.off('error', onFail);
    };
    const onConnect = (pk: PublicKey) => {
      done();
      resolve(pk);
    };
    const onFail = (err: unknown) => {
      done();
      reject(err instanceof Error ? err : new Error(String(err)));
    };
    adapter.on('connect', onConnect);
    adapter.on('error', onFail);
    adapter.connect().then(() => {
      if (adapter.connected && adapter.publicKey) onConnect(adapter.publicKey);
    }, onFail);
  });
}

/** A declined wallet request: Phantom's code 4001, wrapped by the adapter (WalletSendTransactionError etc.). */
function isUserRejection(err: unknown): boolean {
  const e = err as { code?: unknown; error?: { code?: unknown }; message?: unknown };
  return (
    e.code === 4001 ||
    e.error?.code === 4001 ||
    (typeof e.message === 'string' && /user rejected/i.test(e.message))
  );
}

function referrer(): string | undefined {
  try {
    return storedReferrer(window.localStorage);
  } catch {
    return undefined;
  }
}

/** One order attempt: the same inputs reuse the key and quote (a retry replays) and, once made, the order. */
interface Attempt {
  fingerprint: string;
  key: string;
  quote?: QuoteResponse;
  order?: OrderCreated;
}

function WalletCheckout({
  product,
  variantId,
  quantity,
  claimBaseUnits,
  validateShipping,
  startOver,
  config,
}: CheckoutProps & { config: PublicConfig }) {
  const { connection } = useConnection();
  const { wallets, wallet, select } = useWallet();
  const { setVisible } = useWalletModal();
  const [busy, setBusy] = useState(false);
  const busyRef = useRef(false);
  const [note, setNote] = useState<string | null>(null);
  const [shortfall, setShortfall] = useState<Shortfall | null>(null);
  const [initial] = useState(() => {
    const open = loadOpenOrder(product.id);
    // A reload keeps the unpaid order's attempt, so Buy Now with the same inputs pays that order (no second one).
    const attempt: Attempt | null =
      open?.unpaid && !open.signature
        ? { fingerprint: open.unpaid.inputHash, key: open.unpaid.key, order: open.unpaid.order }
        : null;
    return { open, attempt };
  });
  const [openOrder, setOpenOrder] = useState<OpenOrder | null>(initial.open);
  const [kick, setKick] = useState(0);
  const [focusStatus, setFocusStatus] = useState(false);
  const view = useOrderStatus(openOrder?.orderId ?? null, kick);
  // Finished: a transfer was sent from this page, or the server has a payment for the open order. Buy Now then
  // gives way to "Buy another", so a repeated click can never pay a second time.
  const finished =
    Boolean(openOrder?.signature) ||
    (view.status === 'known' &&
      view.order.orderId === openOrder?.orderId &&
      view.order.status !== 'awaiting_payment' &&
      view.order.status !== 'expired');
  const attemptRef = useRef<Attempt | null>(initial.attempt);
  const ready = claimBaseUnits !== null && claimBaseUnits > 0n;

  const remember = useCallback(
    (o: OpenOrder) => {
      saveOpenOrder(product.id, o);
      setOpenOrder(o);
    },
    [product.id],
  );

  /**
   * Step 2: a wallet connected — the one chosen in the modal, else Phantom, else the only wallet the browser has.
   * Null when the buyer has to choose in the modal first (several wallets, none chosen).
   */
  const ensureConnected = async (): Promise<{ adapter: Adapter; buyer: PublicKey } | null> => {
    const usable = offeredWallets(wallets).filter((w) => w.readyState === WalletReadyState.Installed);
    const chosen =
      usable.find((w) => w.adapter.name === wallet?.adapter.name) ??
      usable.find((w) => w.adapter.name === PHANTOM_NAME) ??
      (usable.length === 1 ? usable[0] : undefined);
    if (!chosen) {
      setVisible(true);
      setNote('Choose your wallet in the window that opened, then click Buy Now again.');
      return null;
    }
    if (wallet?.adapter.name !== chosen.adapter.name) select(chosen.adapter.name);
    const buyer = await connectAdapter(chosen.adapter);
    return { adapter: chosen.adapter, buyer };
  };

  /** The server records the order before any money moves. */
  const ensureOrder = async (
    shipping: Shipping,
    qty: number,
    check: (what: Payable) => Promise<void>,
  ): Promise<OrderCreated> => {
    const fingerprint = inputHash(
      JSON.stringify({ p: product.id, v: variantId ?? null, q: qty, s: shipping }),
    );
    let a = attemptRef.current;
    if (a?.order && a.fingerprint === fingerprint) {
      // Paying the same order again after a decline or a failure: only while it still awaits payment.
      if (Date.parse(a.order.expiresAt) - Date.now() > 60_000) {
        const now = await getOrder(a.order.orderId).catch(() => null);
        if (now?.status === 'awaiting_payment') {
          await check(a.order);
          return a.order;
        }
      }
      a = null;
    }
    if (
      !a ||
      a.fingerprint !== fingerprint ||
      (a.quote && Date.parse(a.quote.expiresAt) - Date.now() < 30_000)
    ) {
      a = { fingerprint, key: newIdempotencyKey() };
    }
    attemptRef.current = a;
    try {
      a.quote ??= await requestQuote({
        items: [{ productId: product.id, ...(variantId ? { variantId } : {}), quantity: qty }],
      });
      // The wallet's balances against the quote's exact amount, before the order exists.
      await check(a.quote);
      const ref = referrer();
      a.order = await createOrder(
        { quote: a.quote.quote, shipping, paymentMethod: 'wallet', ...(ref ? { referrer: ref } : {}) },
        a.key,
      );
    } catch (err) {
      // A refusal will not change on a replay: start the next attempt afresh. A network failure keeps the key.
      if (err instanceof ApiRequestError && err.status !== 0) attemptRef.current = null;
      if (err instanceof ShortfallStop || err instanceof CheckoutStop) a.quote = undefined; // re-quote next time
      throw err;
    }
    if (a.order.mint !== config.claimMint)
      throw new Error('the order names a different token mint than this store');
    return a.order;
  };

  const onBuy = async () => {
    if (busyRef.current || !ready || quantity === null) return;
    const shipping = validateShipping();
    if (!shipping) return;
    if (!offeredWallets(wallets).some((w) => w.readyState === WalletReadyState.Installed)) {
      // A phone without a wallet in its browser: the modal offers Phantom's in-app browser and the payment link.
      // A desktop with no wallet at all: the spec's alert.
      if (isTouchDevice()) setVisible(true);
      else window.alert(NO_PHANTOM);
      return;
    }
    busyRef.current = true;
    setBusy(true);
    setNote(null);
    setShortfall(null);
    let sent = false;
    try {
      const conn = await ensureConnected();
      if (!conn) return;
      const check = async (what: Payable) => {
        if (what.mint !== config.claimMint)
          throw new Error('the store named a different token mint than its settings');
        const lack = await preflight(connection, conn.buyer, {
          mint: new PublicKey(what.mint),
          recipient: new PublicKey(what.recipient),
          amountBaseUnits: BigInt(what.amountBaseUnits),
        });
        if (lack?.kind === 'no-token-account') throw new CheckoutStop(NO_TOKEN_ACCOUNT);
        if (lack) throw new ShortfallStop(lack);
      };
      const order = await ensureOrder(shipping, quantity, check);
      setFocusStatus(true);
      const attempt = attemptRef.current;
      const orderPath = orderPathOf(order.orderUrl);
      remember({
        orderId: order.orderId,
        savedAt: Date.now(),
        ...(orderPath ? { orderPath } : {}),
        ...(attempt ? { unpaid: { inputHash: attempt.fingerprint, key: attempt.key, order } } : {}),
      });
      const signature = await payOrder(
        {
          connection,
          adapter: conn.adapter,
          buyer: conn.buyer,
          onStep: (step) => {
            // The extra approval is announced before Phantom asks for it.
            if (step === 'create-seller-account') setNote(SELLER_ACCOUNT_NOTE);
          },
          onSent: (sig) => {
            sent = true;
            attemptRef.current = null; // this order is paid for: never send for it again
            remember({
              orderId: order.orderId,
              signature: sig,
              savedAt: Date.now(),
              ...(orderPath ? { orderPath } : {}),
            });
            sendPaymentHint(order.orderId, sig).catch(() => undefined); // a hint: the watcher finds it anyway
          },
        },
        targetOf(order),
      );
      setKick((k) => k + 1);
      window.alert(paymentSuccessful(order.amount, signature));
      const outcome = await waitForConfirmation(order.orderId, CONFIRMATION_TIMEOUT_MS);
      setKick((k) => k + 1);
      if (outcome.delivered) {
        window.alert(CONFIRMATION_SENT);
      } else {
        window.alert(CONFIRMATION_FAILED);
        setNote(MAIL_PENDING_NOTE);
      }
    } catch (err) {
      console.warn('Wallet checkout stopped:', err); // the raw detail, for support; the buyer reads plain words
      if (err instanceof ShortfallStop) {
        setShortfall(err.shortfall);
      } else if (err instanceof CheckoutStop) {
        window.alert(err.message);
        if (err.message === NO_TOKEN_ACCOUNT) setShortfall({ kind: 'no-token-account' });
      } else {
        window.alert(flowFailed(plainError(err, sent)));
        if (!sent && isUserRejection(err)) setNote(DECLINED_NOTE);
      }
      setKick((k) => k + 1);
    } finally {
      busyRef.current = false;
      setBusy(false);
    }
  };

  /**
   * A phone with no wallet in its browser (from the modal): the order is recorded as for Buy Now, and the column
   * shows its Solana Pay link (opens any wallet app on the phone) and QR code (another device), with the time
   * left. The server's watcher finds the payment by the order's reference, as for every order. No wallet is read,
   * so there are no balance checks: the wallet app shows what is missing itself.
   */
  const onPayByLink = async () => {
    if (busyRef.current || !ready || quantity === null) return;
    const shipping = validateShipping();
    if (!shipping) return;
    busyRef.current = true;
    setBusy(true);
    setNote(null);
    setShortfall(null);
    try {
      const order = await ensureOrder(shipping, quantity, () => Promise.resolve());
      const attempt = attemptRef.current;
      const orderPath = orderPathOf(order.orderUrl);
      remember({
        orderId: order.orderId,
        savedAt: Date.now(),
        ...(orderPath ? { orderPath } : {}),
        payLink: order.solanaPayUrl,
        ...(attempt ? { unpaid: { inputHash: attempt.fingerprint, key: attempt.key, order } } : {}),
      });
      setFocusStatus(true);
      setKick((k) => k + 1);
    } catch (err) {
      console.warn('Payment link checkout stopped:', err);
      window.alert(flowFailed(plainError(err, false)));
    } finally {
      busyRef.current = false;
      setBusy(false);
    }
  };
  usePhoneOptions({ onPayByLink: () => void onPayByLink() });

  /** A new purchase: the finished order leaves the column, the form is cleared and takes focus. */
  const onBuyAnother = () => {
    if (busyRef.current) return;
    clearOpenOrder(product.id);
    attemptRef.current = null;
    setOpenOrder(null);
    setNote(null);
    setFocusStatus(false);
    startOver?.();
  };

  return (
    <div className="pay">
      <div className="wallet-connect">
        <WalletMultiButton />
      </div>
      {finished ? (
        <button
          type="button"
          className="button big buy-another"
          disabled={busy}
          aria-busy={busy}
          onClick={onBuyAnother}
        >
          Buy another
        </button>
      ) : (
        // While busy the button stays focusable (aria-disabled, the handler ignores clicks), so keyboard focus is
        // not dropped to the page; it moves to the order status once the order exists.
        <button
          type="button"
          className="button big buy-now"
          disabled={!ready}
          aria-disabled={busy || undefined}
          aria-busy={busy}
          onClick={() => void onBuy()}
        >
          {!ready ? 'Loading Price...' : busy ? 'Processing...' : 'Buy Now'}
        </button>
      )}
      {shortfall && (
        <p className="error checkout-problem" role="alert" data-testid="checkout-problem">
          {shortfallText(shortfall)} <a href={paths.guide}>How to get $CLAIM and SOL (guide)</a>
        </p>
      )}
      {note && (
        <p className="note checkout-note" role="status" data-testid="checkout-note">
          {note}
        </p>
      )}
      <OrderStatusPanel
        view={view}
        config={config}
        paymentSent={Boolean(openOrder?.signature)}
        focus={focusStatus}
        orderPath={openOrder?.orderPath}
        payLink={openOrder?.payLink}
      />
    </div>
  );
}
