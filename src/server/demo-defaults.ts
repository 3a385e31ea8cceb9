import { catalog } from '../../catalog';
import { demoAddress, demoRecipientLabel } from './demo-keys';
import { payoutGroupsOf, type DemoDefaults } from './settings';

/**
 * Demo mode's mint and payout wallets: the localnet's deterministic keys (./demo-keys.ts), a wallet for every
 * payout group of the catalogue (a vendor added as data gets one too).
 */
export function demoDefaults(): DemoDefaults {
  return {
    claimMint: demoAddress('mint'),
    recipients: Object.fromEntries(
      payoutGroupsOf(catalog).map((g) => [g, demoAddress(demoRecipientLabel(g))]),
    ),
  };
}
