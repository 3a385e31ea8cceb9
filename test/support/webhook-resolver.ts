/**
 * The webhook tests' DNS (the sender's resolver hook): fixed names for each kind of address, and
 * `hooks.vendor.test`, whose answer the test changes between adding an endpoint and sending to it.
 */
import type { Resolver } from '../../src/server/webhooks/address';

export interface TestResolver extends Resolver {
  /** What hooks.vendor.test resolves to from now on. */
  answer(address: string): void;
}

export function testResolver(): TestResolver {
  let hooks = '127.0.0.1';
  const fixed: Record<string, string> = {
    localhost: '127.0.0.1',
    'ten.vendor.test': '10.1.2.3',
    'linklocal.vendor.test': '169.254.10.20',
    'metadata.vendor.test': '169.254.169.254',
    'six.vendor.test': '::1',
    'public.vendor.test': '93.184.215.14',
  };
  const resolve = (async (host: string) => {
    const address = host === 'hooks.vendor.test' ? hooks : fixed[host];
    if (!address) throw new Error(`ENOTFOUND ${host}`);
    return [{ address, family: address.includes(':') ? 6 : 4 }];
  }) as TestResolver;
  resolve.answer = (address) => {
    hooks = address;
  };
  return resolve;
}
