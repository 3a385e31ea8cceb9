/**
 * Migration 0011 (the stock row carries its change log's sequence number) on a store that already has stock
 * changes: change_seq is backfilled with each line's latest seq, so the next change continues the numbering.
 * SQLite file, and PostgreSQL when TEST_DATABASE_URL is set.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { catalog } from '../../catalog/index';
import { migrations } from '../../src/server/store/migrations';
import { openStore } from '../../src/server/store/store';
import { createStockRepository } from '../../src/server/stock/repository';
import { postgresBackend, sqliteBackend, type Backend } from './orders-support';
import { migrationsBefore, storeMigratedWith } from '../support/old-store';

const before0011 = migrationsBefore(migrations, '0011');

const backends: Backend[] = [sqliteBackend(), postgresBackend()];

describe.each(backends)('migration 0011 on $name', (backend) => {
  afterAll(() => backend.cleanup());
  it.runIf(backend.enabled)(
    'backfills change_seq from the change log; the next change continues it',
    async () => {
      const config = await backend.fresh();
      const old = await storeMigratedWith(config, before0011);
      const line = (product: string, seq: number, kind: string) => ({
        id: `${product}-${seq}`,
        product_id: product,
        variant_id: '',
        seq,
        kind,
        on_hand_delta: 0,
        reserved_delta: 0,
        on_hand_after: 3,
        reserved_after: 0,
        order_id: null,
        actor: 'test',
        at: '2030-01-01T00:00:00.000Z',
      });
      await old
        .insertInto('stock')
        .values([
          { product_id: 'lilac-tiptop', variant_id: '', on_hand: 3, reserved: 0, updated_at: 'x' },
          { product_id: 'pivot-cropal-top', variant_id: '', on_hand: 1, reserved: 0, updated_at: 'x' },
        ])
        .execute();
      await old
        .insertInto('stock_changes')
        .values([
          line('lilac-tiptop', 1, 'seed'),
          line('lilac-tiptop', 2, 'set'),
          line('lilac-tiptop', 3, 'set'),
        ])
        .execute();
      await old.destroy();

      const store = await openStore(config);
      try {
        const rows = await store.db.selectFrom('stock').select(['product_id', 'change_seq']).execute();
        expect(Object.fromEntries(rows.map((r) => [r.product_id, Number(r.change_seq)]))).toMatchObject({
          'lilac-tiptop': 3,
          'pivot-cropal-top': 0,
        });
        const stock = createStockRepository(store, catalog);
        await stock.set({ productId: 'lilac-tiptop' }, 5, 'test', '2030-01-02T00:00:00.000Z');
        await stock.set({ productId: 'pivot-cropal-top' }, 2, 'test', '2030-01-02T00:00:00.000Z');
        const seqs = await store.db
          .selectFrom('stock_changes')
          .select(['product_id', 'seq'])
          .orderBy('product_id')
          .orderBy('seq')
          .execute();
        expect(seqs.map((r) => `${r.product_id}:${Number(r.seq)}`)).toEqual([
          'lilac-tiptop:1',
          'lilac-tiptop:2',
          'lilac-tiptop:3',
          'lilac-tiptop:4',
          'pivot-cropal-top:1',
        ]);
      } finally {
        await store.close();
      }
    },
  );
});
