import { mkdir, open, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { buildRfc5322, composeMail } from './compose';
import type { MailTransport, OutgoingEmail } from './types';

/**
 * The `file` transport (default, demo): one RFC 5322 .eml per message under `dir`, named so that names sort by
 * time (`2025-01-01T00-00-00-000Z-000001-<id>.eml`), written atomically (temporary file, fsync, rename).
 */

export interface FileTransportOptions {
  dir: string;
  from: string;
  now?: () => number;
}

let sequence = 0;

export function emlFileName(at: Date, id: string): string {
  sequence = (sequence + 1) % 1_000_000;
  const stamp = at.toISOString().replace(/[:.]/g, '-');
  const safeId = id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64) || 'message';
  return `${stamp}-${String(sequence).padStart(6, '0')}-${safeId}.eml`;
}

export function createFileTransport(opts: FileTransportOptions): MailTransport {
  const now = opts.now ?? Date.now;
  return {
    name: 'file',
    async send(message: OutgoingEmail) {
      const date = new Date(now());
      const bytes = await buildRfc5322(composeMail(message, opts.from, date));
      await mkdir(opts.dir, { recursive: true });
      const name = emlFileName(date, message.id);
      const tmp = join(opts.dir, `.${name}.tmp`);
      const fh = await open(tmp, 'wx', 0o640);
      try {
        await fh.writeFile(bytes);
        await fh.sync();
      } finally {
        await fh.close();
      }
      try {
        await rename(tmp, join(opts.dir, name));
      } catch (err) {
        await rm(tmp, { force: true });
        throw err;
      }
    },
  };
}
