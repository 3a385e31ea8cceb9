/**
 * Load test of GET /api/price on loopback: `npm run bench:price [-- --seconds 10 --connections 64]`.
 * The server runs in a child process (the real buildApp plus the price plugin, the price warmed from a local
 * fake upstream), the load generator here: node:http keep-alive agent, a fixed number of connections each
 * sending requests back to back for a bounded time. Prints req/s, p50/p99/max latency and status counts.
 */
import { fileURLToPath } from 'node:url';
import { closedLoop, cliNumber, httpCall, keepAliveAgent, startServerProcess, summarize } from './lib/load';

const args = process.argv.slice(2);
const opt = (name: string, fallback: number, max: number): number => cliNumber(args, name, fallback, max);

async function serve(): Promise<void> {
  const { buildApp } = await import('../src/server/app');
  const { loadSettings } = await import('../src/server/settings');
  const { catalog } = await import('../catalog');
  const { createPriceService } = await import('../src/server/price');
  const { pricePlugin } = await import('../src/server/http/price-routes');
  const key = '11111111111111111111111111111111';
  const settings = loadSettings(
    { PORT: '0', PRICE_API_URL: 'http://127.0.0.1:9/unused' },
    { claimMint: key, recipients: { coopersglass: key, gorilla: key } },
  );
  const body = JSON.stringify({
    schemaVersion: '1.0.0',
    pairs: [
      {
        chainId: 'solana',
        pairAddress: settings.price.pairAddress,
        priceUsd: '0.0042',
        liquidity: { usd: 48210.55, base: 5739350, quote: 171.3 },
      },
    ],
  });
  const fakeFetch: typeof fetch = async () => new Response(body, { status: 200 });
  const service = createPriceService(settings.price, { fetch: fakeFetch, claimMint: settings.claimMint });
  await service.start();
  const app = await buildApp({ settings, catalog });
  await app.register(pricePlugin, { service });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  process.send?.({ port: typeof addr === 'object' && addr ? addr.port : 0 });
  process.on(
    'disconnect',
    () =>
      void service
        .stop()
        .then(() => app.close())
        .then(() => process.exit(0)),
  );
}

async function load(): Promise<void> {
  const seconds = opt('seconds', 10, 60);
  const warmup = opt('warmup', 2, 10);
  const connections = Math.floor(opt('connections', 64, 512));
  const server = await startServerProcess(fileURLToPath(import.meta.url));
  const agent = keepAliveAgent(connections);
  const call = async () => (await httpCall({ port: server.port, path: '/api/price', agent })).status;

  await closedLoop({ connections, ms: warmup * 1000, call });
  const stats = await closedLoop({ connections, ms: seconds * 1000, call });
  console.log(`GET /api/price: ${connections} connections, ${seconds} s (after ${warmup} s warm-up)`);
  for (const line of summarize(stats)) console.log(line);
  agent.destroy();
  await server.stop();
}

if (args.includes('--server')) await serve();
else await load();
