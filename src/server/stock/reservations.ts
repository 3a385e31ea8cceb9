/**
 * An order's reservations (./repository.ts): held in the order's transaction, released on expiry, sold on payment
 * (or oversold), and put back on sale when a paid order is cancelled. Each moves the order's reservations and
 * the stock lines in the caller's transaction, so the order's status and its stock never disagree.
 */
import { DomainError } from '../../core/errors';
import { randomUUID } from 'node:crypto';
import { sql, type Transaction } from 'kysely';
import {
  availableOf,
  OutOfStockError,
  saleOutcome,
  type StockKey,
  type StockRequest,
} from '../../core/stock';
import type { Store } from '../store/store';
import { assertUnderCap, judgeCap, recordUnheld } from './holds';
import { releaseHeld, releaseHoldsOf, releaseLapsed } from './hold-release';
import { holdFactsRead, readHoldFacts, type HoldAsk, type HoldFacts } from './hold-facts';
import { endTurn, endTurnWrites, type TurnWrite } from './drop-turn';
import { releaseOverBalance, type BalanceOf } from './wallet-holds';
import { availableMap, keyOf, log, markReservation, moveLine, variantOf } from './lines';
import { withCommit } from '../store/pg-simple';
import { lockBuyer } from './xact-locks';
import type { Database } from '../store/schema';

/** What a payment that completes an order did to its stock. `none`: the order holds no reservation. */
export type SaleResult = 'sold' | 'oversold' | 'none';

export interface Reservations {
  /**
   * In the order's transaction: holds the lines until `expiresAt` (the hold's own deadline: ./hold-release.ts
   * releases it then, whatever the order's state), or throws OutOfStockError (roll back). `holder`: the client
   * making the hold (keyed hash); with `limitPerClient` the per-client cap is checked first, in this transaction
   * (./holds.ts: 429 hold_limit), on `judged.facts` when they were read (`readHoldFacts`), else read here. `payer`:
   * the wallet whose balance the hold counts against (judged before, on the facts). `judged.turns`: the drops'
   * lines the buyer leaves with this hold (./drop-turn.ts `endTurn`; on PostgreSQL in the reservation's statement).
   * `judged.last`: nothing follows in the transaction; on PostgreSQL the last line's statement carries the commit
   * (../store/pg-simple.ts), so the stock row's lock ends with it; too few free rolls the transaction back here.
   */
  reserve(
    trx: Transaction<Database>,
    orderId: string,
    lines: readonly StockRequest[],
    expiresAt: string,
    at: string,
    holder?: string,
    limitPerClient?: number,
    payer?: string,
    judged?: { facts?: HoldFacts; turns?: readonly Turn[]; last?: boolean },
  ): Promise<void>;
  /**
   * In the order's transaction, before `reserve` and before anything locks a stock row: the buyer's locks
   * (PostgreSQL: the wallet's, and with `ask.holder` the client's, held to the commit), then in one read what the
   * hold's rules need: the wallet's open holds (the balance rule), the buyer's units of each drop (the per-buyer
   * limit), the client's unpaid units (the cap). ./hold-facts.ts; the rules are pure functions of these.
   */
  readHoldFacts(trx: Transaction<Database>, ask: HoldAsk): Promise<HoldFacts>;
  /**
   * The buyer's locks of a hold (PostgreSQL: the wallet's, then with `holder` the client's, held to the commit;
   * SQLite has one writer), asked first in the order's transaction, so they go with its `begin` in one round trip;
   * `readHoldFacts` then finds them held.
   */
  lockBuyer(trx: Transaction<Database>, wallet: string, holder?: string): Promise<void>;
  /**
   * PostgreSQL: the facts' one read (./hold-facts.ts `holdFactsRead`), unrun, for a statement that starts after the
   * buyer's locks to carry (the order's insert); SQLite: undefined (`readHoldFacts` reads step by step).
   */
  holdFactsRead(ask: HoldAsk): ReturnType<typeof holdFactsRead> | undefined;
  /** The expiry timer: held wallets read again; holds beyond a wallet's balance are released. Units released. */
  releaseOverBalance(at: string, balanceOf: BalanceOf): Promise<number>;
  /** Every hold past its own deadline (`at`, the wall clock) is released. Returns the units released. */
  releaseLapsed(at: string): Promise<number>;
  /**
   * The vendor releases everything held on one line (`actor`: who). The orders stay open; a payment that still
   * comes is judged by the sale rule. Returns the units released.
   */
  releaseHoldsOf(key: StockKey, actor: string, at: string): Promise<number>;
  /**
   * In the expiry's transaction: the order's held reservations are released (`actor`: 'expiry', or 'requote' when
   * a QR record changes its quantity and reserves again). Returns units released.
   */
  release(trx: Transaction<Database>, orderId: string, at: string, actor?: string): Promise<number>;
  /**
   * In the payment's transaction, when the payment completes the order: held reservations become a sale; released
   * ones are sold when the units are still available, and otherwise the order is oversold (nothing is sold).
   * `lines`: the order's items, for an order that never held stock (a QR record paid before its details): sold
   * like a released reservation.
   */
  sell(
    trx: Transaction<Database>,
    orderId: string,
    at: string,
    lines?: readonly StockRequest[],
  ): Promise<SaleResult>;
  /**
   * In the cancellation's transaction (the seller cancels a paid order before shipping): the units the order
   * bought go back on sale (`restock`, its reservations become `released`), and any still held are released.
   * Returns the units put back.
   */
  restock(trx: Transaction<Database>, orderId: string, at: string, actor: string): Promise<number>;
  /**
   * In the deletion's transaction of an order record that never sold anything (an expired QR record): its
   * reservations (released by then) are forgotten; the stock change log keeps their history.
   */
  forget(trx: Transaction<Database>, orderId: string): Promise<void>;
}

