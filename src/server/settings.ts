import { DEFAULT_HOLD_LIMIT } from '../core/stock';
import { PublicKey } from '@solana/web3.js';
import { catalog as defaultCatalog } from '../../catalog';
import type { PublicConfig } from '../core/api';
import { isEmailAddress } from '../core/email-address';
import { redact, redactUrl, registerSecrets } from './redact';
import { demoDataKey, parseDataKeys, type DataKey } from './privacy/seal';

/**
 * The one place that reads configuration. `loadSettings(process.env)` validates every setting and throws a
 * SettingsError naming each bad one; the server refuses to start on it. Nothing else reads process.env.
 *
 * Demo mode: when SOLANA_RPC_URL is not set, the store runs offline against the in-process localnet, a demo
 * price feed and the `file` mail transport; the mint and recipient wallets then default to the localnet's
 * deterministic demo keys (passed in as `demo`).
 */

export type MailTransportName = 'file' | 'smtp' | 'emailjs';
/**
 * A vendor's settings key (catalogue field `payoutGroup`, a slug). Vendors are data: the settings of a group are
 * found by name pattern, never from a fixed list — `RECIPIENT_<KEY>` (payout wallet), `VENDOR_<KEY>_EMAIL`
 * (seller e-mail, default SELLER_EMAIL), `EMAILJS_TEMPLATE_SELLER_<KEY>` — where KEY is the group upper-cased
 * with dashes as underscores (`coopersglass` → RECIPIENT_COOPERSGLASS, `gorilla` → RECIPIENT_GORILLA).
 */
export type PayoutGroup = string;

/** The settings-name key of a payout group: upper case, dashes to underscores. */
export function settingsKey(group: PayoutGroup): string {
  return group.toUpperCase().replace(/-/g, '_');
}

/** The payout groups of a catalogue's vendors, each once, in catalogue order. */
export function payoutGroupsOf(catalog: { vendors: { payoutGroup: string }[] }): string[] {
  return [...new Set(catalog.vendors.map((v) => v.payoutGroup))];
}

