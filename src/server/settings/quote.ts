import { registerSecrets } from '../redact';
import { section } from './schema';
import type { Settings } from './types';

/** Quotes: the key that signs them and how long one stays payable. */
export const quoteSection = section({
  title: 'Quotes',
  settings: {
    QUOTE_SECRET: {
      doc: 'The HMAC key signing quotes (at least 32 random characters). Required outside demo mode.',
      defaultDoc: 'none (demo mode: a fixed demo key)',
    },
    QUOTE_TTL_SECONDS: {
      doc: "How long a quote (its price and the order's reserved piece) stays payable, in seconds.",
      default: 900,
      int: [60, 86_400],
    },
  },
  read(r, needs: { demo: boolean }): Pick<Settings, 'quote'> {
    let secret = r.get('QUOTE_SECRET');
    if (secret === undefined) {
      if (needs.demo) secret = 'demo-quote-secret-not-for-production-use';
      else r.problem('QUOTE_SECRET: required outside demo mode (at least 32 random characters)');
    } else if (secret.length < 32) r.problem('QUOTE_SECRET: must be at least 32 characters');
    // How long a quote (and the order's reservation) stays payable: 15 minutes by default, at least one minute.
    const ttlSeconds = r.int('QUOTE_TTL_SECONDS');
    registerSecrets([secret]);
    return { quote: { secret: secret ?? '', ttlMs: ttlSeconds * 1000 } };
  },
});
