/**
 * Helpers for the order/outbox integration suites: settings, the two store backends (a SQLite FILE in a temp
 * dir; a fresh PostgreSQL schema when TEST_DATABASE_URL is set), a controllable clock and price, and a mail
 * transport that records what it was asked to send.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { Keypair } from '@solana/web3.js';
import bs58 from 'bs58';
import pg from 'pg';
import { afterAll, afterEach } from 'vitest';
import type { MailTransport, OutgoingEmail } from '../../src/server/mail/types';
import { loadSettings, type Settings } from '../../src/server/settings';
import type { StoreConfig } from '../../src/server/store/store';
import { INTERNATIONAL_SHIPPING, TEST_DATA_KEYS } from '../support/fixtures';
import { catalog as shopCatalog } from '../../catalog';
import type { Catalog, Product } from '../../src/core/catalog';

export const PG_URL = process.env.TEST_DATABASE_URL;

export interface Backend {
  name: 'sqlite' | 'postgres';
  enabled: boolean;
  /** A fresh, empty store location for one test. */
  fresh(): Promise<StoreConfig>;
  /** Removes what fresh() created. */
  cleanup(): Promise<void>;
}

export function sqliteBackend(): Backend {
  const dirs: string[] = [];
  return {
    name: 'sqlite',
    enabled: true,
    async fresh() {
      const dir = mkdtempSync(join(tmpdir(), 'claim-store-'));
      dirs.push(dir);
      return { kind: 'sqlite', file: join(dir, 'store.sqlite') };
    },
    async cleanup() {
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}

export function postgresBackend(): Backend {
  const schemas: string[] = [];
  return {
    name: 'postgres',
    enabled: Boolean(PG_URL),
    async fresh() {
      const schema = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
      schemas.push(schema);
      return { kind: 'postgres', url: PG_URL ?? '', schema };
    },
    async cleanup() {
      if (!PG_URL || schemas.length === 0) return;
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      try {
        for (const s of schemas.splice(0)) await client.query(`drop schema if exists "${s}" cascade`);
      } finally {
        await client.end();
      }
    },
  };
}

/**
 * Both backends (PostgreSQL when TEST_DATABASE_URL is set) for a file's tests: what a test puts in `open` (its
 * stores, its extra pools) is closed after it, newest first; the backends' files and schemas are removed after the
 * file. Call at a test file's top level.
 */
export function backendsClosedAfterEach(): {
  backends: Backend[];
  open: { close(): Promise<void> }[];
} {
  const backends = [sqliteBackend(), postgresBackend()];
  const open: { close(): Promise<void> }[] = [];
  afterEach(async () => {
    for (const o of open.splice(0).reverse()) await o.close().catch(() => undefined);
  });
  afterAll(async () => {
    for (const b of backends) await b.cleanup();
  });
  return { backends, open };
}

export const keys = {
  mint: Keypair.generate().publicKey.toBase58(),
  coopersglass: Keypair.generate().publicKey.toBase58(),
  gorilla: Keypair.generate().publicKey.toBase58(),
};

export const SELLER = 'seller@shop.test';

/**
 * Tests place many orders from one address, each standing for a different buyer: the per-client cap on holds is
 * off here (HOLD_LIMIT_PER_CLIENT 0) unless a test turns it on; the cap has its own tests.
 */
export function testSettings(env: Record<string, string> = {}): Settings {
  return loadSettings({
    HOLD_LIMIT_PER_CLIENT: '0',
    DATA_KEYS: TEST_DATA_KEYS,
    SOLANA_RPC_URL: 'http://127.0.0.1:9',
    MIGRATE_ON_START: '1', // a fresh store per test: migrated at start (the release step: migrate.test.ts)
    PRICE_API_URL: 'http://127.0.0.1:9',
    QUOTE_SECRET: 'test-secret-0123456789-0123456789-abcdef',
    SELLER_EMAIL: SELLER,
    CLAIM_MINT: keys.mint,
    RECIPIENT_COOPERSGLASS: keys.coopersglass,
    RECIPIENT_GORILLA: keys.gorilla,
    PORT: '0',
    MAIL_TRANSPORT: 'file',
    ...env,
  });
}

export class Clock {
  constructor(public ms = Date.parse('2030-01-01T12:00:00.000Z')) {}
  now = () => new Date(this.ms);
  advance(ms: number) {
    this.ms += ms;
  }
}

export class TestPrice {
  value: { priceUsd: string; fetchedAt: Date } | undefined;
  constructor(
    private clock: Clock,
    priceUsd = '0.5',
  ) {
    this.value = { priceUsd, fetchedAt: clock.now() };
  }
  set(priceUsd: string | undefined, ageMs = 0) {
    this.value =
      priceUsd === undefined ? undefined : { priceUsd, fetchedAt: new Date(this.clock.ms - ageMs) };
  }
  current = () => this.value;
}

/** Records every message; `fail` decides per message whether to throw (and what). */
export class RecordingTransport implements MailTransport {
  readonly name = 'file' as const;
  readonly sent: OutgoingEmail[] = [];
  readonly attempts: OutgoingEmail[] = [];
  fail: (m: OutgoingEmail) => Error | undefined = () => undefined;
  delayMs = 0;
  async send(m: OutgoingEmail): Promise<void> {
    this.attempts.push(m);
    if (this.delayMs) await new Promise((r) => setTimeout(r, this.delayMs));
    const err = this.fail(m);
    if (err) throw err;
    this.sent.push(m);
  }
}

export const intlShipping = INTERNATIONAL_SHIPPING;

export const usShipping = {
  kind: 'us',
  fullName: 'Grace Hopper',
  email: 'grace@example.com',
  address1: '1 Navy Way',
  city: 'Arlington',
  usState: 'VA',
  zip: '22202',
};

/** A base58 transaction signature (64 random bytes). */
export function fakeSignature(): string {
  return bs58.encode(randomBytes(64));
}

/**
 * The shop's catalogue and more one-of-a-kind wallet glass pieces (Lilac TipTop's fields), each `id` with its
 * `name`, `units` pieces and what else it is (a drop's rules): the drop suites' products.
 */
export function withGlassPieces(
  pieces: readonly { id: string; name: string; units: number; drop?: Product['drop'] }[],
): Catalog {
  const lilac = shopCatalog.products.find((p) => p.id === 'lilac-tiptop')!;
  return {
    vendors: shopCatalog.vendors,
    products: [
      ...shopCatalog.products,
      ...pieces.map(({ id, name, units, drop }) => ({
        ...lilac,
        id,
        name,
        routes: [`/vendors/coopersglass/${id}`],
        initialStock: units,
        quantity: false,
        ...(drop ? { drop } : {}),
      })),
    ],
  };
}
