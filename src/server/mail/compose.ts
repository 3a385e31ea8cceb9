import MailComposer from 'nodemailer/lib/mail-composer';
import { isEmailAddress } from '../../core/email-address';
import { headerSafe, renderEmail } from './templates';
import { PermanentMailError, type OutgoingEmail } from './types';

/**
 * RFC 5322 message composition shared by the file and smtp transports (nodemailer's MailComposer). Addresses are
 * checked as the order schema checks them (isEmailAddress, src/core/email-address.ts): what we accepted, we can
 * send to.
 */

/** The domain of the sender's address (`Name <user@domain>` or `user@domain`), lower case; undefined if none. */
export function domainOf(from: string): string | undefined {
  const address = /<([^<>]+)>\s*$/.exec(from)?.[1] ?? from.trim();
  const domain =
    /@([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*)$/.exec(
      address,
    )?.[1];
  return domain?.toLowerCase();
}

/**
 * Message-ID stable across retries of the same outbox row, on the sender's domain (MAIL_FROM), as RFC 5322
 * asks: the right side names the host that made it, so it is unique to this shop and passes spam filters that
 * compare it with the From domain.
 */
export function messageIdFor(id: string, from: string): string {
  const safe = id.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 100) || 'message';
  return `<${safe}@${domainOf(from) ?? 'claim-store.invalid'}>`;
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
  if (!isEmailAddress(message.to)) throw new PermanentMailError(`recipient is not a plain e-mail address`);
  const r = renderEmail(message);
  const mail: ComposedMail = {
    from: headerSafe(from),
    to: { name: headerSafe(message.payload.to_name, 100), address: message.to },
    subject: r.subject,
    text: r.text,
    html: r.html,
    messageId: messageIdFor(message.id, from),
    date,
    headers: {
      // RFC 3834: made by a program, so auto-responders (out-of-office, vacation) do not answer it.
      'Auto-Submitted': 'auto-generated',
      // The same for Exchange / Outlook, which reads its own header.
      'X-Auto-Response-Suppress': 'All',
      ...(message.orderId ? { 'X-Claim-Order': headerSafe(message.orderId, 100) } : {}),
      'X-Claim-Kind': `${message.kind}/${message.role}`,
    },
  };
  // Replies reach a person: the seller replies straight to the buyer, the buyer to the vendor. Only a plain
  // address is used (never a header-breaking value).
  const p = message.payload;
  if (message.role === 'seller' && isEmailAddress(p.email)) {
    mail.replyTo = { name: headerSafe(p.from_name, 100), address: p.email };
  } else if (message.role === 'buyer' && p.vendor_email !== undefined && isEmailAddress(p.vendor_email)) {
    mail.replyTo = { name: headerSafe(p.vendor_name ?? '', 100), address: p.vendor_email };
  }
  return mail;
}

/** The whole message as RFC 5322 bytes (CRLF line ends; text parts base64 so any reader decodes them). */
export async function buildRfc5322(mail: ComposedMail): Promise<Buffer> {
  const composer = new MailComposer({ ...mail, encoding: 'base64', newline: 'win' });
  return composer.compile().build();
}
