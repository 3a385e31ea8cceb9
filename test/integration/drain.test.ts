/**
 * Drain on SIGTERM (issue 31, part 4), against the real server process (src/server/main.ts through tsx, demo
 * mode: SQLite file, the in-process localnet) spawned as a child:
 *
 * - SIGTERM mid-traffic: readiness turns 503 at once (before the drain ends); every request sent during DRAIN_MS
 *   is answered 200, on new connections and on kept-alive ones, and a request already in flight when the signal
 *   came (its body still arriving) is answered too; the process then exits 0 (before SHUTDOWN_DEADLINE_MS, which
 *   would exit 1).
 * - A second SIGTERM during the drain exits at once.
 * - `npm start` (scripts/start.ts) with an up-to-date build: SIGTERM to npm reaches the server, which drains and
 *   exits, and nothing is left running.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { request, Agent } from 'node:http';
import { connect, createServer } from 'node:net';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { buildServer } from '../../scripts/build-server';
import { ensureWebBuild } from '../support/prepare';

const ROOT = resolve(import.meta.dirname, '../..');
const children: ChildProcess[] = [];
const dirs: string[] = [];

afterAll(async () => {
  for (const c of children)
    if (c.exitCode === null && c.signalCode === null) {
      const exited = new Promise((r) => c.once('exit', r));
      c.kill('SIGKILL');
      await exited;
    }
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function canListen(port: number): Promise<boolean> {
  return new Promise((r) => {
    const s = createServer();
    s.once('error', () => r(false));
    s.listen(port, '127.0.0.1', () => s.close(() => r(true)));
  });
}
/** Three consecutive free ports: the store, the localnet's RPC and its WebSocket. */
async function freePorts(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    if ((await Promise.all([port, port + 1, port + 2].map(canListen))).every(Boolean)) return port;
  }
}

interface Spawned {
  child: ChildProcess;
  url: string;
  port: number;
  output: () => string;
  exit: Promise<{ code: number | null; at: number }>;
}

