import { isEmailAddress } from '../../core/email-address';
import { registerSecrets } from '../redact';
import { section, urlPassword } from './schema';
import { settingsKey } from './vendors';
import type { LoadContext, MailTransportName, PayoutGroup, Settings } from './types';

const TRANSPORTS = ['file', 'smtp', 'emailjs'] as const;

/** E-mail: the transport and its credentials, the sender, the seller's address (one per vendor if wanted). */
export const mailSection = section({
  title: 'Mail',
  settings: {
    MAIL_TRANSPORT: {
      doc: 'How e-mail is sent: file (one .eml per message in MAIL_DIR, listed at /dev/mail in demo mode; delivers nothing), smtp or emailjs. Required outside demo mode: the server refuses to start without it.',
      defaultDoc: 'none (demo mode: file)',
      values: TRANSPORTS.join(', '),
    },
    MAIL_DIR: { doc: "The file transport's folder.", default: 'var/mail' },
    MAIL_FROM: { doc: 'The sender of every e-mail.', default: '$CLAIM Store <orders@claim-store.example>' },
    SELLER_EMAIL: {
      doc: "The seller's address (never sent to the browser). Required outside demo mode.",
      defaultDoc: 'none (demo mode: seller@example.test)',
    },
    'VENDOR_<KEY>_EMAIL': {
      doc: "A vendor's own seller address, same KEY as `RECIPIENT_<KEY>`.",
      defaultDoc: 'SELLER_EMAIL',
    },
    SMTP_URL: {
      doc: 'With MAIL_TRANSPORT=smtp: smtp(s)://user:pass@host:port.',
      values: 'an smtp: or smtps: URL',
    },
    EMAILJS_API_URL: {
      doc: "With MAIL_TRANSPORT=emailjs: EmailJS's REST API.",
      default: 'https://api.emailjs.com',
    },
    EMAILJS_SERVICE_ID: { doc: 'With MAIL_TRANSPORT=emailjs: the service id.' },
    EMAILJS_USER_ID: { doc: 'With MAIL_TRANSPORT=emailjs: the user (public key) id.' },
    EMAILJS_ACCESS_TOKEN: { doc: 'With MAIL_TRANSPORT=emailjs: the access token (private key).' },
    'EMAILJS_TEMPLATE_SELLER_<KEY>': {
      doc: "With MAIL_TRANSPORT=emailjs: a vendor's seller template, one per payout group.",
    },
    EMAILJS_TEMPLATE_BUYER: { doc: "With MAIL_TRANSPORT=emailjs: the buyer's template." },
  },
  read(r, ctx: LoadContext): Pick<Settings, 'mail'> {
    const { demo: isDemo, groups } = ctx;
    const explicit = r.get('MAIL_TRANSPORT');
    // Outside demo mode a missing transport is refused rather than defaulted to `file`, which delivers nothing
    // and keeps personal data in .eml files (issue 28, finding 10; docs/decisions/price-and-mail.md).
    if (explicit === undefined && !isDemo)
      r.problem(
        'MAIL_TRANSPORT: required outside demo mode (smtp or emailjs; file writes .eml files and delivers nothing)',
      );
    const transportRaw = explicit ?? 'file';
    const known = (TRANSPORTS as readonly string[]).includes(transportRaw);
    if (!known) r.problem(`MAIL_TRANSPORT: must be one of file, smtp, emailjs (got '${transportRaw}')`);
    const transport = (known ? transportRaw : 'file') as MailTransportName;

    const sellerEmail = r.get('SELLER_EMAIL') ?? (isDemo ? 'seller@example.test' : undefined);
    if (sellerEmail === undefined) r.problem('SELLER_EMAIL: required outside demo mode');
    else if (!isEmailAddress(sellerEmail)) r.problem('SELLER_EMAIL: not an e-mail address');

    const sellerEmails: Record<PayoutGroup, string> = {};
    for (const group of groups) {
      const name = `VENDOR_${settingsKey(group)}_EMAIL`;
      const own = r.get(name);
      if (own !== undefined && !isEmailAddress(own)) r.problem(`${name}: not an e-mail address`);
      sellerEmails[group] = own ?? sellerEmail ?? '';
    }

    const mail: Settings['mail'] = {
      transport,
      dir: r.get('MAIL_DIR') ?? 'var/mail',
      from: r.get('MAIL_FROM') ?? '$CLAIM Store <orders@claim-store.example>',
      sellerEmail: sellerEmail ?? '',
      sellerEmails,
    };
    if (transport === 'smtp') {
      mail.smtpUrl = r.url('SMTP_URL', undefined, ['smtp:', 'smtps:']);
      if (!mail.smtpUrl)
        r.problem('SMTP_URL: required when MAIL_TRANSPORT=smtp (smtp://user:pass@host:port)');
    }
    if (transport === 'emailjs') {
      const why = 'when MAIL_TRANSPORT=emailjs';
      mail.emailjs = {
        apiUrl: r.url('EMAILJS_API_URL', 'https://api.emailjs.com') ?? '',
        serviceId: r.required('EMAILJS_SERVICE_ID', why),
        userId: r.required('EMAILJS_USER_ID', why),
        accessToken: r.required('EMAILJS_ACCESS_TOKEN', why),
        templates: {
          seller: Object.fromEntries(
            groups.map((g) => [g, r.required(`EMAILJS_TEMPLATE_SELLER_${settingsKey(g)}`, why)]),
          ),
          buyer: r.required('EMAILJS_TEMPLATE_BUYER', why),
        },
      };
    }
    registerSecrets([mail.emailjs?.accessToken, mail.smtpUrl ? urlPassword(mail.smtpUrl) : undefined]);
    return { mail };
  },
});

/** The seller address of a payout group's vendor (VENDOR_<KEY>_EMAIL, else SELLER_EMAIL). */
export function sellerEmailFor(mail: Settings['mail'], group: PayoutGroup): string {
  return mail.sellerEmails?.[group] ?? mail.sellerEmail;
}
