import type { Settings } from '../settings';
import { PermanentMailError, type MailTransport, type OutgoingEmail } from './types';
import { displayPayload } from '../../core/email-payload';

/**
 * The `emailjs` transport: POST {apiUrl}/api/v1.0/email/send with the spec's payload as template_params.
 * Seller messages use the seller template of the vendor group, buyer messages the shared buyer template,
 * payment_received the seller template. EmailJS allows 1 request per second: sends are serialized inside the
 * transport and spaced by at least `minIntervalMs` (1.1 s by default, a margin over the limit).
 */

export const EMAILJS_LIB_VERSION = '4.4.1';

export type EmailJsSettings = NonNullable<Settings['mail']['emailjs']>;

export interface EmailJsDeps {
  fetch?: typeof fetch;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
  minIntervalMs?: number;
  timeoutMs?: number;
}

export function emailJsRequestBody(cfg: EmailJsSettings, message: OutgoingEmail): Record<string, unknown> {
  const template_id =
    message.role === 'buyer' ? cfg.templates.buyer : cfg.templates.seller[message.payoutGroup];
  return {
    lib_version: EMAILJS_LIB_VERSION,
    user_id: cfg.userId,
    service_id: cfg.serviceId,
    template_id,
    // The spec's fields by their names; amounts with thousands separators, as our own templates show them.
    template_params: displayPayload(message.payload),
    accessToken: cfg.accessToken,
  };
}

export function createEmailJsTransport(cfg: EmailJsSettings, deps: EmailJsDeps = {}): MailTransport {
  const fetchImpl = deps.fetch ?? fetch;
  const now = deps.now ?? Date.now;
  const sleep = deps.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)));
  const minInterval = deps.minIntervalMs ?? 1_100;
  const timeoutMs = deps.timeoutMs ?? 15_000;
  const url = `${cfg.apiUrl.replace(/\/+$/, '')}/api/v1.0/email/send`;
  let queue: Promise<unknown> = Promise.resolve();
  let lastStart = -Infinity;

  const post = async (message: OutgoingEmail): Promise<void> => {
    const wait = lastStart + minInterval - now();
    if (wait > 0) await sleep(wait);
    lastStart = now();
    let res: Response;
    let body: string;
    try {
      res = await fetchImpl(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(emailJsRequestBody(cfg, message)),
        signal: AbortSignal.timeout(timeoutMs),
      });
      body = (await res.text()).slice(0, 500);
    } catch (err) {
      throw new Error(`EmailJS unreachable: ${(err as Error).message}`);
    }
    if (res.status === 200) return;
    if (res.status >= 400 && res.status < 500 && res.status !== 429) {
      throw new PermanentMailError(`EmailJS refused the message (${res.status}): ${body}`);
    }
    throw new Error(`EmailJS answered ${res.status}: ${body}`);
  };

  return {
    name: 'emailjs',
    send(message) {
      const run = queue.then(() => post(message));
      queue = run.catch(() => undefined);
      return run;
    },
  };
}