/** A drop's line the buyer leaves with this hold: the products they `ordered`, and `all` they are done with. */
export interface Turn {
  ordered: readonly string[];
  all: readonly string[];
}

/** The reservation row of a hold: who holds it (`holder`, `payer`) and until when. */
interface HoldRow {
  orderId: string;
  expiresAt: string;
  at: string;
  holder: string | null;
  payer: string | null;
}

/**
 * PostgreSQL: the reservation row, the conditional UPDATE and its change-log row in one statement; true when the
 * UPDATE matched. When it matches no row (too few free) the caller throws and the transaction rolls back,
 * reservation row included. `u.change_seq` is the row version the UPDATE wrote (re-read after waiting for a
 * concurrent order's lock). `also`: writes carried in the same statement (the buyer's turn in a drop's line ends,
 * ./drop-turn.ts), written whether or not the UPDATE matched (no match rolls everything back).
 * `commit`: the statement is the transaction's last and carries its commit (one round trip: the stock row, which
 * every order for the product waits for, is locked for PostgreSQL's own time, not until this instance's next turn
 * to send the commit); no match raises instead, PostgreSQL skips the commit and the transaction is rolled back here.
 */
async function reservePg(
  trx: Transaction<Database>,
  line: StockRequest,
  hold: HoldRow,
  also: readonly TurnWrite[] = [],
  commit = false,
): Promise<boolean> {
  const variant = variantOf(line);
  const { orderId, at } = hold;
  const statement = sql<{ matched: number }>`
    with r as (
      insert into reservations (order_id, product_id, variant_id, quantity, state, expires_at, created_at,
        updated_at, holder, payer)
      values (${orderId}::text, ${line.productId}::text, ${variant}::text, ${line.quantity}::integer, 'held',
        ${hold.expiresAt}::text, ${at}::text, ${at}::text, ${hold.holder}::text, ${hold.payer}::text)
      -- A QR record that changes its quantity reserves again after releasing (same order, same line).
      on conflict (order_id, product_id, variant_id) do update set quantity = excluded.quantity, state = 'held',
        expires_at = excluded.expires_at, updated_at = excluded.updated_at, holder = excluded.holder,
        payer = excluded.payer
    ), u as (
      update stock
      set reserved = reserved + ${line.quantity}::integer, change_seq = change_seq + 1, updated_at = ${at}::text
      where product_id = ${line.productId}::text and variant_id = ${variant}::text
        and on_hand - reserved >= ${line.quantity}::integer
      returning on_hand, reserved, change_seq
    ), logged as (
      insert into stock_changes (id, product_id, variant_id, seq, kind, on_hand_delta, reserved_delta,
        on_hand_after, reserved_after, order_id, actor, at)
      select ${randomUUID()}::text, ${line.productId}::text, ${variant}::text, u.change_seq, 'reserve', 0,
        ${line.quantity}::integer, u.on_hand, u.reserved, ${orderId}::text, 'order', ${at}::text
      from u
    )${sql.join(
      also.map((w, i) => sql`, ${sql.raw(`turn${i}`)} as (${w})`),
      sql``,
    )}
    select ${
      commit
        ? // With the commit: no match raises (the text is not a number), so PostgreSQL skips the commit.
          sql`cast(case when (select count(*) from u) = 1 then '1' else ${sql.lit(OUT_OF_STOCK)} end as integer)`
        : sql`(select count(*) from u)::integer`
    } as matched`;
  if (!commit) return (await statement.execute(trx)).rows[0]?.matched === 1;
  try {
    await sql.raw(withCommit(statement.compile(trx))).execute(trx);
    return true;
  } catch (err) {
    if (!(err instanceof Error && err.message.includes(OUT_OF_STOCK))) throw err;
    // Too few free: the transaction is aborted; it ends here (the caller reads what is free, then throws).
    await sql.raw('rollback').execute(trx);
    return false;
  }
}

