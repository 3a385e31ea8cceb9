/**
 * `npm start` on a busy port: the real entry point (src/server/main.ts) stops with exit code 1 and one line
 * naming the port and the setting to change, not an EADDRINUSE stack.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'claim-busy-'));
const holders: Server[] = [];
afterAll(async () => {
  for (const h of holders) await new Promise((r) => h.close(r));
  rmSync(dir, { recursive: true, force: true });
});

async function occupy(): Promise<number> {
  const s = createServer();
  holders.push(s);
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const addr = s.address();
  if (!addr || typeof addr === 'string') throw new Error('no port');
  return addr.port;
}

function start(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      env: {
        PATH: process.env.PATH,
        HOST: '127.0.0.1',
        DATABASE_URL: join(dir, `store-${Math.random().toString(36).slice(2)}.sqlite`),
        MAIL_DIR: join(dir, 'mail'),
        ...env,
      },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('a busy port', () => {
  it('PORT in use: one line naming the port and PORT', async () => {
    const port = await occupy();
    const { code, stderr } = await start({ PORT: String(port), LOCALNET_PORT: '0' });
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toEqual([
      `Port ${port} on 127.0.0.1 is in use: set PORT to a free port (or stop the other process).`,
    ]);
  }, 60_000);

  it("the localnet's port in use (demo mode): one line naming LOCALNET_PORT", async () => {
    const port = await occupy();
    const { code, stderr } = await start({ PORT: '0', LOCALNET_PORT: String(port) });
    expect(code).toBe(1);
    const lines = stderr.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(String(port));
    expect(lines[0]).toContain('set LOCALNET_PORT to a free port');
  }, 60_000);
});
