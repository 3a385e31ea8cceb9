/** The seller console's words for statuses and exceptions, and its formatting of amounts, times and errors. */
import { formatBaseUnits } from '../../core/money';
import { ApiRequestError } from '../lib/call';
import { formatLocalDateTime } from '../lib/time';

export {
  EXCEPTION_LABEL,
  noShippingWords,
  shipToLines,
  PAYMENT_METHOD_LABEL,
  QUEUE_LABEL,
  STATUS_LABEL,
  statusWords,
} from '../../core/seller-words';

/** "11,755.003717": $CLAIM with thousands separators, all six decimals (exact, from base units). */
export const claim = (base: string | null) => {
  if (base === null) return 'N/A';
  const [whole = '0', frac = ''] = formatBaseUnits(BigInt(base)).split('.');
  return `${whole.replace(/\B(?=(\d{3})+(?!\d))/g, ',')}.${frac}`;
};
export const when = (iso: string) => formatLocalDateTime(iso);
export const message = (err: unknown) =>
  err instanceof ApiRequestError ? err.message : 'Something went wrong.';
