import { DEFAULT_HOLD_LIMIT } from '../../core/stock';
import { section } from './schema';
import type { Settings } from './types';

/** Limits per client: request rates per IP and route, units held unpaid per client and for how long. */
export const limitsSection = section({
  title: 'Limits',
  settings: {
    RATE_LIMIT_ORDERS_PER_MINUTE: {
      doc: 'Per client IP and route, per minute, on every API route that writes, sends mail or costs RPC (quotes, orders, payment hints, confirmations, seller actions); 0 = off.',
      default: 120,
      int: [0, 1_000_000],
    },
    RATE_LIMIT_QR_PER_MINUTE: {
      doc: 'GET /api/qr.svg per client IP per minute; 0 = off.',
      default: 120,
      int: [0, 1_000_000],
    },
    RATE_LIMIT_SELLER_AUTH_PER_MINUTE: {
      doc: 'The seller sign-in routes (nonce, session, demo session) per client IP and route per minute; 0 = off.',
      default: 20,
      int: [0, 1_000_000],
    },
    HOLD_LIMIT_PER_CLIENT: {
      doc: 'Holds on intent: one client (by address) holds at most this many units unpaid at once; 0 = no cap.',
      default: DEFAULT_HOLD_LIMIT,
      int: [0, 1_000_000],
    },
    HOLD_MS: {
      doc: "A hold lasts this many ms (never past its quote's expiry), then the unit is back on sale whatever the watcher's lag.",
      default: 5 * 60_000,
      int: [10_000, 60 * 60_000],
    },
  },
  read(r): Pick<Settings, 'rateLimit' | 'holds'> {
    return {
      rateLimit: {
        perMinute: r.int('RATE_LIMIT_ORDERS_PER_MINUTE'),
        qrPerMinute: r.int('RATE_LIMIT_QR_PER_MINUTE'),
        // Seller sign-in, per client IP and route: a person signs in a few times a day.
        sellerAuthPerMinute: r.int('RATE_LIMIT_SELLER_AUTH_PER_MINUTE'),
      },
      holds: { limitPerClient: r.int('HOLD_LIMIT_PER_CLIENT'), holdMs: r.int('HOLD_MS') },
    };
  },
});
