import { useEffect, useRef, type ReactNode } from 'react';
import type { ReceiptText } from './receipt';

/**
 * The paid state of a purchase, shared by the wallet and the QR checkout: "Paid ✓", the short order number, the
 * amount with separators, what happens next, and one prominent button to the order page (a 44 px target); the
 * transaction as a second, quieter button. `children`: the checkout's own status lines (kept for the spec's
 * states). On first showing it scrolls into view and takes focus, so the end of the purchase is on screen.
 */
export function Receipt({
  text,
  orderPath,
  txUrl,
  headingId,
  focus = true,
  orderPageSecondary = false,
  children,
}: {
  text: ReceiptText;
  /** The buyer's order page (`/order/<token>`), when this page knows it. */
  orderPath?: string | null | undefined;
  txUrl?: string | null | undefined;
  headingId: string;
  focus?: boolean;
  /** Another step comes first (the QR order's details): the order page is then not the prominent button. */
  orderPageSecondary?: boolean;
  children?: ReactNode;
}) {
  const heading = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    if (!focus) return;
    const h = heading.current;
    if (!h) return;
    h.focus({ preventScroll: true });
    h.scrollIntoView({ block: 'center', behavior: 'instant' as ScrollBehavior });
  }, [focus, text.number]);
  return (
    <div className="receipt" data-testid="receipt">
      <h2 id={headingId} ref={heading} tabIndex={-1} className="receipt-title">
        Paid <span aria-hidden="true">✓</span>
      </h2>
      <p className="receipt-number">
        Order <strong data-testid="order-number">{text.number}</strong>
      </p>
      {text.amount && (
        <p className="receipt-amount" data-testid="receipt-amount">
          {text.amount}
        </p>
      )}
      {children}
      <p className="receipt-next" data-testid="receipt-next">
        {text.next}
      </p>
      {text.extra && (
        <p className="note" data-testid="receipt-extra">
          {text.extra}
        </p>
      )}
      <div className="actions">
        {orderPath && (
          <a
            className={orderPageSecondary ? 'button secondary' : 'button big'}
            href={orderPath}
            data-testid="order-page-link"
          >
            Your order page
          </a>
        )}
        {txUrl && (
          <a
            className="button secondary tx-link"
            href={txUrl}
            target="_blank"
            rel="noopener noreferrer"
            data-testid="tx-link"
          >
            View the transaction
          </a>
        )}
      </div>
    </div>
  );
}
