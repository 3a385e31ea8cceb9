/**
 * The drop's line (issue 32, docs/decisions/drops.md): migrations 0030–0034 of the store.
 */
import type { Kysely, Migration } from 'kysely';

export const dropMigrations: Record<string, Migration> = {
  /**
   * `drop_line`: one row per buyer (the client's hold key, a keyed hash; never an address) in a drop's line.
   * `rank` orders the line: a random number in [0, 1) for those who joined before the start, 1 + the ms after the
   * start for later ones. `through_at`: when the buyer was let through (may order until then + the admission
   * window); `done_at`: when their order held a piece (they leave the line, whatever becomes of the hold).
   */
  '0030_drop_line': {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async up(db: Kysely<any>) {
      await db.schema
        .createTable('drop_line')
        .addColumn('product_id', 'text', (c) => c.notNull())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('rank', 'double precision', (c) => c.notNull())
        .addColumn('joined_at', 'text', (c) => c.notNull())
        .addColumn('through_at', 'text')
        .addColumn('done_at', 'text')
        .addPrimaryKeyConstraint('drop_line_pk', ['product_id', 'holder'])
        .execute();
      await db.schema.createIndex('drop_line_rank').on('drop_line').columns(['product_id', 'rank']).execute();
    },
  },
};
