import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { readEml } from '../mail/dev-mail';
import { escapeHtml } from '../mail/templates';
import { formatDateTime } from '../../core/zone-dates';

/**
 * Demo mode's mailbox: GET /dev/mail lists the .eml files of the `file` transport, newest first, with subject,
 * recipient and date; GET /dev/mail/:file shows one message as its recipient sees it — the HTML part in a
 * sandboxed frame (GET /dev/mail/:file/html) — and its plain-text part below. Everything of ours is HTML-escaped.
 * The message's own HTML is never part of our page: it is served alone with a policy of its own (sandboxed, no
 * script, nothing loaded but inline styles and images) and framed by `<iframe sandbox>` (no scripts, a unique
 * origin), so nothing in a message can act as this site. Register only in demo mode.
 */
export interface DevMailPluginOptions {
  dir: string;
  /** Most messages listed. Default 200. */
  limit?: number;
}

const FILE = /^[0-9A-Za-z][0-9A-Za-z_-]*\.eml$/;

/** The mailbox pages: their own inline style, frames of this site only (the HTML part), nothing else. */
const PAGE_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; img-src 'self' data:; frame-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";
/**
 * A message's HTML part: sandboxed (a unique origin, no scripts, no forms), inline styles and images only, framed
 * by the mailbox page alone. Links open in a new tab (`<base target="_blank">`: the frame allows popups).
 */
const HTML_PART_POLICY =
  "sandbox allow-popups allow-popups-to-escape-sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data: https: http:; script-src 'none'; form-action 'none'; base-uri 'none'; frame-ancestors 'self'";

/** The message's Date header in the site's one date format ("1 Mar 2025, 10:00 UTC"); as written if unreadable. */
const dateText = (header: string): string => {
  const ms = Date.parse(header);
  return escapeHtml(Number.isNaN(ms) ? header : formatDateTime(new Date(ms).toISOString(), 'UTC'));
};

const page = (title: string, body: string): string =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1"><title>${escapeHtml(title)}</title>` +
  `<style>body{font-family:system-ui,sans-serif;margin:1rem;max-width:60rem}td,th{padding:.3rem .8rem;text-align:left;vertical-align:top}td{overflow-wrap:anywhere}pre{white-space:pre-wrap;overflow-wrap:anywhere}iframe{width:100%;height:min(150vh,80rem);border:1px solid #ccc;border-radius:4px;background:#fff}a{display:inline-flex;align-items:center;min-height:44px}</style></head><body>${body}</body></html>`;

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
        return `<tr><td><a href="/dev/mail/${encodeURIComponent(f)}">${escapeHtml(m.subject || '(no subject)')}</a></td><td>${escapeHtml(m.to)}</td><td>${dateText(m.date)}</td></tr>`;
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
      .header('content-security-policy', PAGE_POLICY)
      .send(page('Mail (demo)', body));
  });

  /** One message's raw text, or undefined (404) for a name that is not one of the mailbox's files. */
  const message = async (file: string): Promise<string | undefined> => {
    if (!FILE.test(file)) return undefined;
    try {
      return await readFile(join(opts.dir, file), 'utf8');
    } catch {
      return undefined;
    }
  };
  const notFound = { error: 'not_found', message: 'No such message' };

  app.get<{ Params: { file: string } }>('/dev/mail/:file/html', async (req, reply) => {
    const raw = await message(req.params.file);
    const html = raw === undefined ? undefined : readEml(raw).html;
    if (html === undefined) return reply.status(404).send(notFound);
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', HTML_PART_POLICY)
      .header('x-frame-options', 'SAMEORIGIN')
      .send(`<base target="_blank">${html}`);
  });

  app.get<{ Params: { file: string } }>('/dev/mail/:file', async (req, reply) => {
    const file = req.params.file;
    const raw = await message(file);
    if (raw === undefined) return reply.status(404).send(notFound);
    const m = readEml(raw);
    const htmlPart =
      m.html === undefined
        ? ''
        : `<h2>As the recipient sees it</h2><iframe sandbox="allow-popups allow-popups-to-escape-sandbox" title="The message's HTML part" src="/dev/mail/${encodeURIComponent(file)}/html"></iframe>`;
    const body =
      `<p><a href="/dev/mail">← all mail</a></p><h1>${escapeHtml(m.subject || '(no subject)')}</h1>` +
      `<table><tr><th>From</th><td>${escapeHtml(m.from)}</td></tr><tr><th>To</th><td>${escapeHtml(m.to)}</td></tr><tr><th>Date</th><td>${dateText(m.date)}</td></tr></table>` +
      htmlPart +
      `<h2>Plain text</h2><pre>${escapeHtml(m.text)}</pre>`;
    return reply
      .type('text/html; charset=utf-8')
      .header('cache-control', 'no-store')
      .header('content-security-policy', PAGE_POLICY)
      .send(page(m.subject || 'Message', body));
  });
};
