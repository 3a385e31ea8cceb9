import { catalog } from '../../catalog';
import { demoRecipientKeypair, type DemoKeys } from '../localnet/demo-keys';
import { payoutGroupsOf, type DemoDefaults } from './settings';

/** Demo payout wallets for every payout group of the catalogue (a vendor added as data gets one too). */
export function demoDefaults(keys: DemoKeys): DemoDefaults {
  return {
    claimMint: keys.mint.toBase58(),
    recipients: Object.fromEntries(
      payoutGroupsOf(catalog).map((g) => [g, demoRecipientKeypair(g).publicKey.toBase58()]),
    ),
  };
}
