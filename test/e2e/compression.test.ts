/**
 * The built app is served precompressed (scripts/compress.ts → .br/.gz beside each text asset): brotli or gzip
 * by Accept-Encoding, identity otherwise, the same bytes once decoded (pages: compressed at request time with their
 * boot data block, http/pages.ts); hashed assets cached for a year.
 */
import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../support/browser';

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
});
afterAll(async () => {
  await server?.close();
});

/** A raw GET (no automatic decoding, unlike fetch). */
function get(path: string, acceptEncoding?: string) {
  return new Promise<{
    status: number;
    headers: Record<string, string | string[] | undefined>;
    body: Buffer;
  }>((resolve, reject) => {
    const req = request(
      new URL(path, server.url),
      { headers: acceptEncoding ? { 'accept-encoding': acceptEncoding } : {} },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** The page without its boot data block (the price in it may move between two requests: its age, a refresh). */
const withoutBoot = (b: Buffer) =>
  b.toString().replace(/<script type="application\/json" id="boot-data">[^<]*<\/script>/, '');

describe('precompressed responses', () => {
  it('serves prerendered pages as brotli, gzip or identity, the same page once decoded', async () => {
    const plain = await get('/about');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.headers.vary).toContain('Accept-Encoding');
    expect(plain.body.toString()).toContain('About Us');
    // The price and config the server adds at request time (http/boot-data.ts), compressed with the page.
    expect(plain.body.toString()).toContain('<script type="application/json" id="boot-data">{"config":');

    const br = await get('/about', 'gzip, deflate, br');
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.body.length).toBeLessThan(plain.body.length);
    expect(withoutBoot(brotliDecompressSync(br.body))).toBe(withoutBoot(plain.body));

    const gz = await get('/about', 'br;q=0, gzip');
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(withoutBoot(gunzipSync(gz.body))).toBe(withoutBoot(plain.body));

    const notFound = await get('/no-such-page', 'br');
    expect(notFound.status).toBe(404);
    expect(notFound.headers['content-encoding']).toBe('br');
  });

  it('serves hashed assets precompressed and cacheable for a year', async () => {
    const page = (await get('/')).body.toString();
    const script = /<script type="module"[^>]*src="(\/assets\/[^"]+\.js)"/.exec(page)?.[1];
    expect(script).toBeDefined();
    const plain = await get(script ?? '');
    const br = await get(script ?? '', 'br');
    expect(br.status).toBe(200);
    expect(br.headers['content-encoding']).toBe('br');
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expect(brotliDecompressSync(br.body).equals(plain.body)).toBe(true);
    expect(br.body.length * 2).toBeLessThan(plain.body.length);
  });
});
