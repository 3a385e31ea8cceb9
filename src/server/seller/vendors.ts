import type { Catalog, Vendor } from '../../core/catalog';
import type { Settings } from '../settings';

/**
 * Which vendors a payout wallet signs in as: every vendor whose payout group's RECIPIENT_<KEY> is that address.
 * Vendors are data (catalogue + settings), so this is a lookup, never a list in code.
 */
export function vendorsOfAddress(
  catalog: Catalog,
  settings: Pick<Settings, 'recipients'>,
  address: string,
): Vendor[] {
  return catalog.vendors.filter((v) => settings.recipients[v.payoutGroup] === address);
}
