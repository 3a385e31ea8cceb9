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

/** A return address: at most 6 lines of at most 80 characters, no control characters. */
const MAX_LINES = 6;
const MAX_LINE = 80;

/** Demo mode's return address when none is set: plainly a demo. */
export const DEMO_RETURN_ADDRESS = [
  'Returns (demo address)',
  '100 Example Street',
  'Springfield, OR 97477',
  'United States',
];

/** "Line one; line two" (or lines separated by line breaks) → its lines, or a problem in words. */
export function parseReturnAddress(value: string): string[] | string {
  const lines = value
    .split(/;|\r?\n/)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (lines.length === 0) return 'is empty';
  if (lines.length > MAX_LINES) return `has ${lines.length} lines (at most ${MAX_LINES})`;
  const long = lines.find((l) => l.length > MAX_LINE);
  if (long !== undefined) return `has a line longer than ${MAX_LINE} characters`;
  // eslint-disable-next-line no-control-regex
  if (lines.some((l) => /[\u0000-\u001f\u007f]/.test(l))) return 'has a control character';
  return lines;
}

/**
 * Vendors are data: one payout wallet per payout group of the catalogue, found by name pattern, and the return
 * address its packing slips carry. (A vendor's seller address and EmailJS template are in the mail section.)
 */
export const vendorsSection = section({
  title: 'Vendors',
  settings: {
    'RECIPIENT_<KEY>': {
      doc: "A vendor's payout wallet (base58), one per payout group of catalog/vendors.ts; KEY is the group upper-cased, dashes as underscores. Required outside demo mode.",
      defaultDoc: 'none (demo mode: a localnet demo wallet)',
    },
    'VENDOR_<KEY>_RETURN_ADDRESS': {
      doc: "The return address on a vendor's packing slips, same KEY as `RECIPIENT_<KEY>`: its lines separated by `;` (at most 6 lines of 80 characters), e.g. `Coopers Glass;12 Kiln Road;Portland, OR 97201;United States`. Shown only to that vendor, signed in.",
      defaultDoc: 'none: the slip carries the shop name only (demo mode: a demo address)',
    },
  },
  read(r, ctx: LoadContext): Pick<Settings, 'recipients' | 'returnAddresses'> {
    const recipients: Record<PayoutGroup, string> = {};
    const returnAddresses: Record<PayoutGroup, string[]> = {};
    for (const group of ctx.groups) {
      recipients[group] = r.pubkey(
        `RECIPIENT_${settingsKey(group)}`,
        ctx.demo ? ctx.demoDefaults?.recipients[group] : undefined,
      );
      const name = `VENDOR_${settingsKey(group)}_RETURN_ADDRESS`;
      const raw = r.get(name);
      const parsed = raw === undefined ? (ctx.demo ? DEMO_RETURN_ADDRESS : []) : parseReturnAddress(raw);
      if (typeof parsed === 'string') r.problem(`${name}: ${parsed}`);
      returnAddresses[group] = typeof parsed === 'string' ? [] : [...parsed];
    }
    return { recipients, returnAddresses };
  },
});
