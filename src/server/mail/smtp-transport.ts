import nodemailer from 'nodemailer';
import { composeMail } from './compose';
import { PermanentMailError, type MailTransport, type OutgoingEmail } from './types';

/** The `smtp` transport: nodemailer, one connection per message (no pool), bounded timeouts. */

export interface SmtpTransportOptions {
  smtpUrl: string;
  from: string;
  now?: () => number;
  connectionTimeoutMs?: number;
  socketTimeoutMs?: number;
}

export function createSmtpTransport(opts: SmtpTransportOptions): MailTransport {
  const now = opts.now ?? Date.now;
  const transporter = nodemailer.createTransport({
    url: opts.smtpUrl,
    pool: false,
    connectionTimeout: opts.connectionTimeoutMs ?? 10_000,
    greetingTimeout: opts.connectionTimeoutMs ?? 10_000,
    socketTimeout: opts.socketTimeoutMs ?? 30_000,
    disableFileAccess: true,
    disableUrlAccess: true,
  });
  return {
    name: 'smtp',
    async send(message: OutgoingEmail) {
      const mail = composeMail(message, opts.from, new Date(now()));
      try {
        await transporter.sendMail({ ...mail, encoding: 'base64' });
      } catch (err) {
        const code = (err as { responseCode?: unknown }).responseCode;
        // 5xx from the server: the message itself is refused; retrying cannot help. 4xx and network: retry.
        if (typeof code === 'number' && code >= 500 && code < 600) {
          throw new PermanentMailError(`SMTP refused the message (${code}): ${(err as Error).message}`);
        }
        throw err;
      }
    },
    async close() {
      transporter.close();
    },
  };
}
