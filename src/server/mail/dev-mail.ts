/**
 * Reads the `file` transport's .eml files for demo mode's mailbox (src/server/http/dev-mail-routes.ts) with a
 * small MIME reader (headers, RFC 2047 words, base64/QP parts) — enough for the messages our own transport
 * writes.
 */

export interface EmlSummary {
  subject: string;
  to: string;
  from: string;
  date: string;
  text: string;
  /** The HTML part the buyer's mail program shows, when the message has one (never served as this page). */
  html?: string;
}

function splitHeadBody(raw: string): [string, string] {
  const m = /\r?\n\r?\n/.exec(raw);
  return m ? [raw.slice(0, m.index), raw.slice(m.index + m[0].length)] : [raw, ''];
}

function parseHeaders(head: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const i = line.indexOf(':');
    if (i > 0) {
      const key = line.slice(0, i).trim().toLowerCase();
      if (!map.has(key)) map.set(key, line.slice(i + 1).trim());
    }
  }
  return map;
}

function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[BbQq]\?[^?]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?]+)\?([BbQq])\?([^?]*)\?=/g, (_m, _charset: string, enc: string, data: string) => {
      if (enc.toUpperCase() === 'B') return Buffer.from(data, 'base64').toString('utf8');
      const bytes = data.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_x, h: string) => `%${h}`);
      try {
        return decodeURIComponent(bytes.replace(/%(?![0-9A-Fa-f]{2})/g, '%25'));
      } catch {
        return data;
      }
    });
}

function decodeBody(body: string, encoding: string | undefined): string {
  const enc = (encoding ?? '7bit').toLowerCase();
  if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (enc === 'quoted-printable') {
    const bytes = body.replace(/=\r?\n/g, '');
    const out: number[] = [];
    for (let i = 0; i < bytes.length; i++) {
      const c = bytes[i] ?? '';
      const hex = bytes.slice(i + 1, i + 3);
      if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(hex)) {
        out.push(parseInt(hex, 16));
        i += 2;
      } else out.push(...Buffer.from(c, 'utf8'));
    }
    return Buffer.from(out).toString('utf8');
  }
  return body;
}

/** The first part of the message (depth first, as mail programs pick) whose type matches `want`. */
function findPart(want: RegExp, head: Map<string, string>, body: string, depth = 0): string | undefined {
  const type = head.get('content-type') ?? 'text/plain';
  if (want.test(type)) return decodeBody(body, head.get('content-transfer-encoding'));
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!/^multipart\//i.test(type) || !boundary || depth > 4) return undefined;
  for (const part of body.split(`--${boundary}`).slice(1)) {
    if (part.startsWith('--')) break;
    const [h, b] = splitHeadBody(part.replace(/^\r?\n/, ''));
    const found = findPart(want, parseHeaders(h), b.replace(/\r?\n$/, ''), depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

export function readEml(raw: string): EmlSummary {
  const [h, b] = splitHeadBody(raw);
  const head = parseHeaders(h);
  return {
    subject: decodeWords(head.get('subject') ?? ''),
    to: decodeWords(head.get('to') ?? ''),
    from: decodeWords(head.get('from') ?? ''),
    date: head.get('date') ?? '',
    text: findPart(/^text\/plain/i, head, b) ?? '',
    ...withHtml(findPart(/^text\/html/i, head, b)),
  };
}

const withHtml = (html: string | undefined) => (html === undefined ? {} : { html });
