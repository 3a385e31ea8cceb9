import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { FastifyPluginAsync } from 'fastify';
import { readEml } from '../mail/dev-mail';
import { escapeHtml } from '../mail/templates';

/**
 * Demo mode's mailbox: GET /dev/mail lists the .eml files of the `file` transport, newest first, with subject,
 * recipient and date; GET /dev/mail/:file shows one message's plain-text body. Everything is HTML-escaped.
 * Register only in demo mode.
 */
export interface DevMailPluginOptions {
  dir: string;
  /** Most messages listed. Default 200. */
  limit?: number;
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
