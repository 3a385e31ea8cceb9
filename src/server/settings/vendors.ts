import { section } from './schema';
import type { LoadContext, PayoutGroup, Settings } from './types';

/** The settings-name key of a payout group: upper case, dashes to underscores. */
export function settingsKey(group: PayoutGroup): string {
  return group.toUpperCase().replace(/-/g, '_');
}

/** The payout groups of a catalogue's vendors, each once, in catalogue order. */
export function payoutGroupsOf(catalog: { vendors: { payoutGroup: string }[] }): string[] {
  return [...new Set(catalog.vendors.map((v) => v.payoutGroup))];
}

/**
 * Vendors are data: one payout wallet per payout group of the catalogue, found by name pattern. (A vendor's
 * seller address and EmailJS template are in the mail section.)
 */
export const vendorsSection = section({
  title: 'Vendors',
  settings: {
    'RECIPIENT_<KEY>': {
      doc: "A vendor's payout wallet (base58), one per payout group of catalog/vendors.ts; KEY is the group upper-cased, dashes as underscores. Required outside demo mode.",
      defaultDoc: 'none (demo mode: a localnet demo wallet)',
    },
  },
  read(r, ctx: LoadContext): Pick<Settings, 'recipients'> {
    const recipients: Record<PayoutGroup, string> = {};
    for (const group of ctx.groups)
      recipients[group] = r.pubkey(
        `RECIPIENT_${settingsKey(group)}`,
        ctx.demo ? ctx.demoDefaults?.recipients[group] : undefined,
      );
    return { recipients };
  },
});
