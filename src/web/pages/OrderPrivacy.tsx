import { useState } from 'react';
import type { OrderPageView } from '../../core/api';
import { paths } from '../../core/routes';
import { cancelOrderInstead, deleteMyDetails, myDataUrl } from '../api/order-page';
import { ApiRequestError } from '../lib/call';
import { formatLocalDate } from '../lib/time';

/**
 * "Your details" on the buyer's order page: what the shop keeps, "Download my data" (a page a phone can read of
 * everything kept about the order, e-mails included, with the JSON file beside it) and "Delete my details" (after
 * shipping, or for an order that will not ship; before shipping it explains why not and offers to cancel, with a
 * confirmation first).
 */
export default function OrderPrivacy({
  token,
  view,
  onChange,
}: {
  token: string;
  view: OrderPageView;
  onChange: (view: OrderPageView) => void;
}) {
  const [confirming, setConfirming] = useState(false);
  const [confirmingCancel, setConfirmingCancel] = useState(false);
  const [busy, setBusy] = useState(false);
  const [message, setMessage] = useState('');
  const p = view.privacy;
  const days = Number.isInteger(p.retentionDays) ? String(p.retentionDays) : p.retentionDays.toFixed(2);

  const act = async (fn: () => Promise<OrderPageView>, done: string) => {
    setBusy(true);
    setMessage('');
    try {
      onChange(await fn());
      setMessage(done);
      setConfirming(false);
      setConfirmingCancel(false);
    } catch (err) {
      setMessage(
        err instanceof ApiRequestError && err.status > 0
          ? err.message
          : 'That did not work. Please try again in a moment.',
      );
    } finally {
      setBusy(false);
    }
  };

  return (
    <section aria-labelledby="your-details" data-testid="order-privacy" data-details={p.details}>
      <h2 id="your-details">Your details</h2>
      <p data-testid="details-kept">
        {p.details === 'kept' &&
          `The shop keeps your name, e-mail and shipping address encrypted, for the vendor to ship your order, and erases them ${days} days after delivery (or after the order closes without shipping).`}
        {p.details === 'none' && 'The shop has no name or address for this order.'}
        {p.details === 'erased' &&
          `Details erased${p.erasedAt ? ` on ${formatLocalDate(p.erasedAt)}` : ''}: the shop no longer keeps your name, e-mail or address. The order and its payments stay for the vendor’s books.`}
        {p.details === 'unreadable' &&
          'Details unreadable: the stored copy of your details failed its integrity check. Please contact the vendor.'}
      </p>
      <p className="actions">
        <a className="button secondary" href={paths.orderData(token)} data-testid="download-my-data">
          Download my data
        </a>
        <a className="button secondary" href={myDataUrl(token)} download data-testid="download-my-data-json">
          As a JSON file
        </a>
      </p>
      {p.deletion === 'allowed' && !confirming && (
        <p>
          <button
            type="button"
            className="button secondary"
            onClick={() => setConfirming(true)}
            data-testid="delete-my-details"
          >
            Delete my details
          </button>
        </p>
      )}
      {p.deletion === 'allowed' && confirming && (
        <div role="group" aria-label="Confirm deletion" data-testid="delete-confirm">
          <p>This erases your name, e-mail and address from the shop for good. The vendor is told.</p>
          <p className="actions">
            <button
              type="button"
              className="button"
              disabled={busy}
              onClick={() =>
                void act(() => deleteMyDetails(token), 'Your details are deleted. The vendor has been told.')
              }
              data-testid="delete-confirm-yes"
            >
              Yes, delete my details
            </button>
            <button type="button" className="button secondary" onClick={() => setConfirming(false)}>
              Keep them
            </button>
          </p>
        </div>
      )}
      {p.deletion === 'cancel_first' && (
        <div data-testid="delete-cancel-first">
          <p>
            The vendor needs your name and address to ship this order, so they cannot be deleted before it
            ships.
            {p.cancel === 'requested'
              ? ' You asked the vendor to cancel it: once they have refunded you, you can delete your details here.'
              : p.cancel === 'declined'
                ? ' You asked the vendor to cancel it, and they could not: the order goes ahead. Once it has shipped, you can delete your details here.'
                : ' You can cancel the order instead.'}
          </p>
          {(p.cancel === 'unpaid' || p.cancel === 'ask_vendor') && !confirmingCancel && (
            <button
              type="button"
              className="button secondary"
              disabled={busy}
              onClick={() => setConfirmingCancel(true)}
              data-testid="cancel-instead"
            >
              {p.cancel === 'unpaid' ? 'Cancel this order' : 'Ask the vendor to cancel'}
            </button>
          )}
          {(p.cancel === 'unpaid' || p.cancel === 'ask_vendor') && confirmingCancel && (
            <div role="group" aria-label="Confirm the cancellation" data-testid="cancel-confirm">
              <p>
                {p.cancel === 'unpaid'
                  ? 'Cancel this order? Nothing was paid; the piece goes back on sale and this order can no longer be paid.'
                  : 'Ask the vendor to cancel this order? It then does not ship, and the vendor refunds your payment to the wallet that paid. The vendor is e-mailed; this cannot be taken back here.'}
              </p>
              <p className="actions">
                <button
                  type="button"
                  className="button"
                  disabled={busy}
                  onClick={() =>
                    void act(
                      () => cancelOrderInstead(token),
                      p.cancel === 'unpaid'
                        ? 'Order cancelled. You can now delete your details.'
                        : 'The vendor has been asked to cancel and refund your order.',
                    )
                  }
                  data-testid="cancel-confirm-yes"
                >
                  {p.cancel === 'unpaid' ? 'Yes, cancel it' : 'Yes, ask to cancel'}
                </button>
                <button type="button" className="button secondary" onClick={() => setConfirmingCancel(false)}>
                  Keep my order
                </button>
              </p>
            </div>
          )}
        </div>
      )}
      {message && (
        <p role="status" data-testid="privacy-message">
          {message}
        </p>
      )}
    </section>
  );
}
