import type { DataKey } from '../privacy/seal';

export type MailTransportName = 'file' | 'smtp' | 'emailjs';
/**
 * A vendor's settings key (catalogue field `payoutGroup`, a slug). Vendors are data: the settings of a group are
 * found by name pattern, never from a fixed list — `RECIPIENT_<KEY>` (payout wallet), `VENDOR_<KEY>_EMAIL`
 * (seller e-mail, default SELLER_EMAIL), `EMAILJS_TEMPLATE_SELLER_<KEY>` — where KEY is the group upper-cased
 * with dashes as underscores (`coopersglass` → RECIPIENT_COOPERSGLASS, `gorilla` → RECIPIENT_GORILLA).
 */
export type PayoutGroup = string;

/**
 * The store's configuration: what the sections of src/server/settings/ read from the environment, composed by
 * loadSettings (settings/index.ts).
 */
export interface Settings {
  demo: boolean;
  /** Vendors' webhooks (settings/webhooks.ts). */
  webhooks: {
    /** WEBHOOKS_ALLOW_PRIVATE=1: loopback and private destinations (and plain http to them) allowed. */
    allowPrivate: boolean;
    timeoutMs: number;
    /** Requests at once per instance (the global cap; one per endpoint). */
    concurrency: number;
    /** At most this much of an answer is read. */
    maxResponseBytes: number;
  };
  port: number;
  host: string;
  /** Base URL the browser uses for this site; informational (links in e-mails). */
  publicUrl: string;
  database: { kind: 'sqlite'; file: string } | { kind: 'postgres'; url: string };
  /**
   * Apply pending migrations at start (MIGRATE_ON_START; default on in demo mode, off otherwise). Off: a database
   * behind this release's migrations stops the start with an error naming `npm run migrate`.
   */
  migrateOnStart: boolean;
  /** PostgreSQL: open the pool's connections at start and keep them (DATABASE_POOL_WARM; default off). */
  databasePoolWarm: boolean;
  /** PostgreSQL: statements sent again and again are prepared once per connection (DATABASE_NAMED_STATEMENTS; on). */
  databaseNamedStatements: boolean;
  solana: {
    /** Server only: may carry a provider key. Never sent to the browser. */
    rpcUrl: string;
    wsUrl: string;
    /** What the browser's wallet connection uses (SOLANA_BROWSER_RPC_URL; never the server's URL with a key). */
    browserRpcUrl: string;
    browserWsUrl: string;
    cluster: 'mainnet-beta' | 'devnet' | 'testnet' | 'localnet';
  };
  /** The $CLAIM SPL token's mint address (CLAIM_MINT). */
  claimMint: string;
  /** Payout wallet per payout group (every group of the catalogue has one). */
  recipients: Record<PayoutGroup, string>;
  /**
   * The return address printed on a payout group's packing slips (VENDOR_<KEY>_RETURN_ADDRESS), on its lines; an
   * empty list when not set. Shown to that vendor's signed-in seller only.
   */
  returnAddresses: Record<PayoutGroup, string[]>;
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
  /** On SIGTERM: readiness 503 at once, serving on for this many ms, then close (DRAIN_MS, default 5 s). */
  drainMs: number;
  /** On SIGTERM: exit by this many ms at the latest (SHUTDOWN_DEADLINE_MS, default 25 s). */
  shutdownDeadlineMs: number;
  /**
   * /api/health/deps reports `watcher` failing when the payment watcher last caught up with the vendors' token
   * accounts more than this many seconds ago (WATCHER_MAX_LAG_S, default 60: four missed 15 s sweeps).
   */
  watcherMaxLagS: number;
  /**
   * Expiry waits for the payment watcher to judge the chain past an order's expiry (payments.md, "Time is the
   * chain's"), but at most this long (MAX_EXPIRY_WAIT_MS, default 5 min): a stalled or flooded watcher never
   * freezes expiry for longer.
   */
  maxExpiryWaitMs: number;
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

/** Demo mode's defaults: the localnet's deterministic mint and payout wallets. */
export interface DemoDefaults {
  claimMint: string;
  recipients: Record<PayoutGroup, string>;
}

/** What every section may know: demo mode (no SOLANA_RPC_URL), demo mode's defaults, the catalogue's groups. */
export interface LoadContext {
  demo: boolean;
  demoDefaults?: DemoDefaults;
  groups: readonly PayoutGroup[];
}
