/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): the secret is `whsec_` + base64 of 32 random
 * bytes; each request carries `webhook-id`, `webhook-timestamp` (Unix seconds) and `webhook-signature`, a
 * space-separated list of `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per valid secret (both during a
 * rotation's overlap), so the reference library (`standardwebhooks`) verifies it on the receiving side.
 */
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

export function newSecret(): string {
  return `${SECRET_PREFIX}${randomBytes(32).toString('base64')}`;
}

function keyOf(secret: string): Buffer {
  return Buffer.from(
    secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret,
    'base64',
  );
}

export function signatureOf(secret: string, id: string, timestampS: number, body: string): string {
  const mac = createHmac('sha256', keyOf(secret))
    .update(`${id}.${timestampS}.${body}`, 'utf8')
    .digest('base64');
  return `v1,${mac}`;
}

/** The three headers of one attempt, signed with every secret given (current first). */
export function signedHeaders(
  secrets: readonly string[],
  id: string,
  timestampS: number,
  body: string,
): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampS),
    'webhook-signature': secrets.map((s) => signatureOf(s, id, timestampS, body)).join(' '),
  };
}