export interface Settings {
  demo: boolean;
  port: number;
  host: string;
  /** Base URL the browser uses for this site; informational (links in e-mails). */
  publicUrl: string;
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };
  solana: {
    /** Server only: may carry a provider key. Never sent to the browser. */
    rpcUrl: string;
    wsUrl: string;
    /** What the browser's wallet connection uses (SOLANA_BROWSER_RPC_URL; never the server's URL with a key). */
    browserRpcUrl: string;
    browserWsUrl: string;
    cluster: 'mainnet-beta' | 'devnet' | 'testnet' | 'localnet';
  };
  /** Commitment the browser's connection uses (spec: confirmed) and the blockhash commitment (finalized). */
  claimMint: string;
  /** Payout wallet per payout group (every group of the catalogue has one). */
  recipients: Record<PayoutGroup, string>;
  price: {
    apiUrl: string;
    pairAddress: string;
    refreshMs: number;
    maxAgeMs: number;
    timeoutMs: number;
    /**
     * Quotes use the reference price: min(spot, the rule's time-weighted average of the last `windowMs`)
     * (PRICE_REFERENCE_RULE, PRICE_REFERENCE_WINDOW_MS; docs/decisions/price-and-mail.md).
     */
    reference: { rule: 'median' | 'twap'; windowMs: number };
    /** Quotes are refused while the pool holds less than this many USD (PRICE_MIN_LIQUIDITY_USD; 0: off). */
    minLiquidityUsd: number;
    /**
     * The second, independent source: GeckoTerminal's API base (PRICE_SECOND_SOURCE_URL, e.g.
     * https://api.geckoterminal.com/api/v2); undefined: one source, the agreement check is off.
     */
    secondSourceUrl?: string;
    /** Quotes are refused while the two sources differ by more than this, in basis points (PRICE_MAX_SPREAD). */
    maxSpreadBps: number;
  };
  /** QUOTE_SECRET; QUOTE_TTL_SECONDS (default 900, minimum 60) as milliseconds: how long a quote is payable. */
  quote: { secret: string; ttlMs: number };
  mail: {
    transport: MailTransportName;
    dir: string;
    from: string;
    /** SELLER_EMAIL: the default seller address. */
    sellerEmail: string;
    /** Seller address per payout group (VENDOR_<KEY>_EMAIL, else SELLER_EMAIL). Use sellerEmailFor(). */
    sellerEmails?: Record<PayoutGroup, string>;
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
  /**
   * Demo mode only: payout groups whose $CLAIM token account the demo localnet leaves out
   * (DEMO_VENDORS_WITHOUT_TOKEN_ACCOUNT, comma-separated; default none), to show the wallet purchase that creates
   * it with two approvals. That vendor's QR pages say it is not set up for QR payments yet.
   */
  demoVendorsWithoutTokenAccount: string[];
  /**
   * The server's own Solana JSON-RPC budget over HTTP: at most `per10s` requests in any 10 s (and 40 % of it per
   * method), shared by every caller in the process (SOLANA_RPC_BUDGET).
   */
  rpcBudget: { per10s: number };
  /**
   * QR records (recorded before the QR is shown): `detailsGraceMs` after a record is paid without shipping details, the seller is told
   * "paid, shipping details missing"; expired records with nothing paid and no details are deleted
   * `cleanupAfterMs` after their expiry (past the watcher's 24 h window, so no payment can still come for them).
   */
  qr: { detailsGraceMs: number; cleanupAfterMs: number };
  /**
   * Holds (docs/decisions/holds.md): one client (by address) holds at most `limitPerClient` units unpaid at once
   * (HOLD_LIMIT_PER_CLIENT, default 5; 0 turns the cap off); a hold lasts `holdMs` (HOLD_MS, default 5 min,
   * never past its quote's expiry) and is then released whatever the order's state.
   */
  holds: { limitPerClient: number; holdMs: number };
  /**
   * Payment notes: a transfer below min(`dustBps` of the order amount, `dustMaxCents` at the order's price) is
   * recorded but e-mails nobody; other notes about one order go out at most once per `noteIntervalMs`.
   */
  notes: { dustBps: number; dustMaxCents: number; noteIntervalMs: number };
  /**
   * Per client IP and route, per minute: `perMinute` on every route that writes, sends mail or costs RPC
   * (quotes, orders, payment hints, confirmations), `qrPerMinute` on GET /api/qr.svg, `sellerAuthPerMinute` on the
   * seller sign-in routes (GET /api/seller/nonce, POST /api/seller/session and /demo-session). 0 turns a limit off.
   */
  rateLimit: { perMinute: number; qrPerMinute: number; sellerAuthPerMinute: number };
  /** Fastify's trustProxy: false, true, a hop count, or a list of proxy addresses/CIDRs (TRUST_PROXY). */
  trustProxy: boolean | number | string[];
  /** Whole-request receive timeout (a body sent slowly is cut), ms. */
  requestTimeoutMs: number;
  /**
   * /api/health/ready reports `watcher` failing when the payment watcher last caught up with the vendors' token
   * accounts more than this many seconds ago (WATCHER_MAX_LAG_S, default 60: four missed 15 s sweeps).
   */
  watcherMaxLagS: number;
  /** Bearer token for GET /metrics outside demo mode (unset: /metrics refuses everybody). */
  metricsToken?: string;
  /**
   * OPERATOR_KEYPAIR_FILE: a Solana keypair file (JSON array of 64 bytes, as `solana-keygen` writes) that pays
   * `npm run vendor:setup`. Only that script reads the file; the server never loads the key.
   */
  operatorKeypairFile?: string;
  /**
   * Personal data at rest (src/server/privacy): `dataKeys` seal buyers' details and stored e-mail bodies (the
   * first seals, all open: DATA_KEYS); `demoKey` when demo mode derived one because DATA_KEYS is unset.
   * `retentionMs`: how long after delivery, or after an order closed without shipping, its personal data is
   * kept (PERSONAL_DATA_RETENTION_DAYS, default 90).
   */
  privacy: { dataKeys: DataKey[]; demoKey: boolean; retentionMs: number };
}