/** The text a reservation that carries the commit raises when too few are free (./reservations.ts `reservePg`). */
const OUT_OF_STOCK = 'claim_out_of_stock';

/** SQLite (one writer): the reservation row, then the stock row's conditional UPDATE (its log row follows). */
async function reserveSqlite(
  trx: Transaction<Database>,
  line: StockRequest,
  orderId: string,
  expiresAt: string,
  at: string,
  holder: string | undefined,
  payer: string | undefined,
): Promise<{ on_hand: number; reserved: number; change_seq: number } | undefined> {
  await trx
    .insertInto('reservations')
    .values({
      order_id: orderId,
      product_id: line.productId,
      variant_id: variantOf(line),
      quantity: line.quantity,
      state: 'held',
      expires_at: expiresAt,
      created_at: at,
      updated_at: at,
      holder: holder ?? null,
      payer: payer ?? null,
    })
    // A QR record that changes its quantity reserves again after releasing (same order, same line).
    .onConflict((oc) =>
      oc.columns(['order_id', 'product_id', 'variant_id']).doUpdateSet({
        quantity: line.quantity,
        state: 'held',
        expires_at: expiresAt,
        updated_at: at,
        holder: holder ?? null,
        payer: payer ?? null,
      }),
    )
    .execute();
  return trx
    .updateTable('stock')
    .set((eb) => ({
      reserved: eb('reserved', '+', line.quantity),
      change_seq: eb('change_seq', '+', 1),
      updated_at: at,
    }))
    .where('product_id', '=', line.productId)
    .where('variant_id', '=', variantOf(line))
    .where((eb) => eb(eb('on_hand', '-', eb.ref('reserved')), '>=', line.quantity))
    .returning(['on_hand', 'reserved', 'change_seq'])
    .executeTakeFirst();
}

