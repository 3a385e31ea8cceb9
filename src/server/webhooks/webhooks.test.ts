import { Webhook } from 'standardwebhooks';
import { describe, expect, it } from 'vitest';
import { addressAllowed, checkDestination, classifyAddress } from './address';
import { eventBody, wantsEvent } from './queue';
import { newSecret, signedHeaders } from './sign';
import { webhookBackoffMs } from './worker';

describe('webhook destinations', () => {
  it.each([
    ['93.184.215.14', 'public'],
    ['2606:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.31.255.1', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12:3456::1', 'private'],
    ['169.254.1.1', 'link_local'],
    ['fe80::1', 'link_local'],
    ['169.254.169.254', 'metadata'],
    ['fd00:ec2::254', 'metadata'],
    ['100.100.100.200', 'metadata'],
    ['0.0.0.0', 'reserved'],
    ['::', 'reserved'],
    ['224.0.0.1', 'reserved'],
    ['64:ff9b::a00:1', 'reserved'],
    ['not an address', 'reserved'],
  ])('%s is %s', (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
  });

  it('lets loopback and private through only when allowed; link-local and metadata never', () => {
    expect(addressAllowed('loopback', false)).toBe(false);
    expect(addressAllowed('private', false)).toBe(false);
    expect(addressAllowed('loopback', true)).toBe(true);
    expect(addressAllowed('private', true)).toBe(true);
    expect(addressAllowed('link_local', true)).toBe(false);
    expect(addressAllowed('metadata', true)).toBe(false);
    expect(addressAllowed('reserved', true)).toBe(false);
  });

  it('checks every address a name resolves to, and the scheme', async () => {
    const resolve = async (h: string) =>
      h === 'mixed.test'
        ? [
            { address: '93.184.215.14', family: 4 as const },
            { address: '10.0.0.1', family: 4 as const },
          ]
        : [{ address: '93.184.215.14', family: 4 as const }];
    await expect(checkDestination('https://mixed.test/', { allowPrivate: false, resolve })).rejects.toThrow(
      /private/,
    );
    await expect(
      checkDestination('https://ok.test/x', { allowPrivate: false, resolve }),
    ).resolves.toBeInstanceOf(URL);
    await expect(checkDestination('http://ok.test/x', { allowPrivate: true, resolve })).rejects.toThrow(
      /https/,
    );
    await expect(
      checkDestination('http://127.0.0.1:9/x', { allowPrivate: true, resolve }),
    ).resolves.toBeInstanceOf(URL);
    await expect(checkDestination('https://u:p@ok.test/', { allowPrivate: false, resolve })).rejects.toThrow(
      /password/,
    );
  });
});

describe('Standard Webhooks signing', () => {
  it('is verified by the reference library, with one secret or both during a rotation', () => {
    const current = newSecret();
    const previous = newSecret();
    const body = eventBody(
      {
        type: 'stock.sold_out',
        vendorId: 'v',
        data: { product: { id: 'p', name: 'P', vendorId: 'v' }, onHand: 0 },
        at: '2026-11-26T05:00:00.000Z',
      },
      true,
    );
    const ts = Math.floor(Date.now() / 1000);
    const headers = signedHeaders([current, previous], 'msg_abc', ts, body);
    for (const s of [current, previous])
      expect(new Webhook(s).verify(body, headers)).toMatchObject({ type: 'stock.sold_out', version: 1 });
    expect(() => new Webhook(newSecret()).verify(body, headers)).toThrow();
    expect(() => new Webhook(current).verify(`${body} `, headers)).toThrow();
  });

  it('subscribes by type or to everything', () => {
    expect(wantsEvent('["*"]', 'order.paid')).toBe(true);
    expect(wantsEvent('["order.paid"]', 'order.paid')).toBe(true);
    expect(wantsEvent('["order.shipped"]', 'order.paid')).toBe(false);
    expect(wantsEvent('not json', 'order.paid')).toBe(false);
  });

  it('backs off exponentially with jitter, at most 10 h, about three days in all', () => {
    expect(webhookBackoffMs(1, 1)).toBe(5_000);
    expect(webhookBackoffMs(1, 0)).toBe(2_500);
    expect(webhookBackoffMs(4, 1)).toBe(40_000);
    expect(webhookBackoffMs(30, 1)).toBe(10 * 3600_000);
    let total = 0;
    let n = 0;
    while (total < 3 * 24 * 3600_000) total += webhookBackoffMs(++n, 1);
    expect(n).toBeGreaterThan(10);
    expect(n).toBeLessThan(25);
  });
});