/** Spawns `cmd args` with a demo-mode environment on free ports and waits until readiness answers 200. */
async function spawnStore(
  cmd: string,
  args: string[],
  opts: { cwd?: string; env?: Record<string, string> } = {},
): Promise<Spawned> {
  const port = await freePorts();
  const dir = mkdtempSync(join(ROOT, 'var', 'drain-'));
  dirs.push(dir);
  let out = '';
  const child = spawn(cmd, args, {
    cwd: opts.cwd ?? ROOT,
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      PORT: String(port),
      LOCALNET_PORT: String(port + 1),
      DATABASE_URL: join(dir, 'store.sqlite'),
      MAIL_DIR: join(dir, 'mail'),
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exit = new Promise<{ code: number | null; at: number }>((r) =>
    child.once('exit', (code) => r({ code, at: Date.now() })),
  );
  const url = `http://127.0.0.1:${port}`;
  const end = Date.now() + 90_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the store exited before it was ready:\n${out}`);
    const r = await fetch(`${url}/api/health/ready`).catch(() => undefined);
    if (r?.status === 200) break;
    if (Date.now() > end) throw new Error(`not ready within 90 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, url, port, output: () => out, exit };
}

/** One GET; resolves with the status, or the error's code (a refused or reset connection). */
function get(port: number, path: string, agent: Agent | false): Promise<number | string> {
  return new Promise((resolvePromise) => {
    const req = request({ host: '127.0.0.1', port, path, agent }, (res) => {
      res.resume();
      res.on('end', () => resolvePromise(res.statusCode ?? 0));
    });
    req.on('error', (err: NodeJS.ErrnoException) => resolvePromise(err.code ?? err.message));
    req.end();
  });
}

describe('drain on SIGTERM', () => {
  mkdirSync(join(ROOT, 'var'), { recursive: true });

  it('readiness 503 at once, requests during DRAIN_MS answered (new, kept-alive and in flight), exit 0 before the deadline', async () => {
    const DRAIN_MS = 3_000;
    const s = await spawnStore(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      env: { DRAIN_MS: String(DRAIN_MS), SHUTDOWN_DEADLINE_MS: '20000' },
    });
    const keepAlive = new Agent({ keepAlive: true, maxSockets: 4 });

    // A request in flight when the signal comes: its headers sent, its body not yet.
    const body = JSON.stringify({ items: [{ productId: 'lilac-tiptop', quantity: 1 }] });
    const inFlight = connect(s.port, '127.0.0.1');
    let inFlightAnswer = '';
    inFlight.on('data', (d: Buffer) => (inFlightAnswer += d.toString()));
    await new Promise((r) => inFlight.once('connect', r));
    inFlight.write(
      `POST /api/quotes HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 10)}`,
    );
    // Warm the kept-alive connections.
    expect(await get(s.port, '/api/catalog', keepAlive)).toBe(200);

    // Traffic: every 50 ms a request on a new connection and one on a kept-alive one.
    const results: { at: number; via: string; status: number | string }[] = [];
    let sending = true;
    let signalledAt = 0;
    const traffic = (async () => {
      const pending: Promise<void>[] = [];
      while (sending) {
        const at = Date.now();
        for (const [via, agent] of [
          ['new', false],
          ['kept-alive', keepAlive],
        ] as const)
          pending.push(
            get(s.port, '/api/catalog', agent).then((status) => void results.push({ at, via, status })),
          );
        await new Promise((r) => setTimeout(r, 50));
      }
      await Promise.all(pending);
    })();
    await new Promise((r) => setTimeout(r, 300));

    signalledAt = Date.now();
    s.child.kill('SIGTERM');
    // Readiness turns 503 at once: long before the drain ends.
    let notReadyAt = 0;
    while (!notReadyAt && Date.now() - signalledAt < DRAIN_MS) {
      const st = await get(s.port, '/api/health/ready', false);
      if (st === 503) notReadyAt = Date.now();
    }
    expect(notReadyAt, s.output()).toBeGreaterThan(0);
    // The in-flight request's body arrives during the drain: answered.
    await new Promise((r) => setTimeout(r, 500));
    inFlight.write(body.slice(10));
    // Requests stop a little before the drain ends (after it, the listener closes: new connections are refused,
    // which is the load balancer's business once readiness said 503).
    while (Date.now() - signalledAt < DRAIN_MS - 400) await new Promise((r) => setTimeout(r, 50));
    sending = false;
    await traffic;

    const exit = await s.exit;
    keepAlive.destroy();
    inFlight.destroy();
    const during = results.filter((r) => r.at >= signalledAt);
    console.info(
      `drain: readiness 503 ${notReadyAt - signalledAt} ms after SIGTERM; ${during.length} requests during the drain; exit ${exit.code} ${exit.at - signalledAt} ms after SIGTERM`,
    );
    expect(during.length).toBeGreaterThan(20);
    expect(
      during.filter((r) => r.status !== 200),
      s.output(),
    ).toEqual([]);
    expect(results.filter((r) => r.status !== 200)).toEqual([]);
    expect(inFlightAnswer).toMatch(/^HTTP\/1\.1 200 /);
    expect(inFlightAnswer).toContain('"quote"');
    // Exit 0: closed by itself (the deadline exits 1), after the drain.
    expect(exit.code, s.output()).toBe(0);
    expect(exit.at - signalledAt).toBeGreaterThanOrEqual(DRAIN_MS);
    expect(s.output()).toMatch(/SIGTERM: draining for 3000 ms \(readiness 503\), then closing/);
    expect(s.output()).toMatch(/SIGTERM: closed in \d+ ms/);
  }, 120_000);

  it('a second SIGTERM during the drain exits at once', async () => {
    const s = await spawnStore(process.execPath, ['--import', 'tsx', 'src/server/main.ts'], {
      env: { DRAIN_MS: '60000', SHUTDOWN_DEADLINE_MS: '120000' },
    });
    const t0 = Date.now();
    s.child.kill('SIGTERM');
    const end = Date.now() + 30_000;
    while ((await get(s.port, '/api/health/ready', false)) !== 503 && Date.now() < end)
      await new Promise((r) => setTimeout(r, 50));
    s.child.kill('SIGTERM');
    const exit = await s.exit;
    console.info(`second SIGTERM: exit ${exit.code} ${exit.at - t0} ms after the first (drain 60 s)`);
    expect(exit.code).toBe(1);
    expect(exit.at - t0).toBeLessThan(60_000);
    expect(s.output()).toContain('SIGTERM again: exiting now');
  }, 120_000);

  it('npm start: SIGTERM to npm reaches the server, which drains and exits; nothing is left running', async () => {
    // A checkout whose build is up to date, without rebuilding this one: the sources linked, the server built
    // into its own dist/, the web build linked, the build stamp written after them.
    ensureWebBuild();
    const root = mkdtempSync(join(ROOT, 'var', 'npm-start-'));
    dirs.push(root);
    for (const f of [
      'src',
      'catalog',
      'vendor',
      'node_modules',
      'package.json',
      'package-lock.json',
      'tsconfig.json',
      'vite.config.ts',
    ])
      symlinkSync(join(ROOT, f), join(root, f));
    // Copied, not linked: Node runs a linked main module from its real path (which would be this checkout).
    mkdirSync(join(root, 'scripts'));
    for (const f of ['start.ts', 'build-server.ts', 'prerender.ts', 'compress.ts'])
      copyFileSync(join(ROOT, 'scripts', f), join(root, 'scripts', f));
    await buildServer(join(root, 'dist/server'));
    symlinkSync(join(ROOT, 'dist/web'), join(root, 'dist/web'));
    writeFileSync(join(root, 'dist/.build-complete'), new Date().toISOString());
    expect(existsSync(join(root, 'dist/web/_prerender/manifest.json'))).toBe(true);

    const s = await spawnStore('npm', ['start', '--silent'], {
      cwd: root,
      env: { DRAIN_MS: '1000', SHUTDOWN_DEADLINE_MS: '20000' },
    });
    expect(s.output()).toContain('build: up to date');
    s.child.kill('SIGTERM');
    const exit = await s.exit;
    // Every holder of npm's output pipes is gone (a server left running would hold them open).
    if (s.child.stdout && !s.child.stdout.closed) await new Promise((r) => s.child.stdout?.once('close', r));
    expect(s.output()).toMatch(/SIGTERM: closed in \d+ ms/);
    console.info(`npm start: exit ${exit.code}`);
    // Nothing answers on the store's port any more: no server outlived npm.
    expect(await get(s.port, '/api/health/live', false)).toBe('ECONNREFUSED');
    expect(await get(s.port + 1, '/', false)).toBe('ECONNREFUSED');
  }, 180_000);
});
