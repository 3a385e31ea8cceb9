import type { QrCheckoutProps } from '../types';

export const QR_SIZE = 180;

/** The confirmation button's text: the glass vendor's QR page (Eagles XL) reads 'Send Confirmation Email'. */
export function confirmLabel(vendorId: string): string {
  return vendorId === 'coopersglass' ? 'Send Confirmation Email' : 'Send Order Confirmation';
}

/**
 * QR checkout. Issue 2 ships the QR area placeholder, the layout and the form check; the QR-checkout engineer
 * renders the Solana Pay QR (display size 180) and sends the confirmation (spec §4).
 */
export default function QrPay({ vendor, price, validateShipping, children }: QrCheckoutProps) {
  const failed = price.status === 'unavailable' || price.status === 'error';
  const onConfirm = () => {
    const shipping = validateShipping();
    if (!shipping) return;
    // Order + confirmation e-mails land with the QR checkout (issue: QR checkout).
  };
  return (
    <div className="qr-pay">
      <section className="card qr-area" aria-labelledby="qr-title">
        <h2 id="qr-title">Scan to pay</h2>
        <div className="qr-box" style={{ width: QR_SIZE, height: QR_SIZE }} role="status">
          {failed ? <p className="error">{price.status === 'error' ? 'Error loading price.' : 'Failed to load price. Try again later.'}</p> : <p>Generating QR Code...</p>}
        </div>
      </section>
      {children}
      <button type="button" className="button big" onClick={onConfirm}>
        {confirmLabel(vendor.id)}
      </button>
    </div>
  );
}
