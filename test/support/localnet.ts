/**
 * The demo chain for tests and benches: src/localnet's `startLocalnet`, with its demo keys as web3.js
 * `PublicKey`s and `Keypair`s (test/support/demo-keypairs.ts, the same keys), which the tests' independent
 * web3.js and spl-token clients take. The localnet itself speaks kit's addresses.
 */
import {
  startLocalnet as startChain,
  type Localnet as ChainLocalnet,
  type LocalnetOptions,
} from '../../src/localnet/index.js';
import { demoKeys, type DemoKeys } from './demo-keypairs.js';

export type { LocalnetOptions } from '../../src/localnet/index.js';
export { demoKeys, type DemoKeys } from './demo-keypairs.js';

export type Localnet = Omit<ChainLocalnet, 'keys'> & { keys: DemoKeys | null };

export async function startLocalnet(opts: LocalnetOptions = {}): Promise<Localnet> {
  const net = await startChain(opts);
  const keys = net.keys ? demoKeys() : null;
  if (keys && net.keys && keys.mint.toBase58() !== net.keys.mint)
    throw new Error('test/support/demo-keypairs.ts and src/localnet/demo-keys.ts disagree on the demo mint');
  return Object.assign(net, { keys }) as unknown as Localnet;
}
