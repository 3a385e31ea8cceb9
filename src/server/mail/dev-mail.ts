import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { escapeHtml } from './templates';

/**
 * Demo mode's mailbox: GET /dev/mail lists the .eml files of the `file` transport, newest first, with subject,
 * recipient and date; GET /dev/mail/:file shows one message's plain-text body. Everything is HTML-escaped.
 * Register only in demo mode. Reads the files with a small MIME reader (headers, RFC 2047 words, base64/QP
 * parts) — enough for the messages our own transport writes.
 */

export interface DevMailPluginOptions {
  dir: string;
  /** Most messages listed. Default 200. */
  limit?: number;
}

export interface EmlSummary {
  subject: string;
  to: string;
  from: string;
  date: string;
  text: string;
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

function findText(head: Map<string, string>, body: string, depth = 0): string | undefined {
  const type = head.get('content-type') ?? 'text/plain';
  if (/^text\/plain/i.test(type)) return decodeBody(body, head.get('content-transfer-encoding'));
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!/^multipart\//i.test(type) || !boundary || depth > 4) return undefined;
  for (const part of body.split(`--${boundary}`).slice(1)) {
    if (part.startsWith('--')) break;
    const [h, b] = splitHeadBody(part.replace(/^\r?\n/, ''));
    const found = findText(parseHeaders(h), b.replace(/\r?\n$/, ''), depth + 1);
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
    text: findText(head, b) ?? '',
  };
}

const FILE = /^[0-9A-Za-z][0-9A-Za-z_-]*\.eml$/;

const page = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>` +
  `<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:60rem}td,th{padding:.3rem .8rem;text-align:left;vertical-align:top}pre{white-space:pre-wrap}</style></head><body>${body}</body></html>`;

export const devMailPlugin: FastifyPluginAsync<DevMailPluginOptions> = async (app, opts) => {
  const limit = opts.limit ?? 200;
  const list = async (): Promise<string[]> => {
    try {
      return (await readdir(opts.dir))
        .filter((f) => FILE.test(f))
        .sort()
        .reverse()
        .slice(0, limit);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
      throw err;
    }
  };

  app.get('/dev/mail', async (_req, reply) => {
    const files = await list();
    const rows = await Promise.all(
      files.map(async (f) => {
        const m = readEml(await readFile(join(opts.dir, f), 'utf8'));
        return `<tr><td><a href="/dev/mail/${encodeURIComponent(f)}">${escapeHtml(m.subject || '(no subject)')}</a></td><td>${escapeHtml(m.to)}</td><td>${escapeHtml(m.date)}</td></tr>`;
      }),
    );
    const body =
      `<h1>Mail (demo)</h1><p>${files.length} message(s) in ${escapeHtml(opts.dir)}, newest first.</p>` +
      (rows.length
        ? `<table><thead><tr><th>Subject</th><th>To</th><th>Date</th></tr></thead><tbody>${rows.join('')}</tbody></table>`
        : '<p>No messages yet.</p>');
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(page('Mail (demo)', body));
  });

  app.get<{ Params: { file: string } }>('/dev/mail/:file', async (req, reply) => {
    const file = req.params.file;
    if (!FILE.test(file)) return reply.status(404).send({ error: 'not_found', message: 'No such message' });
    let raw: string;
    try {
      raw = await readFile(join(opts.dir, file), 'utf8');
    } catch {
      return reply.status(404).send({ error: 'not_found', message: 'No such message' });
    }
    const m = readEml(raw);
    const body =
      `<p><a href="/dev/mail">← all mail</a></p><h1>${escapeHtml(m.subject || '(no subject)')}</h1>` +
      `<table><tr><th>From</th><td>${escapeHtml(m.from)}</td></tr><tr><th>To</th><td>${escapeHtml(m.to)}</td></tr><tr><th>Date</th><td>${escapeHtml(m.date)}</td></tr></table>` +
      `<pre>${escapeHtml(m.text)}</pre>`;
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .send(page(m.subject || 'Message', body));
  });
};