/** The price guards' defaults (docs/decisions/price-and-mail.md has the arithmetic behind them). */
export const PRICE_GUARD_DEFAULTS = {
  reference: { rule: 'median', windowMs: 600_000 },
  minLiquidityUsd: 5_000,
  maxSpreadBps: 1_000,
} as const satisfies Pick<Settings['price'], 'reference' | 'minLiquidityUsd' | 'maxSpreadBps'>;

export class SettingsError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    // Redacted: a problem may quote a URL (SMTP_URL, SOLANA_RPC_URL) whose password or key must not be printed.
    const safe = problems.map(redact);
    super(`Invalid settings; the server will not start:\n  - ${safe.join('\n  - ')}`);
    this.problems = safe;
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

/**
 * `groups`: the payout groups that need settings, by default those of the catalogue (catalog/). A
 * RECIPIENT_* / VENDOR_*_EMAIL / EMAILJS_TEMPLATE_SELLER_* naming no group is refused (a typo would otherwise
 * go unnoticed while that vendor's orders fail).
 */
export function loadSettings(
  env: Env,
  demo?: DemoDefaults,
  groups: readonly PayoutGroup[] = payoutGroupsOf(defaultCatalog),
): Settings {
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
        `${name}: must be a ${schemes.map((s) => s.replace(':', '')).join(' or ')} URL (got '${redactUrl(raw)}')`,
      );
      return undefined;
    }
  };
  /** A percentage ('10%' or '10', up to two decimals) as basis points. */
  const percentBps = (name: string, fallback: number, min: number, max: number): number => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    const m = /^(\d{1,3})(?:\.(\d{1,2}))?\s*%?$/.exec(raw);
    const bps = m ? Number(m[1]) * 100 + Number((m[2] ?? '').padEnd(2, '0')) : NaN;
    if (!(bps >= min && bps <= max)) {
      problems.push(`${name}: must be a percentage from ${min / 100} % to ${max / 100} % (got '${raw}')`);
      return fallback;
    }
    return bps;
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
  const withoutAccountRaw = get('DEMO_VENDORS_WITHOUT_TOKEN_ACCOUNT');
  const demoVendorsWithoutTokenAccount = (withoutAccountRaw ?? '')
    .split(',')
    .map((g) => g.trim())
    .filter(Boolean);
  if (withoutAccountRaw !== undefined && !isDemo)
    problems.push('DEMO_VENDORS_WITHOUT_TOKEN_ACCOUNT: only for demo mode (the demo localnet); unset it');
  for (const g of demoVendorsWithoutTokenAccount)
    if (!groups.includes(g))
      problems.push(
        `DEMO_VENDORS_WITHOUT_TOKEN_ACCOUNT: '${g}' is no payout group (one of ${groups.join(', ')})`,
      );

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
  const hasCredentials = (raw: string): boolean => redactUrl(raw) !== raw || /[?#]/.test(raw);
  const clusterRaw = get('SOLANA_CLUSTER') ?? (isDemo ? 'localnet' : 'mainnet-beta');
  const clusters = ['mainnet-beta', 'devnet', 'testnet', 'localnet'] as const;
  const cluster = (clusters as readonly string[]).includes(clusterRaw)
    ? (clusterRaw as Settings['solana']['cluster'])
    : 'mainnet-beta';
  if (!(clusters as readonly string[]).includes(clusterRaw))
    problems.push(`SOLANA_CLUSTER: must be one of ${clusters.join(', ')}`);

  // The browser's RPC: SOLANA_BROWSER_RPC_URL, else the cluster's public endpoint; on a localnet (demo, tests)
  // the server's own URL, which carries no key there. Never the server's URL when that has credentials.
  const publicEndpoint: Record<string, string | undefined> = {
    'mainnet-beta': 'https://api.mainnet-beta.solana.com',
    devnet: 'https://api.devnet.solana.com',
    testnet: 'https://api.testnet.solana.com',
  };
  const browserDefault = cluster === 'localnet' ? rpcUrl : publicEndpoint[cluster];
  const browserRpcUrl = httpUrl('SOLANA_BROWSER_RPC_URL', browserDefault) ?? '';
  if (browserRpcUrl && rpcUrl && browserRpcUrl === rpcUrl && hasCredentials(rpcUrl))
    problems.push(
      'SOLANA_BROWSER_RPC_URL: must not be SOLANA_RPC_URL, which carries credentials (browsers would see them)',
    );
  if (cluster === 'localnet' && !get('SOLANA_BROWSER_RPC_URL') && rpcUrl && hasCredentials(rpcUrl))
    problems.push('SOLANA_BROWSER_RPC_URL: required when SOLANA_RPC_URL carries credentials');
  const browserWsDefault =
    browserRpcUrl === rpcUrl && !get('SOLANA_BROWSER_RPC_URL')
      ? wsUrl
      : browserRpcUrl
        ? browserRpcUrl.replace(/^http/, 'ws')
        : undefined;
  const browserWsUrl = httpUrl('SOLANA_BROWSER_WS_URL', browserWsDefault, ['ws:', 'wss:']) ?? '';
  if (get('SOLANA_BROWSER_WS_URL') && browserWsUrl === wsUrl && hasCredentials(wsUrl))
    problems.push('SOLANA_BROWSER_WS_URL: must not be SOLANA_WS_URL, which carries credentials');

  const claimMint = pubkey('CLAIM_MINT', isDemo ? demo?.claimMint : undefined);
  const keys = new Set(groups.map(settingsKey));
  for (const name of Object.keys(env).sort()) {
    const m = /^(?:RECIPIENT_(.+)|VENDOR_(.+)_EMAIL|EMAILJS_TEMPLATE_SELLER_(.+))$/.exec(name);
    const key = m?.[1] ?? m?.[2] ?? m?.[3];
    if (key !== undefined && get(name) !== undefined && !keys.has(key))
      problems.push(
        `${name}: no vendor of the catalogue has the payout group this names (known: ${[...keys].join(', ')})`,
      );
  }
  const recipients: Record<PayoutGroup, string> = {};
  for (const group of groups)
    recipients[group] = pubkey(
      `RECIPIENT_${settingsKey(group)}`,
      isDemo ? demo?.recipients[group] : undefined,
    );

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
  else if (!isEmailAddress(sellerEmail)) problems.push('SELLER_EMAIL: not an e-mail address');

  const sellerEmails: Record<PayoutGroup, string> = {};
  for (const group of groups) {
    const name = `VENDOR_${settingsKey(group)}_EMAIL`;
    const own = get(name);
    if (own !== undefined && !isEmailAddress(own)) problems.push(`${name}: not an e-mail address`);
    sellerEmails[group] = own ?? sellerEmail ?? '';
  }

  const mail: Settings['mail'] = {
    transport,
    dir: get('MAIL_DIR') ?? 'var/mail',
    from: get('MAIL_FROM') ?? '$CLAIM Store <orders@claim-store.example>',
    sellerEmail: sellerEmail ?? '',
    sellerEmails,
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
        seller: Object.fromEntries(
          groups.map((g) => [g, required(`EMAILJS_TEMPLATE_SELLER_${settingsKey(g)}`, why)]),
        ),
        buyer: required('EMAILJS_TEMPLATE_BUYER', why),
      },
    };
  }

  // The public mainnet endpoint allows 100 requests per 10 s per IP (40 per method): 60 leaves room for the
  // browser's own traffic when both share an address, and for other tools.
  const rpcBudgetPer10s = int('SOLANA_RPC_BUDGET', 60, 5, 100_000);

  const rateLimitPerMinute = int('RATE_LIMIT_ORDERS_PER_MINUTE', 120, 0, 1_000_000);
  const detailsGraceMs = int('QR_DETAILS_GRACE_MS', 30 * 60_000, 0, 7 * 24 * 3600_000);
  const cleanupAfterMs = int('QR_RECORD_CLEANUP_AFTER_MS', 48 * 3600_000, 25 * 3600_000, 365 * 24 * 3600_000);
  const holdLimitPerClient = int('HOLD_LIMIT_PER_CLIENT', DEFAULT_HOLD_LIMIT, 0, 1_000_000);
  const holdMs = int('HOLD_MS', 5 * 60_000, 10_000, 60 * 60_000);
  const dustBps = int('DUST_THRESHOLD_BPS', 100, 0, 10_000);
  const dustMaxCents = int('DUST_THRESHOLD_MAX_CENTS', 50, 0, 1_000_000);
  const qrPerMinute = int('RATE_LIMIT_QR_PER_MINUTE', 120, 0, 1_000_000);
  // Seller sign-in (nonce, session, demo session), per client IP and route: a person signs in a few times a day.
  const sellerAuthPerMinute = int('RATE_LIMIT_SELLER_AUTH_PER_MINUTE', 20, 0, 1_000_000);
  const requestTimeoutMs = int('REQUEST_TIMEOUT_MS', 30_000, 1_000, 30_000);
  const watcherMaxLagS = int('WATCHER_MAX_LAG_S', 60, 2, 86_400);
  // How long a quote (and the order's reservation) stays payable: 15 minutes by default, at least one minute.
  const quoteTtlSeconds = int('QUOTE_TTL_SECONDS', 900, 60, 86_400);

  let trustProxy: Settings['trustProxy'] = false;
  const trustRaw = get('TRUST_PROXY');
  if (trustRaw !== undefined) {
    if (/^(false|0|no|off)$/i.test(trustRaw)) trustProxy = false;
    else if (/^(true|yes|on)$/i.test(trustRaw)) {
      // Trusting every hop lets any client name its own address in X-Forwarded-For (a new client per request).
      if (isDemo) trustProxy = true;
      else
        problems.push(
          `TRUST_PROXY: '${trustRaw}' trusts every X-Forwarded-For hop, so any client could choose its own address; give the number of proxies in front of the store (e.g. 1) or their addresses (e.g. 10.0.0.0/8)`,
        );
    } else if (/^\d{1,2}$/.test(trustRaw)) trustProxy = Number(trustRaw);
    else {
      const list = trustRaw.split(',').map((x) => x.trim());
      if (
        list.every(
          (x) => /^[0-9a-f.:]+(\/\d{1,3})?$/i.test(x) || /^(loopback|linklocal|uniquelocal)$/.test(x),
        )
      )
        trustProxy = list;
      else
        problems.push(
          `TRUST_PROXY: must be true, false, a number of proxy hops, or a comma-separated list of proxy IPs/CIDRs (got '${trustRaw}')`,
        );
    }
  }
  // Personal data: DATA_KEYS (`id:base64[,id:base64…]`, 32-byte keys; the first seals, all open). Required
  // outside demo mode; demo mode derives a fixed demo key (and says so at start).
  let dataKeys: DataKey[] = [];
  let demoKey = false;
  const dataKeysRaw = get('DATA_KEYS');
  if (dataKeysRaw !== undefined) {
    const parsed = parseDataKeys(dataKeysRaw);
    problems.push(...parsed.problems);
    dataKeys = parsed.keys;
    registerSecrets(
      dataKeysRaw
        .split(',')
        .map((p) => p.trim().slice(p.trim().indexOf(':') + 1))
        .filter((k) => k.length >= 16),
    );
  } else if (isDemo) {
    dataKeys = [demoDataKey()];
    demoKey = true;
  } else
    problems.push(
      'DATA_KEYS: required outside demo mode (id:base64 of 32 random bytes, e.g. k1:$(openssl rand -base64 32))',
    );
  let retentionDays = 90;
  const retentionRaw = get('PERSONAL_DATA_RETENTION_DAYS');
  if (retentionRaw !== undefined) {
    if (!/^\d{1,4}(\.\d{1,9})?$/.test(retentionRaw) || Number(retentionRaw) > 3650)
      problems.push(
        `PERSONAL_DATA_RETENTION_DAYS: must be a number of days from 0 to 3650, fractions allowed (got '${retentionRaw}')`,
      );
    else retentionDays = Number(retentionRaw);
  }
  const retentionMs = Math.round(retentionDays * 86_400_000);

  const operatorKeypairFile = get('OPERATOR_KEYPAIR_FILE');
  const metricsToken = get('METRICS_TOKEN');
  if (metricsToken !== undefined && metricsToken.length < 16)
    problems.push('METRICS_TOKEN: must be at least 16 characters');

  // Every secret value is masked wherever it might show up in a log line or an error message.
  registerSecrets([
    quoteSecret,
    metricsToken,
    mail.emailjs?.accessToken,
    mail.smtpUrl ? safeUrlPassword(mail.smtpUrl) : undefined,
    safeUrlPassword(rpcUrl),
  ]);

  const priceRefreshMs = int('PRICE_REFRESH_MS', 10_000, 10_000, 3_600_000);
  const priceTimeoutMs = int('PRICE_TIMEOUT_MS', 5_000, 100, 60_000);
  const referenceWindowMs = int(
    'PRICE_REFERENCE_WINDOW_MS',
    PRICE_GUARD_DEFAULTS.reference.windowMs,
    60_000,
    3_600_000,
  );
  const referenceRule = get('PRICE_REFERENCE_RULE') ?? PRICE_GUARD_DEFAULTS.reference.rule;
  if (referenceRule !== 'median' && referenceRule !== 'twap')
    problems.push(`PRICE_REFERENCE_RULE: must be 'median' or 'twap' (got '${referenceRule}')`);
  const minLiquidityUsd = int(
    'PRICE_MIN_LIQUIDITY_USD',
    PRICE_GUARD_DEFAULTS.minLiquidityUsd,
    0,
    1_000_000_000,
  );
  const secondSourceUrl = httpUrl(
    'PRICE_SECOND_SOURCE_URL',
    isDemo ? `http://127.0.0.1:${port}/demo/geckoterminal` : undefined,
  );
  const maxSpreadBps = percentBps('PRICE_MAX_SPREAD', PRICE_GUARD_DEFAULTS.maxSpreadBps, 100, 10_000);

  if (problems.length) throw new SettingsError(problems);
  return {
    demo: isDemo,
    port,
    host,
    publicUrl,
    database,
    solana: { rpcUrl, wsUrl, browserRpcUrl, browserWsUrl, cluster },
    claimMint,
    recipients,
    price: {
      apiUrl: priceApiUrl,
      pairAddress,
      refreshMs: priceRefreshMs,
      maxAgeMs: 60_000,
      timeoutMs: priceTimeoutMs,
      reference: { rule: referenceRule === 'twap' ? 'twap' : 'median', windowMs: referenceWindowMs },
      minLiquidityUsd,
      ...(secondSourceUrl !== undefined ? { secondSourceUrl } : {}),
      maxSpreadBps,
    },
    quote: { secret: quoteSecret ?? '', ttlMs: quoteTtlSeconds * 1000 },
    mail,
    localnetPort,
    demoVendorsWithoutTokenAccount,
    rpcBudget: { per10s: rpcBudgetPer10s },
    qr: { detailsGraceMs, cleanupAfterMs },
    holds: { limitPerClient: holdLimitPerClient, holdMs },
    notes: { dustBps, dustMaxCents, noteIntervalMs: 3600_000 },
    rateLimit: { perMinute: rateLimitPerMinute, qrPerMinute, sellerAuthPerMinute },
    trustProxy,
    requestTimeoutMs,
    watcherMaxLagS,
    privacy: { dataKeys, demoKey, retentionMs },
    ...(metricsToken !== undefined ? { metricsToken } : {}),
    ...(operatorKeypairFile !== undefined ? { operatorKeypairFile } : {}),
  };
}

/** The seller address of a payout group's vendor (VENDOR_<KEY>_EMAIL, else SELLER_EMAIL). */
export function sellerEmailFor(mail: Settings['mail'], group: PayoutGroup): string {
  return mail.sellerEmails?.[group] ?? mail.sellerEmail;
}

function safeUrlPassword(raw: string): string | undefined {
  try {
    return decodeURIComponent(new URL(raw).password) || undefined;
  } catch {
    return undefined;
  }
}

/** What the browser may know: an explicit allow-list. Never the seller's e-mail or any key. */
export function publicConfig(s: Settings): PublicConfig {
  return {
    demo: s.demo,
    cluster: s.solana.cluster,
    rpcUrl: s.solana.browserRpcUrl,
    wsUrl: s.solana.browserWsUrl,
    claimMint: s.claimMint,
    pairAddress: s.price.pairAddress,
  };
}
