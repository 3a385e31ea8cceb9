import { useEffect, useRef, useState } from 'react';
import type { AnyQuoteResponse } from '../../../core/api';
import { ApiRequestError } from '../../lib/call';
import { newIdempotencyKey } from '../shared/order-api';
import { createQrOrder, earlyQrOrder, pageTokenOf, requoteOrder } from './api';
import { takeEarlyRecord } from '../../lib/early-record';
import { storedReferrer } from '../../lib/referral';
import { saveQrOrder, type StoredQrOrder } from './order-store';
import { keepDrawnQr } from '../shared/QrImage';

/** The record's answer carries its QR drawn (qrSvg): kept for the QR image of the link it shows. */
function keepQrOf(r: { solanaPayUrl: string | null; transactionRequestUrl?: string; qrSvg?: string }): void {
  const link = r.transactionRequestUrl ?? r.solanaPayUrl;
  if (link !== null && typeof r.qrSvg === 'string') keepDrawnQr(link, r.qrSvg);
}

export type RecordError = { code: string } | null;

/**
 * Record before showing: turns the page's priced quote into the server's QR record (POST /api/orders without
 * shipping details, one Idempotency-Key per quote token; the page's first quote may have been sent by the entry
 * already, lib/early-record.ts, whose answer is taken) or, while that record is still open (nothing paid, no
 * details), moves it to a renewed quote of the same reference (PUT /api/orders/:id/quote: the quantity changed).
 * The QR only ever shows the record's link. `order` and `setOrder` are the page's record state.
 */
export function useQrRecord(args: {
  productId: string;
  quote: AnyQuoteResponse | null;
  order: StoredQrOrder | null;
  /** The record may take a new quote (status awaiting_payment, ledger empty, no details sent). */
  requotable: boolean;
  setOrder: (o: StoredQrOrder) => void;
  /** Called when the server refuses a requote (something was paid or sent meanwhile): re-read the status. */
  onRefused: () => void;
}): RecordError {
  const { productId, quote, order, requotable, setOrder, onRefused } = args;
  const [error, setError] = useState<RecordError>(null);
  const inFlight = useRef(false);
  const keys = useRef(new Map<string, string>());

  useEffect(() => {
    if (!quote || quote.amount === null || quote.solanaPayUrl === null) return; // unpriced: no QR, no record
    if (order && (order.quote === quote.quote || !requotable)) return;
    if (inFlight.current) return;
    inFlight.current = true;
    const token = quote.quote;
    const quantity = quote.items.reduce((n, i) => n + i.quantity, 0);
    const work = async (): Promise<StoredQrOrder> => {
      if (order) {
        const r = await requoteOrder(order.orderId, token, pageTokenOf(order.orderUrl));
        keepQrOf(r);
        return {
          ...order,
          solanaPayUrl: r.solanaPayUrl,
          ...(r.transactionRequestUrl ? { transactionRequestUrl: r.transactionRequestUrl } : {}),
          amount: r.amount,
          quantity,
          quote: token,
          expiresAt: r.expiresAt,
        };
      }
      // The entry may have asked for this quote's record already (lib/early-record.ts): its answer, and its key
      // for a retry.
      const early = takeEarlyRecord(token);
      if (early) keys.current.set(token, early.key);
      let key = keys.current.get(token);
      if (!key) {
        key = newIdempotencyKey();
        keys.current.set(token, key);
      }
      const referrer = storedReferrer(window.localStorage);
      const created = early
        ? await earlyQrOrder(early.answer)
        : await createQrOrder({ quote: token, paymentMethod: 'qr', ...(referrer ? { referrer } : {}) }, key);
      if (created.solanaPayUrl === null || created.amount === null) throw new Error('unpriced record');
      keepQrOf(created);
      return {
        orderId: created.orderId,
        productId,
        orderUrl: created.orderUrl,
        solanaPayUrl: created.solanaPayUrl,
        ...('transactionRequestUrl' in created && created.transactionRequestUrl
          ? { transactionRequestUrl: created.transactionRequestUrl }
          : {}),
        amount: created.amount,
        quantity,
        quote: token,
        expiresAt: created.expiresAt,
        detailsSent: false,
        confirmed: false,
      };
    };
    work()
      .then((next) => {
        saveQrOrder(next);
        setError(null);
        setOrder(next);
      })
      .catch((err: unknown) => {
        if (err instanceof ApiRequestError && err.status === 409 && order) onRefused();
        else setError({ code: err instanceof ApiRequestError ? err.code : 'unknown' });
      })
      .finally(() => {
        inFlight.current = false;
      });
  }, [quote, order, requotable, productId, setOrder, onRefused]);

  return error;
}
