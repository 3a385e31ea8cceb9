/**
 * Seller alerts about no order, queued by the price module (outbox rows with no order, ../mail/queue.ts): while
 * the two $CLAIM price sources disagree, quotes are refused and every vendor's seller address is e-mailed once
 * per episode. Table price_alerts keeps whether an episode is open, so several instances and restarts send one
 * e-mail per episode: the instance whose conditional UPDATE opens it writes the messages, in that transaction.
 */
import type { Kysely } from 'kysely';
import { buildPriceAlertEmail } from '../../core/email-payload';
import { sellerEmailFor, type Settings } from '../settings';
import { queueMail } from '../mail/queue';
import { sealMail } from '../privacy/order-data';
import type { Sealer } from '../privacy/seal';
import type { Database } from '../store/schema';

const KIND = 'sources_disagree';

export interface PriceAlertDeps {
  db: Kysely<Database>;
  settings: Pick<Settings, 'mail' | 'recipients'>;
  /** Seals the message like every stored e-mail (the outbox opens every row strictly: a plain one is unreadable). */
  sealer: Sealer;
}

export interface SourcesDisagree {
  at: Date;
  spotUsd: string;
  secondUsd: string;
  spreadBps: number;
  maxSpreadBps: number;
}

const percent = (bps: number) => `${Math.floor(bps / 100)}.${String(bps % 100).padStart(2, '0')} %`;

export function priceAlertText(e: SourcesDisagree): string {
  return (
    `Quotes are paused: the two $CLAIM price sources disagree by ${percent(e.spreadBps)} ` +
    `(DexScreener $${e.spotUsd}, GeckoTerminal $${e.secondUsd}; the limit is ${percent(e.maxSpreadBps)}). ` +
    'Buyers are told the price cannot be trusted right now. Quotes resume by themselves once the sources agree ' +
    'again; this message is sent once per episode.'
  );
}

/**
 * Opens an episode if none is open and queues the alert to each distinct seller address. Returns the number of
 * messages queued (0: an episode was already open).
 */
export async function openPriceAlert(deps: PriceAlertDeps, e: SourcesDisagree): Promise<number> {
  const at = e.at.toISOString();
  return deps.db.transaction().execute(async (trx) => {
    const opened = await trx
      .updateTable('price_alerts')
      .set({ open_since: at })
      .where('kind', '=', KIND)
      .where('open_since', 'is', null)
      .executeTakeFirst();
    if (Number(opened.numUpdatedRows) !== 1) return 0;
    const text = priceAlertText(e);
    const sent = new Set<string>();
    for (const group of Object.keys(deps.settings.recipients)) {
      const to = sellerEmailFor(deps.settings.mail, group);
      if (sent.has(to)) continue;
      sent.add(to);
      const mail = buildPriceAlertEmail(to, text);
      await queueMail(trx, {
        order_id: null,
        kind: 'price_alert',
        role: 'seller',
        payout_group: group,
        payment_seen: 0,
        ...sealMail(deps.sealer, null, mail),
        next_attempt_at: at,
        created_at: at,
        payment_signature: `price_alert:${at}`,
      }).execute();
    }
    return sent.size;
  });
}

/** Closes the open episode (the sources agree again); true when one was open. */
export async function closePriceAlert(deps: Pick<PriceAlertDeps, 'db'>): Promise<boolean> {
  const res = await deps.db
    .updateTable('price_alerts')
    .set({ open_since: null })
    .where('kind', '=', KIND)
    .where('open_since', 'is not', null)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) === 1;
}
