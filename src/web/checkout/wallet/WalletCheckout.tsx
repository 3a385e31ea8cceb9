/**
 * The wallet checkout's column: Buy Now: check the form → a wallet present and connected (a Wallet Standard
 * wallet: the one chosen in the picker, else Phantom, else the browser's only wallet; the picker when it must be
 * chosen) → the server records the order (attempt.ts: quote, then
 * POST /api/orders with an Idempotency-Key kept per attempt) → pay it on chain (./pay.ts) → tell the server the
 * signature → poll the order until the server has verified the payment and delivered both e-mails.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import type { PublicConfig, Shipping } from '../../../core/api';
import { paths } from '../../../core/routes';
import { storedReferrer } from '../../lib/referral';
import { getOrder, newIdempotencyKey } from '../shared/order-api';
import type { CheckoutProps } from '../types';
import { ApiRequestError } from '../../lib/call';
import { createOrder, payoutAccountOf, requestQuote, sendPaymentHint, waitForConfirmation } from './api';
import { OrderAttempt, type Attempt, type Payable } from './attempt';
import { isUserRejection, proveWallet } from './connect';
import type { PayerProof } from '../../../core/hold-proof';
import {
  CONFIRMATION_FAILED,
  CONFIRMATION_SENT,
  DECLINED,
  DECLINED_NOTE,
  flowFailed,
  MAIL_PENDING_NOTE,
  MOBILE_WALLET_NOT_FOUND,
  NO_PHANTOM,
  NOT_SIGNED_NOTE,
  NO_TOKEN_ACCOUNT,
  payLinkRefused,
  paymentSuccessful,
  plainError,
  SELLER_ACCOUNT_NOTE,
  shortfallText,
} from './messages';
import { clearOpenOrder, loadOpenOrder, orderPathOf, saveOpenOrder, type OpenOrder } from './open-order';
import { OrderStatusPanel, useOrderStatus } from './OrderStatus';
import { showsReceipt } from '../shared/receipt';
import { payOrder, preflight, targetOf } from './pay';
import { CheckoutStop, ShortfallStop, type Shortfall } from './stops';
import { useWalletHandlers, useWalletSession, type Connected } from '../../components/WalletSession';
import { isTouchDevice } from '../../components/WalletPicker';
import { onMobileWalletNotFound } from '../../lib/mobile-wallet';
import { solanaRpc } from '../../lib/solana-rpc';
import { address } from '../../lib/wallet-tx';
import { chainOf, isDetected, PHANTOM_NAME, shortAddress } from '../../lib/wallets';

/** How long the page waits for the server to verify the payment and deliver both e-mails before it says so. */
const CONFIRMATION_TIMEOUT_MS = 30_000;

function referrer(): string | undefined {
  try {
    return storedReferrer(window.localStorage);
  } catch {
    return undefined;
  }
}

