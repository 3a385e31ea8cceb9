import { section } from './schema';
import type { Settings } from './types';

/** QR records and payment notes: when the seller hears of a paid record without details, dust, clean-up. */
export const paymentsSection = section({
  title: 'QR records and payment notes',
  settings: {
    QR_DETAILS_GRACE_MS: {
      doc: 'A QR record paid without shipping details: after this many ms the seller is e-mailed "paid, shipping details missing" and the console lists it under Exceptions (before that: waiting for shipping details).',
      default: 30 * 60_000,
      int: [0, 7 * 24 * 3600_000],
    },
    QR_RECORD_CLEANUP_AFTER_MS: {
      doc: "Expired QR records with nothing paid and no details are deleted this many ms after their expiry (past the watcher's 24 h window).",
      default: 48 * 3600_000,
      int: [25 * 3600_000, 365 * 24 * 3600_000],
    },
    DUST_THRESHOLD_BPS: {
      doc: 'Dust: a transfer below min(this share of the order amount, in basis points, DUST_THRESHOLD_MAX_CENTS) is recorded but e-mails nobody.',
      default: 100,
      int: [0, 10_000],
    },
    DUST_THRESHOLD_MAX_CENTS: {
      doc: "Dust's upper bound in US cents at the order's price.",
      default: 50,
      int: [0, 1_000_000],
    },
  },
  read(r): Pick<Settings, 'qr' | 'notes'> {
    return {
      qr: {
        detailsGraceMs: r.int('QR_DETAILS_GRACE_MS'),
        cleanupAfterMs: r.int('QR_RECORD_CLEANUP_AFTER_MS'),
      },
      notes: {
        dustBps: r.int('DUST_THRESHOLD_BPS'),
        dustMaxCents: r.int('DUST_THRESHOLD_MAX_CENTS'),
        noteIntervalMs: 3600_000,
      },
    };
  },
});
