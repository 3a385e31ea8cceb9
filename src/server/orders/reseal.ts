/**
 * Sealing what the store holds under the current key (the first of DATA_KEYS): plain values written before
 * sealing existed (the start-up pass, `onlyPlain`) and values sealed under an older key (`npm run keys:rotate`).
 *
 * Resumable and safe to run twice: the work left is read from the data itself (values not yet under the current
 * key), in batches, each batch one transaction whose every UPDATE only applies if the value is still the one read
 * (a value changed meanwhile is left for the next pass). A run stopped half-way (a crash, a restart) leaves every
 * value either as it was or under the new key, and the next run does the rest. Values that cannot be opened
 * (unknown key, tampered) are counted and left as they are.
 *
 * Plain values are sealed only in rows written before sealing existed: rows older than the store's application
 * of migration 0017 (the one that came with sealing; its time is in `store_migration`). A plain value in a newer
 * row was not written by the order module: it is unreadable (counted, left, and read as such), never adopted.
 */
import { sql } from 'kysely';
import { ERASED, resealed, resealedActionDetail } from '../privacy/order-data';
import { SEALED_PREFIX, UnreadableSealError, type SealedField } from '../privacy/seal';
import { resealMailValue } from '../mail/queue';
import { resealWebhookValues, webhookValuesByKey } from '../webhooks/reseal';
import type { Db, OrderContext, ResealOptions, ResealResult } from './types';

type Column = {
  name: string;
  table: 'orders' | 'outbox';
  column: 'shipping_json' | 'recipient_email' | 'payload_json' | 'last_error';
  field: SealedField;
};

const COLUMNS: Column[] = [
  { name: 'orders.shipping_json', table: 'orders', column: 'shipping_json', field: 'shipping' },
  { name: 'outbox.recipient_email', table: 'outbox', column: 'recipient_email', field: 'outbox.recipient' },
  { name: 'outbox.payload_json', table: 'outbox', column: 'payload_json', field: 'outbox.payload' },
  { name: 'outbox.last_error', table: 'outbox', column: 'last_error', field: 'outbox.error' },
];

