/**
 * Where a webhook may go (issue 35, "Safe to point anywhere"): a destination is resolved and every address it
 * resolves to is classified. Loopback and private addresses are refused unless WEBHOOKS_ALLOW_PRIVATE=1 (the
 * demo, the tests); link-local, cloud metadata, multicast, unspecified and reserved addresses are always refused.
 * The check runs when an endpoint is added or changed and again at connect time (the sender's own DNS lookup,
 * ./send.ts), so a name whose answer changes in between reaches nothing internal.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

export type AddressClass = 'public' | 'loopback' | 'private' | 'link_local' | 'metadata' | 'reserved';

/** Resolves a host name to its addresses (node's dns.lookup by default; tests replace it). */
export type Resolver = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export const systemResolver: Resolver = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => ({
    address: a.address,
    family: a.family === 6 ? 6 : 4,
  }));

function list(entries: [string, number, 'ipv4' | 'ipv6'][]): BlockList {
  const b = new BlockList();
  for (const [net, prefix, type] of entries) b.addSubnet(net, prefix, type);
  return b;
}

const METADATA = list([
  ['169.254.169.254', 32, 'ipv4'], // AWS, GCP, Azure, OpenStack
  ['100.100.100.200', 32, 'ipv4'], // Alibaba Cloud
  ['fd00:ec2::254', 128, 'ipv6'], // AWS over IPv6
]);
const LOOPBACK = list([
  ['127.0.0.0', 8, 'ipv4'],
  ['::1', 128, 'ipv6'],
]);
const LINK_LOCAL = list([
  ['169.254.0.0', 16, 'ipv4'],
  ['fe80::', 10, 'ipv6'],
]);
const PRIVATE = list([
  ['10.0.0.0', 8, 'ipv4'],
  ['172.16.0.0', 12, 'ipv4'],
  ['192.168.0.0', 16, 'ipv4'],
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['fc00::', 7, 'ipv6'], // unique local
]);
const RESERVED = list([
  ['0.0.0.0', 8, 'ipv4'],
  ['192.0.0.0', 24, 'ipv4'],
  ['192.0.2.0', 24, 'ipv4'],
  ['198.18.0.0', 15, 'ipv4'],
  ['198.51.100.0', 24, 'ipv4'],
  ['203.0.113.0', 24, 'ipv4'],
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, broadcast
  ['::', 128, 'ipv6'],
  ['ff00::', 8, 'ipv6'], // multicast
  ['2001:db8::', 32, 'ipv6'], // documentation
  ['64:ff9b::', 96, 'ipv6'], // NAT64: would reach any IPv4 address, internal ones too
  ['2002::', 16, 'ipv6'], // 6to4: likewise
]);

/** The IPv4 address an IPv4-mapped IPv6 address (::ffff:a.b.c.d, or its hex form) stands for. */
function mappedV4(address: string): string | undefined {
  const m = /^::ffff:(?:0:)?(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (m) return m[1];
  const h = /^::ffff:(?:0:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address);
  if (!h) return undefined;
  const hi = parseInt(h[1] ?? '0', 16);
  const lo = parseInt(h[2] ?? '0', 16);
  return `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
}

/** What an IP address is; anything not an IP address is `reserved` (never connected to). */
export function classifyAddress(raw: string): AddressClass {
  const address = raw.replace(/^\[|\]$/g, '').replace(/%.*$/, '');
  const v4 = mappedV4(address);
  if (v4) return classifyAddress(v4);
  const family = isIP(address);
  if (family === 0) return 'reserved';
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (METADATA.check(address, type)) return 'metadata';
  if (LOOPBACK.check(address, type)) return 'loopback';
  if (LINK_LOCAL.check(address, type)) return 'link_local';
  if (PRIVATE.check(address, type)) return 'private';
  if (RESERVED.check(address, type)) return 'reserved';
  return 'public';
}

/** Whether a request may connect to an address of this class. */
export function addressAllowed(cls: AddressClass, allowPrivate: boolean): boolean {
  if (cls === 'public') return true;
  return allowPrivate && (cls === 'loopback' || cls === 'private');
}

const REFUSED_WORDS: Record<Exclude<AddressClass, 'public'>, string> = {
  loopback: 'a loopback address (this server itself)',
  private: 'a private network address',
  link_local: 'a link-local address',
  metadata: 'a cloud metadata address',
  reserved: 'a reserved address',
};

/** A destination that may not be used, in words (naming the class, never what the server's network holds). */
export class DestinationRefused extends Error {
  override name = 'DestinationRefused';
  constructor(
    readonly reason: 'scheme' | 'address' | 'unresolved' | 'url',
    message: string,
  ) {
    super(message);
  }
}

export function refusedAddressMessage(cls: AddressClass): string {
  return cls === 'public'
    ? ''
    : `The address resolves to ${REFUSED_WORDS[cls]}: webhooks are not sent there.`;
}

export interface DestinationPolicy {
  allowPrivate: boolean;
  resolve: Resolver;
}

/**
 * Checks an endpoint URL: https (plain http only to a loopback or private address, and only when private
 * destinations are allowed), no credentials, and every address the host resolves to allowed. Returns the URL as
 * it will be used; throws DestinationRefused.
 */
export async function checkDestination(raw: string, policy: DestinationPolicy): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationRefused('url', 'That is not a URL: give the full address, starting with https://.');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new DestinationRefused('scheme', 'A webhook URL must start with https://.');
  if (url.username || url.password)
    throw new DestinationRefused('url', 'A webhook URL may not carry a user name or password.');
  if (url.hash) throw new DestinationRefused('url', 'A webhook URL may not have a #fragment.');
  const addresses = await resolveAll(url.hostname, policy.resolve);
  let allPrivate = true;
  for (const a of addresses) {
    const cls = classifyAddress(a.address);
    if (!addressAllowed(cls, policy.allowPrivate))
      throw new DestinationRefused('address', refusedAddressMessage(cls));
    if (cls === 'public') allPrivate = false;
  }
  if (url.protocol === 'http:' && !(policy.allowPrivate && allPrivate))
    throw new DestinationRefused('scheme', 'A webhook URL must start with https://.');
  return url;
}

/** The addresses of a URL host (an IP literal is its own answer). */
export async function resolveAll(
  hostname: string,
  resolve: Resolver,
): Promise<{ address: string; family: 4 | 6 }[]> {
  const host = hostname.replace(/^\[|\]$/g, '');
  const family = isIP(host);
  if (family !== 0) return [{ address: host, family: family === 6 ? 6 : 4 }];
  let found: { address: string; family: 4 | 6 }[];
  try {
    found = await resolve(host);
  } catch {
    found = [];
  }
  if (found.length === 0)
    throw new DestinationRefused('unresolved', `The host name ${host.slice(0, 253)} does not resolve.`);
  return found;
}
