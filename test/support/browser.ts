/**
 * Browser-test harness shared by the e2e suites: the real server in-process on a random port serving the built
 * web app (dist/web), headless Chromium via playwright-core, pages that record console errors.
 *
 *   const server = await startTestServer();
 *   const browser = await launchBrowser();
 *   const { page, errors } = await openPage(browser, server.url);
 *   ...
 *   await browser.close(); await server.close();
 */
import { cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  chromium,
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type Page,
} from 'playwright-core';
import { demoKeys } from './demo-keypairs';
import { startServer, type RunningServer, type ServerOverrides } from '../../src/server/server';
import { loadSettings, type Settings } from '../../src/server/settings';
import { payoutAccountsAssumedToExist } from './payout-accounts';

export const WEB_DIR = resolve(import.meta.dirname, '../../dist/web');

export interface TestServer {
  url: string;
  settings: Settings;
  /** The running server (store, order service, price service…) for tests that need more than HTTP. */
  running: RunningServer;
  /** The snapshot of dist/web it serves. */
  webDir: string;
  close(): Promise<void>;
}

/**
 * Demo-mode settings on a random port with the localnet's deterministic keys (no localnet is started). The
 * per-client cap on holds is off (every test buyer shares one address) unless `env` turns it on.
 */
export function testSettings(env: Record<string, string> = {}): Settings {
  const keys = demoKeys();
  return loadSettings(
    { PORT: '0', HOLD_LIMIT_PER_CLIENT: '0', ...env },
    {
      claimMint: keys.mint.toBase58(),
      recipients: {
        coopersglass: keys.recipients.coopersglass.toBase58(),
        gorilla: keys.recipients.gorilla.toBase58(),
      },
    },
  );
}

/**
 * The whole server (startServer: store, order routes, price service with the demo feed, file mail) on a random
 * port, with its own SQLite file and mail directory in a temporary directory, serving a snapshot of dist/web.
 */
export async function startTestServer(
  env: Record<string, string> = {},
  overrides: ServerOverrides = {},
): Promise<TestServer> {
  if (!existsSync(resolve(WEB_DIR, 'index.html'))) {
    throw new Error(`No web build in ${WEB_DIR}: run \`npx vite build\` first (npm test does it).`);
  }
  const dir = mkdtempSync(join(tmpdir(), 'claim-e2e-'));
  // Serve a snapshot of the build: a `vite build` run by someone else meanwhile (shared working tree) would
  // otherwise swap the hashed assets under the running suite.
  const webDir = join(dir, 'web');
  cpSync(WEB_DIR, webDir, { recursive: true });
  const settings = testSettings({
    DATABASE_URL: join(dir, 'store.sqlite'),
    MAIL_DIR: join(dir, 'mail'),
    ...env,
  });
  let running: RunningServer;
  try {
    // No chain here: the vendors' token accounts are taken to exist (QR pages show their QR, as in a shop whose
    // accounts are set up); pass `payoutAccounts` to test the refusal.
    running = await startServer(settings, {
      webDir,
      expireEveryMs: 0,
      payoutAccounts: payoutAccountsAssumedToExist,
      ...overrides,
    });
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
  return {
    url: running.url,
    settings,
    running,
    webDir,
    close: async () => {
      await running.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export const CHROMIUM_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
  });
}

export interface ConsoleProblem {
  text: string;
  url: string;
}

export interface OpenedPage {
  context: BrowserContext;
  page: Page;
  /** console.error messages and uncaught page errors, in order. */
  errors: ConsoleProblem[];
  close(): Promise<void>;
}

/** A fresh context (own storage) and page whose console errors and page errors are recorded. */
export async function openPage(
  browser: Browser,
  baseURL: string,
  options: BrowserContextOptions = {},
): Promise<OpenedPage> {
  const context = await browser.newContext({ baseURL, ...options });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const errors: ConsoleProblem[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') errors.push({ text: msg.text(), url: msg.location().url });
  });
  page.on('pageerror', (err) => errors.push({ text: `${err.name}: ${err.message}`, url: page.url() }));
  return { context, page, errors, close: () => context.close() };
}

/**
 * The recorded problems minus expected ones: a failed resource load is expected when its URL matches one of
 * `allowFailedResources` (e.g. the 404 document of the not-found page, a price endpoint a test made fail).
 */
export function unexpectedErrors(
  errors: ConsoleProblem[],
  allowFailedResources: RegExp[] = [],
): ConsoleProblem[] {
  return errors.filter(
    (e) =>
      !(e.text.startsWith('Failed to load resource') && allowFailedResources.some((re) => re.test(e.url))),
  );
}
