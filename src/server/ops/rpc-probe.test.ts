import { describe, expect, it } from 'vitest';
import { createRpcProbe } from './rpc-probe';

class NotSent extends Error {}

describe('createRpcProbe', () => {
  it('keeps the last answer when the request was never sent, and says not reachable when it failed', async () => {
    let t = 0;
    let mode: 'ok' | 'not-sent' | 'down' = 'ok';
    const fetchStub = (async () => {
      if (mode === 'not-sent') throw new NotSent('no budget slot');
      if (mode === 'down') throw new TypeError('fetch failed');
      return new Response(JSON.stringify({ jsonrpc: '2.0', id: 1, result: 42 }), { status: 200 });
    }) as typeof fetch;
    const probe = createRpcProbe('http://rpc.test', {
      fetch: fetchStub,
      now: () => t,
      notAsked: (err) => err instanceof NotSent,
    });
    expect(await probe()).toBe(true);
    t += 6_000;
    mode = 'not-sent';
    expect(await probe()).toBe(true); // nothing was asked: the RPC answered last time
    t += 6_000;
    mode = 'down';
    expect(await probe()).toBe(false);
    t += 6_000;
    mode = 'not-sent';
    expect(await probe()).toBe(false); // still the last answer
    t += 6_000;
    mode = 'ok';
    expect(await probe()).toBe(true);
  });
});
