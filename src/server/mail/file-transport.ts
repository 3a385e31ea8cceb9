import { mkdir, open, readdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { buildRfc5322, composeMail } from './compose';
import type { MailTransport, OutgoingEmail } from './types';

/**
 * The `file` transport (default, demo): one RFC 5322 .eml per message under `dir`, named so that names sort by
 * time (`2025-01-01T00-00-00-000Z-000001-<id>.eml`), written atomically (temporary file, fsync, rename).
 * The files quote the buyer: when an order's details are erased ("Delete my details", retention), the outbox
 * worker erases that order's files too (keptIds / eraseKept; docs/decisions/privacy.md).
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

const EML_NAME = /^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\d-\d{3}Z-\d{6}-([A-Za-z0-9_-]{1,64})\.eml$/;

/** The outbox row id (as written in the name) of each .eml file in `dir`, by file name. */
async function emlFiles(dir: string): Promise<Map<string, string[]>> {
  const byId = new Map<string, string[]>();
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return byId;
    throw err;
  }
  for (const name of names) {
    const id = EML_NAME.exec(name)?.[1];
    if (id !== undefined) byId.set(id, [...(byId.get(id) ?? []), name]);
  }
  return byId;
}

export function createFileTransport(opts: FileTransportOptions): MailTransport {
  const now = opts.now ?? Date.now;
  return {
    name: 'file',
    async keptIds() {
      return [...(await emlFiles(opts.dir)).keys()];
    },
    async eraseKept(ids) {
      const files = await emlFiles(opts.dir);
      let erased = 0;
      for (const id of ids) {
        const safeId = id.replace(/[^A-Za-z0-9_-]/g, '_').slice(0, 64);
        for (const name of files.get(safeId) ?? []) {
          await rm(join(opts.dir, name), { force: true });
          erased++;
        }
      }
      return erased;
    },
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
