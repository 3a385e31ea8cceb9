import type { Settings } from '../settings';
import { createEmailJsTransport, type EmailJsDeps } from './emailjs-transport';
import { createFileTransport } from './file-transport';
import { createSmtpTransport } from './smtp-transport';
import type { MailTransport } from './types';

export type { MailTransport, OutgoingEmail } from './types';
export { PermanentMailError } from './types';
export { renderEmail, subjectFor, escapeHtml, headerSafe, type RenderedEmail } from './templates';
export { createFileTransport, type FileTransportOptions } from './file-transport';
export { createSmtpTransport, type SmtpTransportOptions } from './smtp-transport';
export {
  createEmailJsTransport,
  emailJsRequestBody,
  EMAILJS_LIB_VERSION,
  type EmailJsDeps,
} from './emailjs-transport';
export { readEml } from './dev-mail';

export interface MailTransportDeps extends EmailJsDeps {
  now?: () => number;
}

/** The transport named by settings.mail.transport. */
export function createMailTransport(mail: Settings['mail'], deps: MailTransportDeps = {}): MailTransport {
  switch (mail.transport) {
    case 'file':
      return createFileTransport({ dir: mail.dir, from: mail.from, ...(deps.now ? { now: deps.now } : {}) });
    case 'smtp':
      if (!mail.smtpUrl) throw new Error('settings.mail.smtpUrl is required for the smtp transport');
      return createSmtpTransport({
        smtpUrl: mail.smtpUrl,
        from: mail.from,
        ...(deps.now ? { now: deps.now } : {}),
      });
    case 'emailjs':
      if (!mail.emailjs) throw new Error('settings.mail.emailjs is required for the emailjs transport');
      return createEmailJsTransport(mail.emailjs, deps);
  }
}