export function createReservations(store: Store): Reservations {
  const isPg = store.dialect === 'postgres';
  return {
    async reserve(trx, orderId, lines, expiresAt, at, holder, limitPerClient, payer, judged) {
      const turns = holder ? (judged?.turns ?? []) : [];
      // SQLite: the buyer leaves the drop's lines first (PostgreSQL: in the reservation's statement below).
      if (!isPg) for (const t of turns) await endTurn(trx, holder!, t.ordered, t.all, at);
      if (holder && limitPerClient !== undefined) {
        const asking = lines.reduce((n, l) => n + l.quantity, 0);
        const read = judged?.facts?.cap;
        if (read) judgeCap(read, limitPerClient, asking);
        else await assertUnderCap(trx, isPg, holder, limitPerClient, asking, orderId, at);
      }
      for (const [i, line] of lines.entries()) {
        if (!Number.isInteger(line.quantity) || line.quantity <= 0)
          throw new DomainError('invalid', 'invalid_stock', `bad quantity ${line.quantity}`, {
            field: 'quantity',
          });
        // PostgreSQL: the reservation row, the stock row's UPDATE and its log in one statement (reservePg), the
        // first line's with the end of the buyer's turn in the drop's lines.
        const also =
          isPg && i === 0 ? turns.flatMap((t) => endTurnWrites(trx, holder!, t.ordered, t.all, at)) : [];
        // The last line's statement carries the commit when the reservation ends the transaction (`judged.last`).
        const commit = isPg && judged?.last === true && i === lines.length - 1;
        const row = isPg
          ? await reservePg(
              trx,
              line,
              {
                orderId,
                expiresAt,
                at,
                holder: holder ?? null,
                payer: payer ?? null,
              },
              also,
              commit,
            )
          : await reserveSqlite(trx, line, orderId, expiresAt, at, holder, payer);
        if (!row) {
          const available = await availableMap(trx, [line]);
          throw new OutOfStockError(line.productId, line.variantId, line.name, available(line));
        }
        // PostgreSQL wrote the change-log row in the same statement.
        if (row !== true)
          await log(trx, line, 'reserve', { onHand: 0, reserved: line.quantity }, row, orderId, 'order', at);
      }
    },

    readHoldFacts: (trx, ask) => readHoldFacts(trx, isPg, ask),
    holdFactsRead: (ask) => (isPg ? holdFactsRead(ask) : undefined),
    lockBuyer: async (trx, wallet, holder) => {
      if (isPg) await lockBuyer(trx, wallet, holder);
    },

    async release(trx, orderId, at, actor = 'expiry') {
      const held = await trx
        .selectFrom('reservations')
        .selectAll()
        .where('order_id', '=', orderId)
        .where('state', '=', 'held')
        .execute();
      let n = 0;
      for (const r of held) n += await releaseHeld(trx, r, at, actor);
      return n;
    },

    async forget(trx, orderId) {
      await trx.deleteFrom('reservations').where('order_id', '=', orderId).execute();
    },

    releaseLapsed: (at) => releaseLapsed(store.db, at),
    releaseOverBalance: (at, balanceOf) => releaseOverBalance(store.db, at, balanceOf),
    releaseHoldsOf: (key, actor, at) => releaseHoldsOf(store.db, key, actor, at),

    async sell(trx, orderId, at, lines) {
      // Locked (PostgreSQL): a hold released meanwhile on its own deadline or by the vendor (./hold-release.ts,
      // a conditional update of the same row) is read as released, never sold as held.
      const mineNow = () => {
        const sel = trx
          .selectFrom('reservations')
          .selectAll()
          .where('order_id', '=', orderId)
          .where('state', 'in', ['held', 'released'])
          .orderBy('product_id')
          .orderBy('variant_id');
        return (isPg ? sel.forUpdate() : sel).execute();
      };
      let mine = await mineNow();
      if (mine.length === 0 && lines?.length) {
        // Never held (paid before its details): sold like a released reservation, if the units are there.
        await recordUnheld(trx, orderId, lines, at);
        mine = await mineNow();
      }
      if (mine.length === 0) return 'none';
      // Lock the lines (PostgreSQL; SQLite has one writer), then decide for the whole order before changing any.
      const current = new Map<string, { on_hand: number; reserved: number }>();
      for (const r of mine) {
        let sel = trx
          .selectFrom('stock')
          .select(['on_hand', 'reserved'])
          .where('product_id', '=', r.product_id)
          .where('variant_id', '=', r.variant_id);
        if (isPg) sel = sel.forUpdate();
        const row = await sel.executeTakeFirst();
        current.set(`${r.product_id}/${r.variant_id}`, {
          on_hand: Number(row?.on_hand ?? 0),
          reserved: Number(row?.reserved ?? 0),
        });
      }
      const outcomes = mine.map((r) => {
        const s = current.get(`${r.product_id}/${r.variant_id}`) ?? { on_hand: 0, reserved: 0 };
        return saleOutcome(
          r.state === 'held',
          availableOf({ onHand: s.on_hand, reserved: s.reserved }),
          Number(r.quantity),
        );
      });
      const oversold = outcomes.includes('oversold');
      for (const r of mine) {
        const key = keyOf(r);
        const q = Number(r.quantity);
        const held = r.state === 'held';
        // Oversold: nothing is sold; a line still held is released (the whole order is refunded).
        const onHandDelta = oversold ? 0 : -q;
        const reservedDelta = held ? -q : 0;
        // Written even when no count moves (an oversold line no longer held): the change log's seq moves on.
        const row = await moveLine(trx, r, onHandDelta, reservedDelta, at);
        await markReservation(trx, r, oversold ? 'oversold' : 'sold', at);
        await log(
          trx,
          key,
          oversold ? 'oversold' : 'sale',
          { onHand: onHandDelta, reserved: reservedDelta },
          row,
          orderId,
          'payment',
          at,
        );
      }
      return oversold ? 'oversold' : 'sold';
    },

    async restock(trx, orderId, at, actor) {
      const sel = trx
        .selectFrom('reservations')
        .selectAll()
        .where('order_id', '=', orderId)
        .where('state', 'in', ['held', 'sold'])
        .orderBy('product_id')
        .orderBy('variant_id');
      const mine = await (isPg ? sel.forUpdate() : sel).execute();
      let n = 0;
      for (const r of mine) {
        const key = keyOf(r);
        const q = Number(r.quantity);
        const sold = r.state === 'sold';
        const delta = sold ? { onHand: q, reserved: 0 } : { onHand: 0, reserved: -q };
        const row = await moveLine(trx, r, delta.onHand, delta.reserved, at);
        await markReservation(trx, r, 'released', at);
        await log(trx, key, sold ? 'restock' : 'release', delta, row, orderId, actor, at);
        if (sold) n += q;
      }
      return n;
    },
  };
}
