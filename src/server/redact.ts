/**
 * Redaction for every message and log line the server writes: credentials and personal data never reach a log,
 * an error message or a settings problem.
 *
 * - URLs lose their password (`smtp://user:***@host`) and the values of credential-like query parameters
 *   (`?api-key=***`, token, key, secret, password, auth, access_token…).
 * - E-mail addresses become `***@domain` (the domain helps to diagnose delivery; the mailbox is personal).
 * - Registered secret values (QUOTE_SECRET, tokens, the SMTP password…) are replaced wherever they appear.
 *
 * Street addresses are not pattern-matched (no reliable pattern exists): the server never logs shipping
 * details or order rows; only order ids, statuses and error messages passed through here.
 */

const SECRET_PARAM =
  /^(api[-_]?key|apikey|key|token|access[-_]?token|auth|authorization|secret|password|pass|pwd|sig|signature)$/i;

const URL_IN_TEXT = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"<>]+/gi;
const EMAIL_IN_TEXT = /([^\s@'"<>(),;:]+)@([A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9-]+)+)/g;

const registered = new Set<string>();

/** Secrets to mask wherever they appear in text (values shorter than 6 characters are ignored). */
export function registerSecrets(values: (string | undefined)[]): void {
  for (const v of values) if (v && v.length >= 6) registered.add(v);
}

/** One URL without its password and credential-like query values; unparseable text is returned as is. */
export function redactUrl(raw: string): string {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    return raw;
  }
  let changed = false;
  if (u.password) {
    u.password = '***';
    changed = true;
  }
  for (const name of [...u.searchParams.keys()]) {
    if (SECRET_PARAM.test(name)) {
      u.searchParams.set(name, '***');
      changed = true;
    }
  }
  // Path segments that look like provider keys (long random strings, e.g. /v2/<key>): keep the host only.
  const segments = u.pathname.split('/');
  if (segments.some((s) => /^[A-Za-z0-9_-]{24,}$/.test(s) && /\d/.test(s) && /[A-Za-z]/.test(s))) {
    u.pathname = segments.map((s) => (/^[A-Za-z0-9_-]{24,}$/.test(s) && /\d/.test(s) ? '***' : s)).join('/');
    changed = true;
  }
  return changed ? u.toString().replace(/%2A%2A%2A/g, '***') : raw;
}

/** Any text with URLs' credentials, e-mail addresses and registered secrets masked. */
export function redact(text: string): string {
  let out = text.replace(URL_IN_TEXT, (m) => redactUrl(m));
  for (const secret of registered) if (out.includes(secret)) out = out.split(secret).join('***');
  out = out.replace(EMAIL_IN_TEXT, (_m, _local: string, domain: string) => `***@${domain}`);
  return out;
}

/** Query parameters that carry what a person typed to find someone (the seller console's search): never logged. */
const SEARCH_PARAM = /^(q|query|search|term|name|email|e-mail)$/i;

/**
 * Capabilities and identifiers in request paths: the buyer's order page token (`/order/<token>`,
 * `/api/order-pages/<token>`) is a key to the order and is masked whole, as is a transaction request's pay token
 * (`/api/pay/<token>`); an order id is cut to its first 8
 * characters (the order number the seller and the e-mails show), enough to follow one order through a log.
 */
function redactPathIds(path: string): string {
  return (
    path
      .replace(/^(\/order\/|\/api\/order-pages\/)[^/?#]+/i, '$1***')
      // A transaction request's pay token (orders/pay-requests.ts): it only pays the order, but it names it.
      .replace(/^(\/api\/pay\/)(?!icon\.svg)[^/?#]+/i, '$1***')
      .replace(
        /\b([0-9a-f]{8})-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi,
        (_m, head: string) => `${head}…`,
      )
  );
}

/**
 * A request URL (path and query, as logged): order page tokens masked and order ids shortened, search terms
 * masked, credential-like parameters masked, and every other parameter value and the path read decoded, so
 * `?email=ada%40example.com` is caught like `ada@example.com`.
 */
export function redactRequestUrl(url: string): string {
  const q = url.indexOf('?');
  const path = redactPathIds(q === -1 ? url : url.slice(0, q));
  const decode = (x: string) => {
    try {
      return decodeURIComponent(x.replace(/\+/g, ' '));
    } catch {
      return x;
    }
  };
  const safePath = redact(decode(path)) === decode(path) ? path : redact(decode(path));
  if (q === -1) return safePath;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq === -1) return pair;
      const name = pair.slice(0, eq);
      const value = pair.slice(eq + 1);
      if (SECRET_PARAM.test(decode(name)) || SEARCH_PARAM.test(decode(name))) return `${name}=***`;
      const shown = redact(decode(value));
      return shown === decode(value) ? pair : `${name}=${encodeURIComponent(shown).replace(/%2A/g, '*')}`;
    });
  return `${safePath}?${params.join('&')}`;
}

/** An error as one redacted line (name: message), for logs. */
export function redactError(err: unknown): string {
  if (err instanceof Error) return redact(`${err.name}: ${err.message}`);
  return redact(String(err));
}