/** One value sealed again, if it is still `before`: the order's own column here, an e-mail's by the mail module. */
async function writeSealed(
  trx: Db,
  col: Column,
  id: string,
  before: string,
  after: string,
): Promise<boolean> {
  if (col.table === 'outbox' && col.column !== 'shipping_json')
    return resealMailValue(trx, id, col.column, before, after);
  const res = await trx
    .updateTable('orders')
    .set({ shipping_json: after })
    .where('id', '=', id)
    .where('shipping_json', '=', before)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

/** When this store began sealing (migration 0017 applied); '' when unknown (then no row counts as older). */
export async function sealingSince(ctx: OrderContext): Promise<string> {
  const row = (
    await sql<{ timestamp: string }>`select "timestamp" as timestamp from store_migration
      where name = ${'0017_personal_data'}`.execute(ctx.db)
  ).rows[0];
  return row?.timestamp ?? '';
}

export async function sealStoredData(ctx: OrderContext, opts: ResealOptions = {}): Promise<ResealResult> {
  const batchSize = opts.batchSize ?? 200;
  const since = await sealingSince(ctx);
  const legacy = (writtenAt: string) => writtenAt < since;
  const current = `${SEALED_PREFIX}${ctx.sealer.currentKeyId}:`;
  const result: ResealResult = { resealed: 0, unreadable: 0 };
  // A value needs work when it is neither NULL, ERASED nor already under the current key (plain only: not sealed).
  const prefix = opts.onlyPlain ? SEALED_PREFIX : current;

  for (const col of COLUMNS) {
    let after = '';
    for (;;) {
      const idCol = 'id';
      const orderCol = col.table === 'orders' ? 'id' : 'order_id';
      const rows = (
        await sql<{ id: string; order_id: string; value: string; written_at: string }>`
        select ${sql.ref(idCol)} as id, ${sql.ref(orderCol)} as order_id, ${sql.ref(col.column)} as value,
          created_at as written_at
        from ${sql.table(col.table)}
        where ${sql.ref(col.column)} is not null and ${sql.ref(col.column)} <> ${ERASED}
          and substr(${sql.ref(col.column)}, 1, ${prefix.length}) <> ${prefix}
          and ${sql.ref(idCol)} > ${after}
        order by ${sql.ref(idCol)} limit ${batchSize}`.execute(ctx.db)
      ).rows;
      if (rows.length === 0) break;
      after = rows[rows.length - 1]?.id ?? after;
      let n = 0;
      await ctx.db.transaction().execute(async (trx) => {
        for (const r of rows) {
          let next: string | undefined;
          try {
            next = resealed(ctx.sealer, r.order_id, col.field, r.value, legacy(r.written_at));
          } catch (err) {
            if (!(err instanceof UnreadableSealError)) throw err;
            result.unreadable++;
            continue;
          }
          if (next === undefined) continue;
          if (await writeSealed(trx, col, r.id, r.value, next)) n++;
        }
      });
      result.resealed += n;
      await opts.onBatch?.({ column: col.name, resealed: n });
    }
  }

  // Seller actions: the sealed part of the detail under the current key, free text of older rows sealed.
  let after = '';
  for (;;) {
    const rows = await ctx.db
      .selectFrom('seller_actions')
      .select(['id', 'order_id', 'detail_json', 'at'])
      .where('id', '>', after)
      .where((eb) => {
        const plainFree = [
          eb('detail_json', 'like', '%"note":%'),
          eb('detail_json', 'like', '%"trackingNumber":%'),
          eb('detail_json', 'like', '%"carrier":%'),
        ];
        if (opts.onlyPlain) return eb.or(plainFree);
        const notCurrent = ctx.isPg
          ? sql<number>`strpos(detail_json, ${`"sealed":"${current}`})`
          : sql<number>`instr(detail_json, ${`"sealed":"${current}`})`;
        return eb.or([
          ...plainFree,
          eb.and([eb('detail_json', 'like', '%"sealed":"sealed:v1:%'), eb(notCurrent, '=', 0)]),
        ]);
      })
      .orderBy('id')
      .limit(batchSize)
      .execute();
    if (rows.length === 0) break;
    after = rows[rows.length - 1]?.id ?? after;
    let n = 0;
    await ctx.db.transaction().execute(async (trx) => {
      for (const r of rows) {
        let next: string | undefined;
        try {
          next = resealedActionDetail(ctx.sealer, r.order_id, r.detail_json, legacy(r.at));
        } catch (err) {
          if (!(err instanceof UnreadableSealError)) throw err;
          result.unreadable++;
          continue;
        }
        if (next === undefined) continue;
        const res = await trx
          .updateTable('seller_actions')
          .set({ detail_json: next })
          .where('id', '=', r.id)
          .where('detail_json', '=', r.detail_json)
          .executeTakeFirst();
        if (Number(res.numUpdatedRows) === 1) n++;
      }
    });
    result.resealed += n;
    await opts.onBatch?.({ column: 'seller_actions.detail_json', resealed: n });
  }
  // The webhooks' secrets and bodies (never plain: sealed since they exist), under the current key.
  if (!opts.onlyPlain) {
    const hooks = await resealWebhookValues(ctx.db, ctx.sealer, {
      batchSize,
      ...(opts.onBatch ? { onBatch: opts.onBatch } : {}),
    });
    result.resealed += hooks.resealed;
    result.unreadable += hooks.unreadable;
  }
  return result;
}

/** Stored values per key id (and `plain`): what rotation left, and whether an old key can be dropped. */
export async function sealedValuesByKey(ctx: OrderContext): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  const add = (v: string | null) => {
    if (v === null || v === ERASED) return;
    const id = v.startsWith(SEALED_PREFIX) ? v.slice(SEALED_PREFIX.length).split(':')[0] : 'plain';
    counts[id ?? 'plain'] = (counts[id ?? 'plain'] ?? 0) + 1;
  };
  for (const col of COLUMNS) {
    const rows = (
      await sql<{ value: string | null }>`
      select ${sql.ref(col.column)} as value from ${sql.table(col.table)}`.execute(ctx.db)
    ).rows;
    for (const r of rows) add(r.value);
  }
  const actions = await ctx.db.selectFrom('seller_actions').select('detail_json').execute();
  for (const a of actions) {
    const raw = JSON.parse(a.detail_json) as Record<string, unknown>;
    if (typeof raw.sealed === 'string') add(raw.sealed);
    if (['note', 'trackingNumber', 'carrier'].some((k) => k in raw)) add('plain');
  }
  await webhookValuesByKey(ctx.db, add);
  return counts;
}
