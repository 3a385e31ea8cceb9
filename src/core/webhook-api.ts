/**
 * The seller console's webhooks API (`/api/seller/webhooks…`, issue 35): what the browser sends and reads.
 * The signing secret appears only in the answers that create it (creation, rotation), never in a list.
 */
import type { WebhookEventType } from './webhook-events';

export type WebhookEndpointState = 'active' | 'paused' | 'disabled';

export interface WebhookEndpointView {
  id: string;
  vendorId: string;
  url: string;
  /** The event types it gets; `['*']`: every one. */
  events: (WebhookEventType | '*')[];
  includeShipping: boolean;
  state: WebhookEndpointState;
  /** Why it is not active: paused by the vendor, paused after days of failures, disabled by a 410 answer. */
  stateReason: 'vendor' | 'failing' | 'gone' | null;
  /** Failing since (every attempt since then failed); null while it works. */
  failingSince: string | null;
  /** After a rotation: the previous secret still signs until then. */
  previousSecretUntil: string | null;
  createdAt: string;
  /** Deliveries waiting (pending or retrying). */
  waiting: number;
}

/** Creation and rotation answer with the secret: the only time it is shown. */
export interface WebhookEndpointWithSecret {
  endpoint: WebhookEndpointView;
  secret: string;
}

export interface WebhookDeliveryView {
  id: string;
  eventType: string;
  orderId: string | null;
  state: 'pending' | 'retrying' | 'delivered' | 'failed';
  attempts: number;
  lastStatus: number | null;
  lastAttemptAt: string | null;
  lastError: string | null;
  nextAttemptAt: string | null;
  createdAt: string;
  deliveredAt: string | null;
}

export interface WebhookDeliveriesView {
  deliveries: WebhookDeliveryView[];
}

export interface WebhookCreateBody {
  url: string;
  events?: (WebhookEventType | '*')[];
  includeShipping?: boolean;
  /** Needed only when the signed-in wallet pays out for several vendors. */
  vendorId?: string;
}

export interface WebhookPatchBody {
  url?: string;
  events?: (WebhookEventType | '*')[];
  includeShipping?: boolean;
  /** true pauses it, false resumes it (a disabled or failing one too). */
  paused?: boolean;
  /** A new secret; the old one keeps signing for a day. */
  rotateSecret?: true;
}