export function WalletCheckout({
  product,
  variantId,
  quantity,
  claimBaseUnits,
  validateShipping,
  startOver,
  refreshStock,
  orderPlaced,
  quantityProblem,
  nothingLeft,
  paidChanged,
  config,
  vendor,
}: CheckoutProps & { config: PublicConfig }) {
  const { wallets, wallet, account, connecting, openPicker, connect } = useWalletSession();
  const rpc = useMemo(() => solanaRpc(config.rpcUrl), [config.rpcUrl]);
  const chain = chainOf(config.cluster);
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
  const view = useOrderStatus(
    openOrder?.orderId ?? null,
    kick,
    /^\/order\/([0-9a-f]{32})$/.exec(openOrder?.orderPath ?? '')?.[1] ?? '',
  );
  // Finished: a transfer was sent from this page, or the server has a payment for the open order. Buy Now then
  // gives way to "Buy another", so a repeated click can never pay a second time.
  const finished =
    Boolean(openOrder?.signature) ||
    (view.status === 'known' &&
      view.order.orderId === openOrder?.orderId &&
      view.order.status !== 'awaiting_payment' &&
      view.order.status !== 'expired');
  const ownPaid =
    view.status === 'known' && view.order.orderId === openOrder?.orderId && showsReceipt(view.order);
  useEffect(() => {
    paidChanged?.(ownPaid);
    // Paid (also from another device, by the payment link): the page is current, stock re-read at once.
    if (ownPaid) refreshStock?.();
  }, [ownPaid, paidChanged, refreshStock]);
  // The order attempt survives re-renders (and a reload, through the open order's `unpaid`).
  const [attempts] = useState(
    () =>
      new OrderAttempt(
        { requestQuote, createOrder, getOrder, newKey: newIdempotencyKey, now: () => Date.now() },
        initial.attempt,
      ),
  );
  /** The server records the order before any money moves (attempt.ts decides which order that is). */
  const ensureOrder = (
    shipping: Shipping,
    qty: number,
    check: (what: Payable) => Promise<void>,
    prove?: (reference: string) => Promise<PayerProof | undefined>,
    wallet?: string,
  ) =>
    attempts.ensure({
      productId: product.id,
      variantId,
      quantity: qty,
      shipping,
      referrer: referrer(),
      mint: config.claimMint,
      check,
      ...(prove ? { prove } : {}),
      ...(wallet ? { wallet } : {}),
    });
  const priced = claimBaseUnits !== null && claimBaseUnits > 0n;
  // Above the stock (or not a number): Buy Now waits for a quantity that can be bought.
  const ready = priced && !quantityProblem;

  const remember = useCallback(
    (o: OpenOrder) => {
      saveOpenOrder(product.id, o);
      setOpenOrder(o);
    },
    [product.id],
  );

  /**
   * Step 2: a wallet connected — the one chosen in the picker, else Phantom, else the only wallet the browser has
   * (Android's Mobile Wallet Adapter is only ever used when chosen). Null when the buyer has to choose in the picker
   * first (several wallets, or only the phone's wallet app, none chosen).
   */
  const ensureConnected = async (): Promise<Connected | null> => {
    const inBrowser = wallets.filter(isDetected);
    const chosen =
      (wallet && wallets.includes(wallet) ? wallet : undefined) ??
      inBrowser.find((w) => w.name === PHANTOM_NAME) ??
      (inBrowser.length === 1 ? inBrowser[0] : undefined);
    if (!chosen) {
      openPicker();
      setNote('Choose your wallet in the window that opened, then click Buy Now again.');
      return null;
    }
    if (chosen === wallet && account) return { wallet: chosen, account };
    return connect(chosen);
  };

  const onBuy = async () => {
    if (busyRef.current || !ready || quantity === null) return;
    const shipping = validateShipping();
    if (!shipping) return;
    if (wallets.length === 0) {
      // A phone without a wallet in its browser: the picker offers Phantom's in-app browser and the payment link.
      // A desktop with no wallet at all: the spec's alert.
      if (isTouchDevice()) openPicker();
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
        const lack = await preflight(rpc, address(conn.account.address), {
          mint: address(what.mint),
          recipient: address(what.recipient),
          amountBaseUnits: BigInt(what.amountBaseUnits),
        });
        if (lack?.kind === 'no-token-account') throw new CheckoutStop(NO_TOKEN_ACCOUNT);
        if (lack) throw new ShortfallStop(lack);
      };
      const order = await ensureOrder(
        shipping,
        quantity,
        check,
        (reference) => proveWallet(conn.wallet, conn.account, reference),
        conn.account.address,
      );
      // Not reserved (the wallet's $CLAIM did not cover it beside its other reserved orders, or could not be
      // checked): said in plain words; the payment still buys the piece if nobody else has.
      if (order.held === false && order.holdNote) setNote(order.holdNote);
      orderPlaced?.();
      setFocusStatus(true);
      const attempt = attempts.current;
      const orderPath = orderPathOf(order.orderUrl);
      remember({
        orderId: order.orderId,
        savedAt: Date.now(),
        ...(orderPath ? { orderPath } : {}),
        ...(attempt ? { unpaid: { inputHash: attempt.fingerprint, key: attempt.key, order } } : {}),
      });
      const signature = await payOrder(
        {
          rpc,
          wallet: conn.wallet,
          account: conn.account,
          chain,
          onStep: (step) => {
            // The extra approval is announced before Phantom asks for it.
            if (step === 'create-seller-account') setNote(SELLER_ACCOUNT_NOTE);
          },
          onSent: (sig) => {
            sent = true;
            attempts.paid(); // this order is paid for: never send for it again
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
      // One alert after success (the status panel, which has focus, shows the progress meanwhile).
      const outcome = await waitForConfirmation(order.orderId, CONFIRMATION_TIMEOUT_MS);
      setKick((k) => k + 1);
      if (outcome.delivered) {
        window.alert(`${paymentSuccessful(order.amount, signature)}\n${CONFIRMATION_SENT}`);
      } else {
        window.alert(`${paymentSuccessful(order.amount, signature)}\n${CONFIRMATION_FAILED}`);
        setNote(MAIL_PENDING_NOTE);
      }
    } catch (err) {
      console.warn('Wallet checkout stopped:', err); // the raw detail, for support; the buyer reads plain words
      if (err instanceof ShortfallStop) {
        setShortfall(err.shortfall);
      } else if (err instanceof CheckoutStop) {
        window.alert(err.message);
        if (err.message === NO_TOKEN_ACCOUNT) setShortfall({ kind: 'no-token-account' });
      } else if (!sent && isUserRejection(err)) {
        // Business refusals are plain sentences: declined in the wallet, refused or unreachable shop.
        window.alert(DECLINED);
        setNote(attempts.current?.order ? DECLINED_NOTE : NOT_SIGNED_NOTE);
      } else if (err instanceof ApiRequestError) {
        window.alert(plainError(err, sent));
      } else {
        // Truly unexpected: the spec's text.
        window.alert(flowFailed(plainError(err, sent)));
      }
      setKick((k) => k + 1);
    } finally {
      busyRef.current = false;
      setBusy(false);
      // After any purchase or refusal the page is current: stock re-read at once.
      refreshStock?.();
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
      // No payment link or QR to a vendor whose token account does not exist (standard wallets cannot pay it).
      const payout = await payoutAccountOf(product.vendorId);
      if (payout.state !== 'exists') {
        window.alert(payLinkRefused(payout.message, payout.state === 'missing'));
        return;
      }
      const order = await ensureOrder(shipping, quantity, () => Promise.resolve());
      const attempt = attempts.current;
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
      window.alert(
        err instanceof ApiRequestError ? plainError(err, false) : flowFailed(plainError(err, false)),
      );
    } finally {
      busyRef.current = false;
      setBusy(false);
    }
  };
  useWalletHandlers({
    phonePaths: { onPayByLink: () => void onPayByLink() },
    // A wallet chosen in the picker did not connect: a decline needs no words; anything else does.
    onConnectError: (err) => {
      if (!isUserRejection(err)) setNote(plainError(err, false));
    },
  });
  // Android: the protocol found no wallet app on the phone.
  useEffect(() => onMobileWalletNotFound(() => setNote(MOBILE_WALLET_NOT_FOUND)), []);

  /** A new purchase: the finished order leaves the column, the form is cleared and takes focus. */
  const onBuyAnother = () => {
    if (busyRef.current) return;
    clearOpenOrder(product.id);
    attempts.reset();
    setOpenOrder(null);
    setNote(null);
    setFocusStatus(false);
    startOver?.();
  };

  return (
    <div className="pay">
      <div className="wallet-connect">
        <button
          type="button"
          className="button secondary wallet-button"
          aria-haspopup="dialog"
          onClick={openPicker}
        >
          {account ? shortAddress(account.address) : connecting ? 'Connecting...' : 'Select Wallet'}
        </button>
      </div>
      {finished && nothingLeft ? null : finished ? ( // for the buyer's own purchase (the receipt below is the page's answer). // The piece just bought was the last one: nothing to buy another of, and no bad news
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
          {!priced ? 'Loading Price...' : busy ? 'Processing...' : 'Buy Now'}
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
        vendorName={vendor.name}
      />
    </div>
  );
}
