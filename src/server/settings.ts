import { PublicKey } from '@solana/web3.js';
import type { PublicConfig } from '../core/api';

/**
 * The one place that reads configuration. `loadSettings(process.env)` validates every setting and throws a
 * SettingsError naming each bad one; the server refuses to start on it. Nothing else reads process.env.
 *
 * Demo mode: when SOLANA_RPC_URL is not set, the store runs offline against the in-process localnet, a demo
 * price feed and the `file` mail transport; the mint and recipient wallets then default to the localnet's
 * deterministic demo keys (passed in as `demo`).
 */

export type MailTransportName = 'file' | 'smtp' | 'emailjs';
export type PayoutGroup = 'coopersglass' | 'gorilla';

export interface Settings {
  demo: boolean;
  port: number;
  host: string;
  /** Base URL the browser uses for this site; informational (links in e-mails). */
  publicUrl: string;
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };
  solana: { rpcUrl: string; wsUrl: string; cluster: 'mainnet-beta' | 'devnet' | 'testnet' | 'localnet' };
  /** Commitment the browser's connection uses (spec: confirmed) and the blockhash commitment (finalized). */
  claimMint: string;
  recipients: Record<PayoutGroup, string>;
  price: { apiUrl: string; pairAddress: string; refreshMs: number; maxAgeMs: number; timeoutMs: number };
  quote: { secret: string; ttlMs: number };
  mail: {
    transport: MailTransportName;
    dir: string;
    from: string;
    sellerEmail: string;
    smtpUrl?: string;
    emailjs?: {
      apiUrl: string;
      serviceId: string;
      userId: string;
      accessToken: string;
      templates: { seller: Record<PayoutGroup, string>; buyer: string };
    };
  };
  localnetPort: number;
  /** Per client IP, on POST /api/quotes and POST /api/orders each. 0 turns the limit off. */
  rateLimit: { perMinute: number };
}

