/**
 * The QR checkout's presentational pieces (QrPay.tsx holds the state and effects): the amount and payment links,
 * the record's status block, the paid state's status line and the QR box's content.
 */
import { QrImage } from '../shared/QrImage';
import { paths } from '../../../core/routes';
import type { QrCheckoutProps } from '../types';
import { GENERATING, TRANSFER_FALLBACK_NOTE, WALLET_CANNOT_READ } from './messages';
import type { QrBox, QrStatusBlock, QrView } from './view';

/** The QR image's size in CSS pixels (the `.qr-box` of styles.css is sized for it). */
export const QR_SIZE = 180;

/** The amount to pay (the only amount on the screen) and the links. 44 px buttons that wrap apart, never touching. */
export function PayLinkBlock({
  payLink,
  phone,
  copyNote,
  onCopy,
  setTransferFallback,
}: {
  payLink: NonNullable<QrView['payLink']>;
  phone: boolean;
  copyNote: string | null;
  onCopy: () => void;
  setTransferFallback: (on: boolean) => void;
}) {
  return (
    <>
      <p className="qr-amount">
        Amount to pay: <strong data-testid="qr-amount">{payLink.amount}</strong>
      </p>
      <p className="actions qr-actions">
        <a className={phone ? 'button big' : 'button'} href={payLink.url} data-testid="open-in-wallet">
          Open in wallet
        </a>
        <button type="button" className="button secondary" onClick={onCopy}>
          Copy payment link
        </button>
      </p>
      {payLink.fallback === 'offer' && (
        <p>
          <button
            type="button"
            className="button link"
            onClick={() => setTransferFallback(true)}
            data-testid="transfer-fallback"
          >
            {WALLET_CANNOT_READ}
          </button>
        </p>
      )}
      {payLink.fallback === 'shown' && (
        <p className="note" data-testid="transfer-fallback-note">
          {TRANSFER_FALLBACK_NOTE}{' '}
          <button type="button" className="button link" onClick={() => setTransferFallback(false)}>
            Show the first code again
          </button>
        </p>
      )}
      {copyNote && (
        <p className="note" role="status">
          {copyNote}
        </p>
      )}
    </>
  );
}

/** The record's status block under the QR: the order, its status and the next steps. */
export function OrderStatusPanel({
  s,
  productName,
  txUrl,
  onStartNew,
  sending,
}: {
  s: QrStatusBlock;
  productName: string;
  txUrl: string | null;
  onStartNew: () => void;
  sending: boolean;
}) {
  return (
    <div
      className="order-status"
      data-testid="order-status"
      data-status={s.dataStatus}
      role="status"
      aria-live="polite"
    >
      <p>
        Order <strong>{s.orderNumber}</strong> ({s.quantity} × {productName}
        ): <strong>{s.text}</strong>
        {s.received && <span data-testid="received">{s.received}</span>}
      </p>
      <PaymentNotes s={s} checkNote />
      {(txUrl || s.orderPageLink) && (
        <p className="actions">
          {s.orderPageLink && (
            <a className="button" href={s.orderPageLink} data-testid="order-page-link">
              Your order page
            </a>
          )}
          {txUrl && (
            <a
              className="button secondary"
              href={txUrl ?? undefined}
              target="_blank"
              rel="noopener noreferrer"
              data-testid="tx-link"
            >
              View the transaction
            </a>
          )}
        </p>
      )}
      {s.quantityChangedNote && <p className="note">{s.quantityChangedNote}</p>}
      {s.startNew && (
        <p>
          <button type="button" className="button link" onClick={onStartNew} disabled={sending}>
            Start a new order
          </button>
        </p>
      )}
    </div>
  );
}

/** The notes under a record's status: an unreadable payment, the check delayed (`checkNote`), a late payment. */
function PaymentNotes({ s, checkNote }: { s: QrStatusBlock; checkNote: boolean }) {
  return (
    <>
      {s.unreadableNote && (
        <p className="note" data-testid="unreadable-payment">
          {s.unreadableNote}
        </p>
      )}
      {checkNote && s.paymentCheckNote && (
        <p className="note" data-testid="payment-check">
          {s.paymentCheckNote}
        </p>
      )}
      {s.paidLate && (
        <p className="note">The payment arrived after the payment window closed: the seller will confirm.</p>
      )}
    </>
  );
}

/** The record's status in the paid state: the spec's states under the receipt (`data-status` for the page). */
export function StatusLine({ s, productName }: { s: QrStatusBlock; productName: string }) {
  return (
    <div className="order-status" data-testid="order-status" data-status={s.dataStatus} role="status">
      <p className="muted small">
        {s.quantity} × {productName}: {s.text}
        {s.received && <span data-testid="received">{s.received}</span>}
      </p>
      <PaymentNotes s={s} checkNote={false} />
      {s.quantityChangedNote && <p className="note">{s.quantityChangedNote}</p>}
    </div>
  );
}

/** The QR box: the QR itself or the one sentence that stands in its place. */
export function QrBoxContent({ box, vendor }: { box: QrBox; vendor: QrCheckoutProps['vendor'] }) {
  switch (box.kind) {
    case 'qr':
      return (
        <QrImage
          text={box.url}
          size={QR_SIZE}
          alt={`Solana Pay QR code: pay ${box.amount ?? ''} $CLAIM to ${vendor.name}`}
          placeholder={GENERATING}
        />
      );
    case 'paid':
      return (
        <p className="paid" data-testid="payment-received">
          <strong>Payment received</strong>
          {box.askDetails
            ? ': please fill in your shipping details below and send them to complete the order.'
            : ''}
        </p>
      );
    case 'settled':
      return <p data-testid="qr-settled">{box.text}</p>;
    case 'unpriced-order':
      return (
        <p data-testid="unpriced-order">No payment link: the price was unknown when this order was sent.</p>
      );
    case 'price-failed':
      return <p className="error">{box.text}</p>;
    case 'quantity-problem':
      return <p data-testid="quantity-problem">{box.text}</p>;
    case 'payout-refused':
      // No QR to a recipient that cannot receive: the vendor's token account does not exist (or cannot be checked).
      return (
        <div data-testid="payout-not-ready">
          <p className="error">{box.message}</p>
          {box.sellsByWallet && (
            <p>
              {vendor.name}&apos;s <a href={paths.vendor(vendor.id)}>wallet products</a> can still be bought
              with Buy Now: your wallet creates the vendor&apos;s account first (one more approval).
            </p>
          )}
        </div>
      );
    case 'link-failed':
      return <p className="error">The payment link could not be prepared. Try again later.</p>;
    case 'generating':
      return <p>{box.text}</p>;
  }
}
