/**
 * `npm run migrate`: the release step (docs/decisions/deploy.md). Applies this release's pending migrations to
 * the store of DATABASE_URL and exits 0, or prints one redacted line and exits 1. Safe to run again (nothing
 * pending: exit 0) and beside running instances (Kysely's migration lock; every migration keeps the previous
 * release working: expand, then contract in a later release).
 */
import { loadStoreSettings, SettingsError } from './settings';
import { openStore } from './store/store';
import { redactError } from './redact';

try {
  const { database } = loadStoreSettings(process.env);
  const t0 = Date.now();
  const store = await openStore(database);
  await store.close();
  console.log(
    `migrate: ${database.kind === 'sqlite' ? database.file : 'postgres'} is at this release's schema (${Date.now() - t0} ms)`,
  );
  process.exit(0);
} catch (err) {
  console.error(err instanceof SettingsError ? err.message : `migrate failed: ${redactError(err)}`);
  process.exit(1);
}
