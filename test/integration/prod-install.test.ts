/**
 * The Dockerfile's steps without Docker (issue 31): a production-only install in a folder of its own, the build
 * copied in, `npm run migrate` (the release step), `npm run start:prod`, readiness, and a purchase on the demo chain.
 *
 * The install is this checkout's node_modules hard-linked into the folder (`cp -al`, about a second) and
 * `npm prune --omit=dev` there: the same package set as the image's `npm ci --omit=dev`, without the network
 * (CI reaches only the npm registry; better-sqlite3's native build would need more). Then plain Node runs the
 * built server (dist/server/main.js, scripts/build-server.ts) with none of the devDependencies present (vite,
 * vitest, eslint, @solana/pay are checked gone), so a runtime import of one fails here.
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { cpus, loadavg } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OrderCreated, OrderPublic, QuoteResponse } from '../../src/core/api';
import { buildServer } from '../../scripts/build-server';
import { ensureWebBuild } from '../support/prepare';
import { usShipping } from './orders-support';

const ROOT = resolve(import.meta.dirname, '../..');
let dir = '';
let child: ChildProcess | undefined;
let output = '';

beforeAll(async () => {
  ensureWebBuild();
  // Under var/ (same file system as node_modules, so the hard links work; ignored by git, lint and tsc).
  mkdirSync(join(ROOT, 'var'), { recursive: true });
  dir = mkdtempSync(join(ROOT, 'var', 'prod-install-'));
  for (const f of ['package.json', 'package-lock.json']) cpSync(join(ROOT, f), join(dir, f));
  cpSync(join(ROOT, 'vendor'), join(dir, 'vendor'), { recursive: true });
  execFileSync('cp', ['-al', join(ROOT, 'node_modules'), join(dir, 'node_modules')]);
  execFileSync(
    'npm',
    ['prune', '--omit=dev', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'],
    { cwd: dir, stdio: 'pipe' },
  );
  // The build copied in: the web app as `npm run build` makes it, the server compiled for this folder.
  cpSync(join(ROOT, 'dist/web'), join(dir, 'dist/web'), { recursive: true });
  await buildServer(join(dir, 'dist/server'));
}, 180_000);

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((r) => child?.once('exit', r));
    child.kill('SIGKILL');
    await exited;
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Two consecutive free ports (the localnet's RPC and its WebSocket on the next one). */
async function freePortPair(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 20_000);
    const free = await Promise.all([port, port + 1].map((p) => canListen(p)));
    if (free.every(Boolean)) return port;
  }
}
function canListen(port: number): Promise<boolean> {
  return new Promise((r) => {
    const s = createServer();
    s.once('error', () => r(false));
    s.listen(port, '127.0.0.1', () => s.close(() => r(true)));
  });
}

/** Resolves with the first capture of `re` in the child's output. */
function waitFor(re: RegExp, ms: number): Promise<string> {
  return new Promise((resolvePromise, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${re} within ${ms} ms; output:\n${output}`)), ms);
    const check = () => {
      const m = re.exec(output);
      if (m?.[1]) {
        clearTimeout(timer);
        child?.stdout?.off('data', check);
        resolvePromise(m[1]);
      }
    };
    child?.stdout?.on('data', check);
    check();
  });
}

describe('production-only install (the Dockerfile without Docker)', () => {
  it('has the runtime packages and none of the devDependencies', () => {
    for (const p of ['better-sqlite3', 'pg', 'fastify', 'litesvm', 'kysely'])
      expect(existsSync(join(dir, 'node_modules', p)), p).toBe(true);
    // (typescript stays: @solana/kit's packages name it as a peer dependency.)
    // web3.js and spl-token too: the demo chain is on kit (issue 30 item 4), only tests use them.
    const dev = ['vite', 'vitest', 'eslint', 'solana-pay-client', '@solana/pay', 'playwright-core'];
    for (const p of [...dev, '@solana/web3.js', '@solana/spl-token'])
      expect(existsSync(join(dir, 'node_modules', p)), p).toBe(false);
  });

  it('npm run start:prod answers readiness, then sells: quote, QR order, payment on the demo chain, paid', async () => {
    // The release step first, from the build (dist/server/migrate.js): the empty store gets this release's schema.
    const migrated = spawnSync('npm', ['run', '--silent', 'migrate'], {
      cwd: dir,
      env: { PATH: process.env.PATH, HOME: process.env.HOME, DATABASE_URL: join(dir, 'var/store.sqlite') },
      encoding: 'utf8',
    });
    expect(migrated.status, migrated.stderr).toBe(0);
    expect(migrated.stdout).toContain("is at this release's schema");

    const localnetPort = await freePortPair();
    const t0 = performance.now();
    child = spawn('npm', ['run', '--silent', 'start:prod'], {
      cwd: dir,
      env: {
        PATH: process.env.PATH,
        HOME: process.env.HOME,
        PORT: '0',
        LOCALNET_PORT: String(localnetPort),
        DATABASE_URL: join(dir, 'var/store.sqlite'),
        MAIL_DIR: join(dir, 'var/mail'),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (output += d.toString()));

    const url = await waitFor(/\$CLAIM store on (http:\/\/[\d.:]+)/, 30_000);
    let ready = 0;
    while (performance.now() - t0 < 30_000) {
      const r = await fetch(`${url}/api/health/ready`).catch(() => undefined);
      if (r?.status === 200) {
        ready = performance.now() - t0;
        break;
      }
      await new Promise((r) => setTimeout(r, 25));
    }
    // The target: 3 s on this machine. It is shared (2 cores, a whole test run, other sessions), so the
    // bound scales with the run queue: 3 s per core's worth of load (a rebuild cannot hide in it: vite is gone).
    const perCore = loadavg()[0]! / cpus().length;
    const limit = 3_000 * Math.max(1, perCore);
    console.log(
      `prod install: readiness ${Math.round(ready)} ms after spawn (npm run start:prod, demo mode; ` +
        `load ${perCore.toFixed(1)} per core, bound ${Math.round(limit)} ms)`,
    );
    expect(ready, output).toBeGreaterThan(0);
    expect(ready).toBeLessThan(limit);

    // The pages come from the copied build.
    const home = await fetch(`${url}/`);
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('<div id="root">');

    const q = await fetch(`${url}/api/quotes`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ items: [{ productId: 'honey-dew-papaya-live-rosin', quantity: 1 }] }),
    });
    expect(q.status).toBe(200);
    const quote = (await q.json()) as QuoteResponse;
    const o = await fetch(`${url}/api/orders`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': `prod-${Date.now()}` },
      body: JSON.stringify({ quote: quote.quote, shipping: usShipping, paymentMethod: 'qr' }),
    });
    expect(o.status).toBe(201);
    const order = (await o.json()) as OrderCreated;

    // A wallet scanning the QR: the demo buyer pays the link on the instance's own localnet.
    execFileSync(process.execPath, ['--import', 'tsx', 'scripts/demo-pay.ts', order.solanaPayUrl], {
      cwd: ROOT,
      env: { ...process.env, LOCALNET_PORT: String(localnetPort) },
      stdio: 'pipe',
    });
    let status = '';
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      // (A kept-alive socket the server closed between polls is not an answer: ask again.)
      const r = await fetch(`${url}/api/orders/${order.orderId}`).catch(() => undefined);
      if (r?.ok) status = ((await r.json()) as OrderPublic).status;
      if (status === 'paid') break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(status, output).toBe('paid');
  }, 120_000);
});
