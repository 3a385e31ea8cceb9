import MailComposer from 'nodemailer/lib/mail-composer';
import { isEmailAddress } from '../../core/email-address';
import { headerSafe, renderEmail } from './templates';
import { PermanentMailError, type OutgoingEmail } from './types';

/** RFC 5322 message composition shared by the file and smtp transports (nodemailer's MailComposer). */

/** The same check as the order schema's (src/core/email-address.ts): what we accepted, we can send to. */
export function isPlainAddress(value: string): boolean {
  return isEmailAddress(value);
}

/** Message-ID stable across retries of the same outbox row. */
export function messageIdFor(id: string): string {
  const safe = id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100) || 'message';
  return `<${safe}@claim-store.local>`;
}

export interface ComposedMail {
  from: string;
  to: { name: string; address: string };
  replyTo?: { name: string; address: string };
  subject: string;
  text: string;
  html: string;
  messageId: string;
  date: Date;
  headers: Record<string, string>;
}

export function composeMail(message: OutgoingEmail, from: string, date: Date): ComposedMail {
  if (!isPlainAddress(message.to)) throw new PermanentMailError(`recipient is not a plain e-mail address`);
  const r = renderEmail(message);
  const mail: ComposedMail = {
    from: headerSafe(from),
    to: { name: headerSafe(message.payload.to_name, 100), address: message.to },
    subject: r.subject,
    text: r.text,
    html: r.html,
    messageId: messageIdFor(message.id),
    date,
    headers: {
      ...(message.orderId ? { 'X-Claim-Order': headerSafe(message.orderId, 100) } : {}),
      'X-Claim-Kind': `${message.kind}/${message.role}`,
    },
  };
  // The seller replies straight to the buyer; only a plain address is used (never a header-breaking value).
  if (message.role === 'seller' && isPlainAddress(message.payload.email)) {
    mail.replyTo = { name: headerSafe(message.payload.from_name, 100), address: message.payload.email };
  }
  return mail;
}

/** The whole message as RFC 5322 bytes (CRLF line ends; text parts base64 so any reader decodes them). */
export async function buildRfc5322(mail: ComposedMail): Promise<Buffer> {
  const composer = new MailComposer({ ...mail, encoding: 'base64', newline: 'win' });
  return composer.compile().build();
}