export class SettingsError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid settings; the server will not start:\n  - ${problems.join('\n  - ')}`);
    this.name = 'SettingsError';
  }
}

type Env = Record<string, string | undefined>;

export interface DemoDefaults {
  claimMint: string;
  recipients: Record<PayoutGroup, string>;
}

/** True when the store runs offline against the localnet (no SOLANA_RPC_URL). */
export function isDemoEnv(env: Env): boolean {
  return !env.SOLANA_RPC_URL?.trim();
}

/** The price pair of $CLAIM on DexScreener. Overridable with PRICE_PAIR_ADDRESS. */
export const DEFAULT_PAIR_ADDRESS = 'DemoPair111111111111111111111111111111111111';

export function loadSettings(env: Env, demo?: DemoDefaults): Settings {
  const problems: string[] = [];
  const get = (name: string): string | undefined => {
    const v = env[name];
    return v === undefined || v.trim() === '' ? undefined : v.trim();
  };
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    if (!/^\d+$/.test(raw) || Number(raw) < min || Number(raw) > max) {
      problems.push(`${name}: must be a whole number from ${min} to ${max} (got '${raw}')`);
      return fallback;
    }
    return Number(raw);
  };
  const httpUrl = (
    name: string,
    fallback: string | undefined,
    schemes = ['http:', 'https:'],
  ): string | undefined => {
    const raw = get(name) ?? fallback;
    if (raw === undefined) return undefined;
    try {
      const u = new URL(raw);
      if (!schemes.includes(u.protocol)) throw new Error('scheme');
      return raw.replace(/\/+$/, '');
    } catch {
      problems.push(
        `${name}: must be a ${schemes.map((s) => s.replace(':', '')).join(' or ')} URL (got '${raw}')`,
      );
      return undefined;
    }
  };
  const pubkey = (name: string, fallback: string | undefined): string => {
    const raw = get(name) ?? fallback;
    if (raw === undefined) {
      problems.push(`${name}: required (a base58 Solana address)`);
      return '';
    }
    try {
      return new PublicKey(raw).toBase58();
    } catch {
      problems.push(`${name}: not a valid base58 Solana address (got '${raw}')`);
      return '';
    }
  };
  const required = (name: string, why: string): string => {
    const v = get(name);
    if (v === undefined) problems.push(`${name}: required ${why}`);
    return v ?? '';
  };

  const rpcRaw = get('SOLANA_RPC_URL');
  const isDemo = rpcRaw === undefined;
  if (isDemo && !demo)
    problems.push('SOLANA_RPC_URL: required outside demo mode (demo mode needs the localnet keys)');

  const port = int('PORT', 3000, 0, 65535);
  const host = get('HOST') ?? '127.0.0.1';
  const localnetPort = int('LOCALNET_PORT', 8899, 0, 65534);

  let database: Settings['database'] = { kind: 'sqlite', file: 'var/store.sqlite' };
  const dbRaw = get('DATABASE_URL');
  if (dbRaw !== undefined) {
    if (/^postgres(ql)?:\/\//.test(dbRaw)) {
      try {
        new URL(dbRaw);
        database = { kind: 'postgres', url: dbRaw };
      } catch {
        problems.push(`DATABASE_URL: not a valid postgres:// URL`);
      }
    } else if (dbRaw.startsWith('sqlite:')) {
      const file = dbRaw.replace(/^sqlite:(\/\/)?/, '');
      if (!file) problems.push('DATABASE_URL: sqlite: URL needs a file path');
      else database = { kind: 'sqlite', file };
    } else if (/^[a-z]+:\/\//i.test(dbRaw)) {
      problems.push(`DATABASE_URL: must be a file path, a sqlite: URL or a postgres:// URL`);
    } else {
      database = { kind: 'sqlite', file: dbRaw };
    }
  }

  const rpcUrl = httpUrl('SOLANA_RPC_URL', `http://127.0.0.1:${localnetPort}`) ?? '';
  const wsDefault = rpcUrl
    ? rpcUrl.replace(/^http/, 'ws').replace(/:(\d+)$/, (_m, p: string) => `:${Number(p) + 1}`)
    : undefined;
  const wsUrl = httpUrl('SOLANA_WS_URL', wsDefault, ['ws:', 'wss:']) ?? '';
  const clusterRaw = get('SOLANA_CLUSTER') ?? (isDemo ? 'localnet' : 'mainnet-beta');
  const clusters = ['mainnet-beta', 'devnet', 'testnet', 'localnet'] as const;
  const cluster = (clusters as readonly string[]).includes(clusterRaw)
    ? (clusterRaw as Settings['solana']['cluster'])
    : 'mainnet-beta';
  if (!(clusters as readonly string[]).includes(clusterRaw))
    problems.push(`SOLANA_CLUSTER: must be one of ${clusters.join(', ')}`);

  const claimMint = pubkey('CLAIM_MINT', isDemo ? demo?.claimMint : undefined);
  const recipients = {
    coopersglass: pubkey('RECIPIENT_COOPERSGLASS', isDemo ? demo?.recipients.coopersglass : undefined),
    gorilla: pubkey('RECIPIENT_GORILLA', isDemo ? demo?.recipients.gorilla : undefined),
  };

  const publicUrl = httpUrl('PUBLIC_URL', `http://${host}:${port}`) ?? '';
  const priceApiUrl =
    httpUrl('PRICE_API_URL', isDemo ? `http://127.0.0.1:${port}/demo/dexscreener` : undefined) ?? '';
  if (!isDemo && !get('PRICE_API_URL'))
    problems.push('PRICE_API_URL: required outside demo mode (e.g. https://api.dexscreener.com)');
  const pairAddress = get('PRICE_PAIR_ADDRESS') ?? DEFAULT_PAIR_ADDRESS;
  if (!/^[1-9A-HJ-NP-Za-km-z]{32,44}$/.test(pairAddress))
    problems.push('PRICE_PAIR_ADDRESS: must be a base58 address');

  let quoteSecret = get('QUOTE_SECRET');
  if (quoteSecret === undefined) {
    if (isDemo) quoteSecret = 'demo-quote-secret-not-for-production-use';
    else problems.push('QUOTE_SECRET: required outside demo mode (at least 32 random characters)');
  } else if (quoteSecret.length < 32) problems.push('QUOTE_SECRET: must be at least 32 characters');

  const transportRaw = get('MAIL_TRANSPORT') ?? 'file';
  const transports = ['file', 'smtp', 'emailjs'] as const;
  if (!(transports as readonly string[]).includes(transportRaw))
    problems.push(`MAIL_TRANSPORT: must be one of file, smtp, emailjs (got '${transportRaw}')`);
  const transport = (
    (transports as readonly string[]).includes(transportRaw) ? transportRaw : 'file'
  ) as MailTransportName;

  const sellerEmail = get('SELLER_EMAIL') ?? (isDemo ? 'seller@example.test' : undefined);
  if (sellerEmail === undefined) problems.push('SELLER_EMAIL: required outside demo mode');
  else if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(sellerEmail))
    problems.push('SELLER_EMAIL: not an e-mail address');

  const mail: Settings['mail'] = {
    transport,
    dir: get('MAIL_DIR') ?? 'var/mail',
    from: get('MAIL_FROM') ?? '$CLAIM Store <orders@claim-store.example>',
    sellerEmail: sellerEmail ?? '',
  };
  if (transport === 'smtp') {
    mail.smtpUrl = httpUrl('SMTP_URL', undefined, ['smtp:', 'smtps:']);
    if (!mail.smtpUrl)
      problems.push('SMTP_URL: required when MAIL_TRANSPORT=smtp (smtp://user:pass@host:port)');
  }
  if (transport === 'emailjs') {
    const why = 'when MAIL_TRANSPORT=emailjs';
    mail.emailjs = {
      apiUrl: httpUrl('EMAILJS_API_URL', 'https://api.emailjs.com') ?? '',
      serviceId: required('EMAILJS_SERVICE_ID', why),
      userId: required('EMAILJS_USER_ID', why),
      accessToken: required('EMAILJS_ACCESS_TOKEN', why),
      templates: {
        seller: {
          coopersglass: required('EMAILJS_TEMPLATE_SELLER_COOPERSGLASS', why),
          gorilla: required('EMAILJS_TEMPLATE_SELLER_GORILLA', why),
        },
        buyer: required('EMAILJS_TEMPLATE_BUYER', why),
      },
    };
  }

  const rateLimitPerMinute = int('RATE_LIMIT_ORDERS_PER_MINUTE', 120, 0, 1_000_000);

  const priceRefreshMs = int('PRICE_REFRESH_MS', 10_000, 10_000, 3_600_000);
  const priceTimeoutMs = int('PRICE_TIMEOUT_MS', 5_000, 100, 60_000);

  if (problems.length) throw new SettingsError(problems);
  return {
    demo: isDemo,
    port,
    host,
    publicUrl,
    database,
    solana: { rpcUrl, wsUrl, cluster },
    claimMint,
    recipients,
    price: {
      apiUrl: priceApiUrl,
      pairAddress,
      refreshMs: priceRefreshMs,
      maxAgeMs: 60_000,
      timeoutMs: priceTimeoutMs,
    },
    quote: { secret: quoteSecret ?? '', ttlMs: 15 * 60_000 },
    mail,
    localnetPort,
    rateLimit: { perMinute: rateLimitPerMinute },
  };
}

/** What the browser may know: an explicit allow-list. Never the seller's e-mail or any key. */
export function publicConfig(s: Settings): PublicConfig {
  return {
    demo: s.demo,
    cluster: s.solana.cluster,
    rpcUrl: s.solana.rpcUrl,
    wsUrl: s.solana.wsUrl,
    claimMint: s.claimMint,
    pairAddress: s.price.pairAddress,
  };
}
