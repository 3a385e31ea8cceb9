/**
 * The request log (src/server/app.ts): one JSON line per answered request, with its method, its redacted URL, the
 * status and the time taken; no client address, no order page token, no second "incoming request" line.
 */
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { closeLightServers, lightServer } from '../support/light-server';

afterEach(closeLightServers);

const server = (lines: string[]) =>
  lightServer(
    { TRUST_PROXY: '1' },
    {
      logger: true,
      logStream: new Writable({
        write(chunk: Buffer, _enc, cb) {
          lines.push(
            ...chunk
              .toString()
              .split('\n')
              .filter((l) => l.trim() !== ''),
          );
          cb();
        },
      }),
    },
  );

describe('request log', () => {
  it('writes one line per answered request: method, redacted URL, status, time; never the client or a token', async () => {
    const lines: string[] = [];
    const s = await server(lines);
    const token = 'a'.repeat(64);
    const asked = [
      await s.app.inject({
        method: 'GET',
        url: '/api/catalog',
        headers: { 'x-forwarded-for': '203.0.113.9' },
      }),
      await s.app.inject({ method: 'GET', url: `/api/order-pages/${token}` }),
      await s.app.inject({ method: 'POST', url: '/api/quotes', payload: { items: [] } }),
    ];
    const requests = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l.req !== undefined || l.msg === 'incoming request');
    expect(requests).toHaveLength(asked.length);
    expect(requests.map((l) => l.msg)).toEqual([
      'request completed',
      'request completed',
      'request completed',
    ]);
    expect(requests.map((l) => l.req)).toEqual([
      { method: 'GET', url: '/api/catalog' },
      { method: 'GET', url: '/api/order-pages/***' },
      { method: 'POST', url: '/api/quotes' },
    ]);
    expect(requests.map((l) => (l.res as { statusCode: number }).statusCode)).toEqual(
      asked.map((r) => r.statusCode),
    );
    for (const l of requests) expect(typeof l.responseTime).toBe('number');
    const all = lines.join('\n');
    expect(all).not.toContain('203.0.113.9');
    expect(all).not.toContain(token);
  });
});
