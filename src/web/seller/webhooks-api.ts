/** The seller console's calls to /api/seller/webhooks… (the webhooks section, WebhooksPage.tsx). */
import type {
  WebhookCreateBody,
  WebhookDeliveriesView,
  WebhookDeliveryView,
  WebhookEndpointView,
  WebhookEndpointWithSecret,
  WebhookPatchBody,
} from '../../core/webhook-api';
import { call as http } from '../lib/call';

const UNREACHABLE = 'The store could not be reached. Please try again.';
const call = <T>(method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, body?: unknown): Promise<T> =>
  http<T>(method, url, { unreachable: UNREACHABLE, ...(body !== undefined ? { body } : {}) });
const at = (id: string) => `/api/seller/webhooks/${encodeURIComponent(id)}`;

export const webhooksApi = {
  list: () => call<{ endpoints: WebhookEndpointView[] }>('GET', '/api/seller/webhooks'),
  create: (body: WebhookCreateBody) => call<WebhookEndpointWithSecret>('POST', '/api/seller/webhooks', body),
  update: (id: string, body: WebhookPatchBody) =>
    call<WebhookEndpointView | WebhookEndpointWithSecret>('PATCH', at(id), body),
  remove: (id: string) => call<{ ok: true }>('DELETE', at(id)),
  test: (id: string) => call<{ delivery: WebhookDeliveryView }>('POST', `${at(id)}/test`, {}),
  deliveries: (id: string) => call<WebhookDeliveriesView>('GET', `${at(id)}/deliveries`),
  resend: (id: string, deliveryId: string) =>
    call<{ delivery: WebhookDeliveryView }>(
      'POST',
      `${at(id)}/deliveries/${encodeURIComponent(deliveryId)}/resend`,
      {},
    ),
};
