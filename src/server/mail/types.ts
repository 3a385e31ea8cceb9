import type { EmailKind, EmailRecipientRole, OrderEmailPayload } from '../../core/email-payload';
import type { PayoutGroup } from '../settings';

/** One message as the outbox hands it to a transport. */
export interface OutgoingEmail {
  /** Outbox row id: stable across retries (used as Message-ID / idempotency key where the transport has one). */
  id: string;
  /** '' for a seller alert about no order (kind price_alert). */
  orderId: string;
  kind: EmailKind;
  role: EmailRecipientRole;
  to: string;
  /** Selects the EmailJS seller template (one per vendor group). */
  payoutGroup: PayoutGroup;
  /** Whether payment had been seen on-chain when the message was queued (wording of QR confirmations). */
  paymentSeen: boolean;
  payload: OrderEmailPayload;
}

/** A mail transport: resolves when the message is accepted by the next hop; throws on failure. */
export interface MailTransport {
  readonly name: 'file' | 'smtp' | 'emailjs';
  send(message: OutgoingEmail): Promise<void>;
  close?(): Promise<void>;
  /**
   * A transport that keeps copies (the `file` transport's .eml files): the outbox row ids it holds a copy of, and
   * erasing those copies. The outbox worker erases the copies of rows whose personal data was erased.
   */
  keptIds?(): Promise<string[]>;
  eraseKept?(ids: readonly string[]): Promise<number>;
}

/** Thrown by a transport when retrying cannot help (e.g. 4xx rejected payload). The outbox still keeps the row. */
export class PermanentMailError extends Error {
  override name = 'PermanentMailError';
}
