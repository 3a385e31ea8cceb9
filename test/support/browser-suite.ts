/**
 * The head the browser e2e files share: a test server on the web build (./browser.ts startTestServer) and a
 * chromium, started together before the file's tests and closed after them: the browser, then the server, then
 * what `before` started (a webhook receiver, a TLS front).
 *
 *   const suite = browserSuite({ env: { PUBLIC_URL: … } });
 *   it('…', async () => { const { page, errors, close } = await suite.open({ viewport: … }); … });
 */
import type { Browser, BrowserContextOptions } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import type { ServerOverrides } from '../../src/server/server';
import { launchBrowser, openPage, startTestServer, type OpenedPage, type TestServer } from './browser';

export interface BrowserSuiteSetup {
  /** Settings' environment for startTestServer. */
  env?: Record<string, string>;
  overrides?: ServerOverrides;
}

export interface BrowserSuiteOptions extends BrowserSuiteSetup {
  /** Runs first (a receiver, a TLS front); what it returns joins `env` and `overrides`. */
  before?: () => Promise<BrowserSuiteSetup | void>;
  /** Runs once the server listens (e.g. points a front at it). */
  started?: (server: TestServer) => void | Promise<void>;
  /** Runs last, after the browser and the server are closed. */
  after?: () => Promise<void>;
}

export interface BrowserSuite {
  /** The running test server (inside tests and hooks). */
  readonly server: TestServer;
  readonly browser: Browser;
  /** A fresh context and page (./browser.ts openPage) on the server's URL, or on `baseURL`. */
  open(options?: BrowserContextOptions, baseURL?: string): Promise<OpenedPage>;
}

export function browserSuite(options: BrowserSuiteOptions = {}): BrowserSuite {
  let server: TestServer | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    const extra = (await options.before?.()) ?? {};
    [server, browser] = await Promise.all([
      startTestServer({ ...options.env, ...extra.env }, { ...options.overrides, ...extra.overrides }),
      launchBrowser(),
    ]);
    await options.started?.(server);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await options.after?.();
  });
  const up = <T>(value: T | undefined, what: string): T => {
    if (value === undefined) throw new Error(`The ${what} is not started yet: use it inside a test or hook.`);
    return value;
  };
  return {
    get server() {
      return up(server, 'test server');
    },
    get browser() {
      return up(browser, 'browser');
    },
    open: (contextOptions = {}, baseURL) =>
      openPage(up(browser, 'browser'), baseURL ?? up(server, 'test server').url, contextOptions),
  };
}
