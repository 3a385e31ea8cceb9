/**
 * Versioned migrations, applied at start by Kysely's Migrator (table `store_migration`, with its lock table so
 * two instances starting together on PostgreSQL apply each migration once). One code path for both dialects:
 * portable column types only. Written in numeric order (the Migrator applies them by name); append new ones
 * with the next number; never edit an applied one.
 */
import type { Migration } from 'kysely';
import { earlyMigrations } from './migrations-early';
import { laterMigrations } from './migrations-later';
import { fleetMigrations } from './migrations-fleet';
import { dropMigrations } from './migrations-drops';
import { webhookMigrations } from './migrations-webhooks';

/** Every migration by name; each file holds a range of them, in order. */
export const migrations: Record<string, Migration> = {
  ...earlyMigrations,
  ...laterMigrations,
  ...fleetMigrations,
  ...dropMigrations,
  ...webhookMigrations,
};
