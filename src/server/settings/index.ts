import { catalog as defaultCatalog } from '../../../catalog';
import type { PublicConfig } from '../../core/api';
import { redact } from '../redact';
import { httpSection } from './http';
import { limitsSection } from './limits';
import { mailSection } from './mail';
import { operationsSection } from './operations';
import { paymentsSection } from './payments';
import { priceSection } from './price';
import { privacySection } from './privacy';
import { quoteSection } from './quote';
import { namePattern, Reader, type Env, type Section } from './schema';
import { solanaSection } from './solana';
import { storeSection } from './store';
import type { DemoDefaults, LoadContext, PayoutGroup, Settings } from './types';
import { payoutGroupsOf, settingsKey, vendorsSection } from './vendors';
import { webhooksSection } from './webhooks';

/**
 * The one place that reads configuration. `loadSettings(process.env)` validates every setting and throws a
 * SettingsError naming each bad one; the server refuses to start on it. Nothing else reads process.env.
 *
 * Each section (http.ts, store.ts, solana.ts, …) declares its settings in a schema and reads only those; this
 * module composes them. The README's settings list and `.env.example` are checked against the schemas
 * (docs.test.ts; `npm run settings:docs` rewrites the list).
 *
 * Demo mode: when SOLANA_RPC_URL is not set, the store runs offline against the in-process localnet, a demo
 * price feed and the `file` mail transport; the mint and recipient wallets then default to the localnet's
 * deterministic demo keys (passed in as `demo`).
 */

export type { DemoDefaults, MailTransportName, PayoutGroup, Settings } from './types';
export { payoutGroupsOf, settingsKey } from './vendors';
export { sellerEmailFor } from './mail';
export { DEFAULT_PAIR_ADDRESS, PRICE_GUARD_DEFAULTS } from './price';

/** Every section, in the order the README and `.env.example` list them. */
export const SECTIONS: readonly Section<never, unknown>[] = [
  httpSection,
  limitsSection,
  operationsSection,
  storeSection,
  privacySection,
  solanaSection,
  vendorsSection,
  priceSection,
  paymentsSection,
  quoteSection,
  mailSection,
  webhooksSection,
];

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

/** True when the store runs offline against the localnet (no SOLANA_RPC_URL). */
export function isDemoEnv(env: Env): boolean {
  return !env.SOLANA_RPC_URL?.trim();
}

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
  const read = <N, O>(s: Section<N, O>, needs: N): O => s.read(new Reader(env, s, problems), needs);
  const ctx: LoadContext = { demo: isDemoEnv(env), demoDefaults: demo, groups };

  const solana = read(solanaSection, ctx);
  const http = read(httpSection, ctx);
  const store = read(storeSection, ctx);
  unknownVendorNames(env, groups, problems);
  const vendors = read(vendorsSection, ctx);
  const price = read(priceSection, { demo: ctx.demo, port: http.port });
  const quote = read(quoteSection, ctx);
  const mail = read(mailSection, ctx);
  const limits = read(limitsSection, undefined);
  const payments = read(paymentsSection, undefined);
  const privacy = read(privacySection, ctx);
  const operations = read(operationsSection, undefined);
  const webhooks = read(webhooksSection, undefined);

  if (problems.length) throw new SettingsError(problems);
  return {
    demo: ctx.demo,
    port: http.port,
    host: http.host,
    publicUrl: http.publicUrl,
    ...store,
    solana: solana.solana,
    claimMint: solana.claimMint,
    ...vendors,
    ...price,
    ...quote,
    ...mail,
    localnetPort: solana.localnetPort,
    demoVendorsWithoutTokenAccount: solana.demoVendorsWithoutTokenAccount,
    rpcBudget: solana.rpcBudget,
    ...payments,
    holds: limits.holds,
    rateLimit: limits.rateLimit,
    trustProxy: http.trustProxy,
    requestTimeoutMs: http.requestTimeoutMs,
    drainMs: http.drainMs,
    shutdownDeadlineMs: http.shutdownDeadlineMs,
    ...privacy,
    ...operations,
    ...webhooks,
  };
}

/**
 * The store's settings alone (DATABASE_URL), for the release step (`npm run migrate`), which needs no other
 * setting: a platform's release phase may not carry the server's secrets.
 */
export function loadStoreSettings(env: Env): Pick<Settings, 'database'> {
  const problems: string[] = [];
  const { database } = storeSection.read(new Reader(env, storeSection, problems), { demo: isDemoEnv(env) });
  if (problems.length) throw new SettingsError(problems);
  return { database };
}

/** A per-vendor setting (any section's `<KEY>` name) whose key names no payout group: refused, naming it. */
function unknownVendorNames(env: Env, groups: readonly PayoutGroup[], problems: string[]): void {
  const patterns = SECTIONS.flatMap((s) => Object.keys(s.settings))
    .filter((n) => n.includes('<KEY>'))
    .map(namePattern);
  const keys = new Set(groups.map(settingsKey));
  for (const name of Object.keys(env).sort()) {
    const key = patterns.map((p) => p.exec(name)?.[1]).find((k) => k !== undefined);
    if (key !== undefined && env[name]?.trim() && !keys.has(key))
      problems.push(
        `${name}: no vendor of the catalogue has the payout group this names (known: ${[...keys].join(', ')})`,
      );
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
