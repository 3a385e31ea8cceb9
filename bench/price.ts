/**
 * Load test of GET /api/price on loopback: `npm run bench:price [-- --seconds 10 --connections 64]`.
 * The server runs in a child process (the real buildApp plus the price plugin, the price warmed from a local
 * fake upstream), the load generator here: node:http keep-alive agent, a fixed number of connections each
 * sending requests back to back for a bounded time. Prints req/s, p50/p99/max latency and status counts.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { Agent, request } from 'node:http';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const opt = (name: string, fallback: number, max: number): number => {
  const i = args.indexOf(`--${name}`);
  const v = i >= 0 ? Number(args[i + 1]) : fallback;
  return Number.isFinite(v) && v > 0 ? Math.min(v, max) : fallback;
};

async function serve(): Promise<void> {
  const { buildApp } = await import('../src/server/app');
  const { loadSettings } = await import('../src/server/settings');
  const { catalog } = await import('../catalog');
  const { createPriceService, pricePlugin } = await import('../src/server/price');
  const key = '11111111111111111111111111111111';
  const settings = loadSettings({ PORT: '0', PRICE_API_URL: 'http://127.0.0.1:9/unused' }, { claimMint: key, recipients: { coopersglass: key, gorilla: key } });
  const body = JSON.stringify({ schemaVersion: '1.0.0', pairs: [{ chainId: 'solana', pairAddress: settings.price.pairAddress, priceUsd: '0.0042' }] });
  const fakeFetch: typeof fetch = async () => new Response(body, { status: 200 });
  const service = createPriceService(settings.price, { fetch: fakeFetch });
  await service.start();
  const app = await buildApp({ settings, catalog });
  await app.register(pricePlugin, { service });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  process.send?.({ port: typeof addr === 'object' && addr ? addr.port : 0 });
  process.on('disconnect', () => void service.stop().then(() => app.close()).then(() => process.exit(0)));
}

async function load(): Promise<void> {
  const seconds = opt('seconds', 10, 60);
  const warmup = opt('warmup', 2, 10);
  const connections = Math.floor(opt('connections', 64, 512));
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), ['--server'], { execArgv: ['--import', 'tsx'], stdio: 'inherit' });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('message', (m: { port: number }) => resolve(m.port));
    child.once('exit', (code) => reject(new Error(`server exited (${code})`)));
  });
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const req = request({ host: '127.0.0.1', port, path: '/api/price', agent }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      });
      req.on('error', reject);
      req.end();
    });

  const run = async (ms: number, record: boolean) => {
    const lat: number[] = [];
    const statuses = new Map<number, number>();
    let errors = 0;
    const end = performance.now() + ms;
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < end) {
          const t0 = performance.now();
          try {
            const s = await once();
            if (record) {
              lat.push(performance.now() - t0);
              statuses.set(s, (statuses.get(s) ?? 0) + 1);
            }
          } catch {
            errors++;
          }
        }
      }),
    );
    return { lat, statuses, errors };
  };

  await run(warmup * 1000, false);
  const t0 = performance.now();
  const { lat, statuses, errors } = await run(seconds * 1000, true);
  const elapsed = (performance.now() - t0) / 1000;
  lat.sort((a, b) => a - b);
  const pct = (p: number) => lat[Math.min(lat.length - 1, Math.floor((p / 100) * lat.length))] ?? NaN;
  console.log(`GET /api/price: ${connections} connections, ${seconds} s (after ${warmup} s warm-up)`);
  console.log(`  requests ${lat.length}, ${(lat.length / elapsed).toFixed(0)} req/s, errors ${errors}`);
  console.log(`  latency p50 ${pct(50).toFixed(2)} ms, p99 ${pct(99).toFixed(2)} ms, max ${(lat.at(-1) ?? NaN).toFixed(2)} ms`);
  console.log(`  statuses ${JSON.stringify(Object.fromEntries(statuses))}`);
  agent.destroy();
  child.disconnect();
}

if (args.includes('--server')) await serve();
else await load();
