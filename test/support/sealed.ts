/**
 * Reading sealed personal data in tests, as the server does (src/server/privacy): the store holds no name,
 * e-mail or address in clear, so tests that look an order up by its buyer open the details with the keys of the
 * settings the server ran with.
 */
import type { OrderEmailPayload } from '../../src/core/email-payload';
import type { ShippingInput } from '../../src/core/order';
import { openError, openMail, openShipping } from '../../src/server/privacy/order-data';
import { createSealer } from '../../src/server/privacy/seal';
import type { Settings } from '../../src/server/settings';
import type { OrderRow, OutboxRow } from '../../src/server/store/schema';
import type { Store } from '../../src/server/store/store';

export function shippingOfRow(
  settings: Pick<Settings, 'privacy'>,
  row: Pick<OrderRow, 'id' | 'shipping_json'>,
): ShippingInput | undefined {
  const opened = openShipping(createSealer(settings.privacy.dataKeys), row.id, row.shipping_json);
  return opened.state === 'given' ? opened.shipping : undefined;
}

/** The orders whose buyer is `fullName` (every order's details opened). */
export async function ordersOfBuyer(
  store: Store,
  settings: Pick<Settings, 'privacy'>,
  fullName: string,
): Promise<OrderRow[]> {
  const rows = await store.db.selectFrom('orders').selectAll().execute();
  return rows.filter((r) => shippingOfRow(settings, r)?.fullName === fullName);
}

export function payloadOfRow(
  settings: Pick<Settings, 'privacy'>,
  row: Pick<OutboxRow, 'order_id' | 'recipient_email' | 'payload_json'>,
): OrderEmailPayload {
  const opened = openMail(createSealer(settings.privacy.dataKeys), row.order_id, row);
  if (opened.state !== 'readable') throw new Error(`outbox row is ${opened.state}`);
  return opened.payload;
}

/** A stored delivery error, opened (it is redacted and sealed). */
export function errorOfRow(
  settings: Pick<Settings, 'privacy'>,
  row: Pick<OutboxRow, 'order_id' | 'last_error'>,
): string | null {
  return openError(createSealer(settings.privacy.dataKeys), row.order_id, row.last_error);
}
