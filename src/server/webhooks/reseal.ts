/**
 * Key rotation for the webhooks' sealed values (`npm run keys:rotate`, docs/decisions/privacy.md): endpoint
 * secrets (current and previous) and delivery bodies are sealed again under the first of DATA_KEYS, in batches,
 * each UPDATE only if the value is still the one read (resumable, safe to run twice), and counted per key so the
 * rotation says when an old key can be dropped.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import { SEALED_PREFIX, UnreadableSealError, type Sealer, type SealedField } from '../privacy/seal';
import type { Database } from '../store/schema';
import { ERASED_PAYLOAD } from './queue';

type Target = {
  name: string;
  table: 'webhook_endpoints' | 'webhook_deliveries';
  column: 'secret' | 'previous_secret' | 'payload_json';
  field: SealedField;
};

const TARGETS: Target[] = [
  { name: 'webhook_endpoints.secret', table: 'webhook_endpoints', column: 'secret', field: 'webhook.secret' },
  {
    name: 'webhook_endpoints.previous_secret',
    table: 'webhook_endpoints',
    column: 'previous_secret',
    field: 'webhook.secret',
  },
  {
    name: 'webhook_deliveries.payload_json',
    table: 'webhook_deliveries',
    column: 'payload_json',
    field: 'webhook.payload',
  },
];

/** One value sealed again, if it is still `before`. */
async function writeValue(
  trx: Transaction<Database>,
  t: Target,
  id: string,
  before: string,
  after: string,
): Promise<boolean> {
  const res =
    t.column === 'payload_json'
      ? await trx
          .updateTable('webhook_deliveries')
          .set({ payload_json: after })
          .where('id', '=', id)
          .where('payload_json', '=', before)
          .executeTakeFirst()
      : t.column === 'secret'
        ? await trx
            .updateTable('webhook_endpoints')
            .set({ secret: after })
            .where('id', '=', id)
            .where('secret', '=', before)
            .executeTakeFirst()
        : await trx
            .updateTable('webhook_endpoints')
            .set({ previous_secret: after })
            .where('id', '=', id)
            .where('previous_secret', '=', before)
            .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}

export async function resealWebhookValues(
  db: Kysely<Database>,
  sealer: Sealer,
  opts: {
    batchSize?: number;
    onBatch?: (b: { column: string; resealed: number }) => Promise<void> | void;
  } = {},
): Promise<{ resealed: number; unreadable: number }> {
  const current = `${SEALED_PREFIX}${sealer.currentKeyId}:`;
  const out = { resealed: 0, unreadable: 0 };
  for (const t of TARGETS) {
    let after = '';
    for (;;) {
      const rows = (
        await sql<{ id: string; value: string }>`
        select id, ${sql.ref(t.column)} as value from ${sql.table(t.table)}
        where ${sql.ref(t.column)} is not null and ${sql.ref(t.column)} <> ${ERASED_PAYLOAD}
          and substr(${sql.ref(t.column)}, 1, ${current.length}) <> ${current} and id > ${after}
        order by id limit ${opts.batchSize ?? 200}`.execute(db)
      ).rows;
      if (rows.length === 0) break;
      after = rows[rows.length - 1]?.id ?? after;
      let n = 0;
      await db.transaction().execute(async (trx) => {
        for (const r of rows) {
          let next: string;
          try {
            next = sealer.seal(sealer.open(r.value, r.id, t.field), r.id, t.field);
          } catch (err) {
            if (!(err instanceof UnreadableSealError)) throw err;
            out.unreadable++;
            continue;
          }
          if (await writeValue(trx, t, r.id, r.value, next)) n++;
        }
      });
      out.resealed += n;
      await opts.onBatch?.({ column: t.name, resealed: n });
    }
  }
  return out;
}

/** The webhooks' sealed values per key id. */
export async function webhookValuesByKey(
  db: Kysely<Database>,
  add: (v: string | null) => void,
): Promise<void> {
  for (const t of TARGETS) {
    const rows = (
      await sql<{
        value: string | null;
      }>`select ${sql.ref(t.column)} as value from ${sql.table(t.table)}`.execute(db)
    ).rows;
    for (const r of rows) add(r.value === ERASED_PAYLOAD ? null : r.value);
  }
}
