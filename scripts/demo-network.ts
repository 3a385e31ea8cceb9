/**
 * Where the demo tools find the demo's local Solana network: the port the store's own localnet listens on, never
 * a fixed 8899 (a store started with LOCALNET_PORT=9000 has nothing on 8899, or something else: another
 * localnet with the same deterministic demo keys would take the payment and nobody would see it).
 *
 * - `LOCALNET_PORT` set: that port on 127.0.0.1 (as `npm start` and `npm run localnet` read it).
 * - Otherwise the running store tells: `GET <store>/api/config` of `STORE_URL`, else `http://127.0.0.1:<PORT or
 *   3000>`, names its localnet (the browser's RPC URL in demo mode). A store not in demo mode, or none at all, is
 *   said in words; nothing is paid.
 */
export class DemoNetworkError extends Error {}

export interface DemoNetwork {
  rpcUrl: string;
  /** The store's $CLAIM mint, when the store was asked. */
  claimMint?: string;
  /** How it was found, for the tool's first line. */
  how: string;
}

export async function demoNetwork(env: NodeJS.ProcessEnv = process.env): Promise<DemoNetwork> {
  const explicit = env.LOCALNET_PORT?.trim();
  if (explicit) {
    const port = Number(explicit);
    if (!/^\d+$/.test(explicit) || port < 1 || port > 65534)
      throw new DemoNetworkError(`LOCALNET_PORT must be a port number (1 to 65534), not '${explicit}'.`);
    return { rpcUrl: `http://127.0.0.1:${port}`, how: `LOCALNET_PORT=${port}` };
  }
  const store = (env.STORE_URL?.trim() || `http://127.0.0.1:${env.PORT?.trim() || 3000}`).replace(/\/+$/, '');
  let config: { demo?: unknown; cluster?: unknown; rpcUrl?: unknown; claimMint?: unknown };
  try {
    const res = await fetch(`${store}/api/config`, { signal: AbortSignal.timeout(5000) });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    config = (await res.json()) as typeof config;
  } catch {
    throw new DemoNetworkError(
      `No store answers at ${store}. Start it with npm start, or say where it is: PORT (its port), STORE_URL, or LOCALNET_PORT (its local network's port).`,
    );
  }
  if (config.demo !== true || config.cluster !== 'localnet' || typeof config.rpcUrl !== 'string')
    throw new DemoNetworkError(
      `The store at ${store} is not in demo mode: demo tools pay on the demo's local network only.`,
    );
  return {
    rpcUrl: config.rpcUrl,
    ...(typeof config.claimMint === 'string' ? { claimMint: config.claimMint } : {}),
    how: `the store at ${store}`,
  };
}
