import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { startLocalnet, type Localnet } from '../support/localnet.js';
import { waitFor } from './payments-support.js';

// The public endpoint's limits as a localnet option (LOCALNET_PUBLIC_LIMITS=1), and the WebSocket drop hooks the
// watcher's tests and bench use.

async function rpc(
  net: Localnet,
  body: unknown,
  client?: string,
): Promise<{ status: number; retryAfter: string | null; json: unknown }> {
  const res = await fetch(net.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(client ? { 'x-localnet-client': client } : {}) },
    body: JSON.stringify(body),
  });
  return { status: res.status, retryAfter: res.headers.get('retry-after'), json: await res.json() };
}

const call = (method: string, id = 1) => ({ jsonrpc: '2.0', id, method, params: [] });

describe('localnet with public limits', () => {
  let net: Localnet;
  beforeAll(async () => {
    net = await startLocalnet({ port: 0, slotMs: 0, publicLimits: true });
  });
  afterAll(async () => {
    await net?.close();
  });

  it('answers 429 with Retry-After above 40 requests per method in 10 s', async () => {
    for (let i = 0; i < 40; i++) expect((await rpc(net, call('getSlot'), 'a')).status).toBe(200);
    const refused = await rpc(net, call('getSlot'), 'a');
    expect(refused.status).toBe(429);
    expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
    expect(Number(refused.retryAfter)).toBeLessThanOrEqual(10);
    // Another method still has room; another client is counted apart.
    expect((await rpc(net, call('getHealth'), 'a')).status).toBe(200);
    expect((await rpc(net, call('getSlot'), 'b')).status).toBe(200);
  });

  it('answers 429 above 100 requests in all, counting each entry of a batch', async () => {
    const methods = ['getSlot', 'getHealth', 'getVersion'];
    let sent = 0;
    for (const m of methods) {
      const batch = Array.from({ length: 33 }, (_, i) => call(m, i));
      expect((await rpc(net, batch, 'c')).status).toBe(200);
      sent += batch.length;
    }
    expect(sent).toBe(99);
    expect((await rpc(net, call('getEpochInfo'), 'c')).status).toBe(200);
    const refused = await rpc(net, call('getBlockHeight'), 'c');
    expect(refused.status).toBe(429);
    expect(refused.retryAfter).not.toBeNull();
    expect(net.rpcStats().throttled).toBeGreaterThanOrEqual(2);
    expect(net.rpcStats().byMethod.getSlot).toBeGreaterThanOrEqual(41);
  });

  it('drops WebSocket connections, refuses them while down, accepts them again', async () => {
    const ws = new WebSocket(net.wsUrl);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'slotSubscribe', params: [] }));
    await waitFor('subscribed', () => (net.subscriptionCount() === 1 ? true : undefined));
    const closed = new Promise<number>((resolve) => ws.once('close', (code) => resolve(code)));
    net.dropWebSockets();
    expect(await closed).toBe(1006);
    await waitFor('subscription gone', () => (net.subscriptionCount() === 0 ? true : undefined));

    net.setWebSocketDown(true);
    const refused = new WebSocket(net.wsUrl);
    const failure = await new Promise<string>((resolve) => {
      refused.once('open', () => resolve('open'));
      refused.once('error', (e) => resolve(e.message));
    });
    expect(failure).toMatch(/503/);

    net.setWebSocketDown(false);
    const again = new WebSocket(net.wsUrl);
    await new Promise<void>((resolve, reject) => {
      again.once('open', () => resolve());
      again.once('error', reject);
    });
    again.terminate();
  });
});
