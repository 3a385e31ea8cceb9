/**
 * The drop (issue 32, docs/decisions/drops.md): migrations 0030–0034 of the store. The drop's line, and the fleet's
 * RPC budget claim in one call (the balance reads of the buyers it lets through).
 */
import { sql, SqliteAdapter, type Kysely, type Migration } from 'kysely';

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
  /**
   * PostgreSQL: the line's advance (src/server/stock/drop-line-sql.ts `advance`) as one round trip. Under the drop's
   * advisory lock (the fleet's one advance at a time), with a fresh snapshot for each statement after it (a volatile
   * function's), it lets through the next buyers in rank order while the free pieces outnumber those let through
   * whose window is open and who have not held one, and returns each buyer it let through with the free pieces it
   * counted. The lock is held for the function's own time, not for four round trips of a busy instance. SQLite keeps
   * its steps (one writer). Changing the rule: a new migration replaces the function.
   */
  '0031_drop_line_advance': {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async up(db: Kysely<any>) {
      if (db.getExecutor().adapter instanceof SqliteAdapter) return;
      await sql`
        create or replace function drop_line_advance(p_product text, p_now text, p_cutoff text)
        returns table(let_through text, free_units bigint)
        language plpgsql volatile as $fn$
        declare
          v_free bigint;
          v_active bigint;
        begin
          perform pg_advisory_xact_lock(hashtextextended('line:' || p_product, 0));
          select coalesce(sum(case when s.on_hand > s.reserved then s.on_hand - s.reserved else 0 end), 0)
            into v_free from stock s where s.product_id = p_product;
          select count(*) into v_active from drop_line a
            where a.product_id = p_product and a.through_at > p_cutoff and a.done_at is null;
          return query
            update drop_line d set through_at = p_now
            where d.product_id = p_product and d.holder in (
              select n.holder from drop_line n
              where n.product_id = p_product and n.through_at is null and n.done_at is null
              order by n."rank", n.holder
              limit greatest(0, v_free - v_active))
            returning d.holder, v_free;
        end
        $fn$`.execute(db);
    },
  },
  /**
   * PostgreSQL: the first half of a claim on the fleet's RPC budget (src/server/payments/fleet-budget.ts) as one
   * call: the fleet's lock (its claims one at a time), the grants given back (`p_returns`: [{slot, method, n}],
   * taken off the method's row and off '*', never below 0), then the slots a claim counts (from `p_from` on, the
   * methods of `p_methods` and '*'), read with a fresh snapshot after the lock (a volatile function's). The caller
   * decides what fits and writes its grants with the commit (one more round trip): a claim was five or six (begin,
   * lock, each return, read, write, commit), and each waits its turn for a core in a drop's first second, on the
   * way to a let-through buyer's balance. The lock is transaction-scoped: held until the caller's commit.
   * Expand-only: the previous release never calls it.
   */
  '0032_rpc_budget_claim': {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async up(db: Kysely<any>) {
      if (db.getExecutor().adapter instanceof SqliteAdapter) return;
      await sql`
        create or replace function rpc_budget_claim(p_lock text, p_scope text, p_returns jsonb, p_from bigint,
          p_methods jsonb)
        returns table(slot bigint, method text, used integer)
        language plpgsql volatile as $fn$
        begin
          perform pg_advisory_xact_lock(hashtext(p_lock));
          with r as (
            select x.slot, x.method, x.n from jsonb_to_recordset(p_returns) as x(slot bigint, method text, n integer)
          ), back as (
            select r.slot, r.method, sum(r.n) as n from r group by r.slot, r.method
            union all
            select r.slot, '*', sum(r.n) from r group by r.slot
          )
          update rpc_budget_slots s set used = greatest(s.used - back.n, 0)
            from back
            where s.scope = p_scope and s.slot = back.slot and s.method = back.method;
          return query
            select s.slot, s.method, s.used from rpc_budget_slots s
            where s.scope = p_scope and s.slot >= p_from
              and (s.method = '*' or s.method in (select jsonb_array_elements_text(p_methods)));
        end
        $fn$`.execute(db);
    },
  },
  /**
   * PostgreSQL: the join-and-look of the buyers of one product asking at once (src/server/stock/drop-line-join.ts)
   * and, when it finds room, the advance, in one call: the new buyers' rows (their own rank and time; nothing for
   * one in line already), then the free pieces, the buyers let through whose window is open and the first unpaid
   * hold's deadline, read with a fresh snapshot; when the free pieces outnumber those let through and no hold is
   * past its deadline (that case is the caller's: the stock module gives the hold back first), `drop_line_advance`
   * (0031: the drop's lock, then the next in rank order let through at `p_now`) and the counts read again; then
   * each asking buyer's row with how many waiting buyers are before them (by rank, then holder). A buyer let through
   * by the first arrivals' own call learns it from that call: one round trip where there were two, and no wait for
   * the instance's advance lane. Up to 3 buyers: a count each; more: one ordered pass over the line. Output columns
   * are prefixed (`j_`) so they do not shadow the tables' in the function's body.
   */
  '0033_drop_line_join': {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    async up(db: Kysely<any>) {
      if (db.getExecutor().adapter instanceof SqliteAdapter) return;
      await sql`
        create or replace function drop_line_join(p_product text, p_holders text[], p_ranks float8[],
          p_joined text[], p_now text, p_cutoff text)
        returns table(j_holder text, j_rank float8, j_through_at text, j_done_at text, j_free bigint,
          j_active bigint, j_ahead bigint, j_lapse text)
        language plpgsql volatile as $fn$
        declare
          v_free bigint;
          v_active bigint;
          v_lapse text;
        begin
          insert into drop_line (product_id, holder, "rank", joined_at, through_at, done_at)
            select p_product, b.h, b.r, b.j, null, null
            from unnest(p_holders, p_ranks, p_joined) as b(h, r, j)
            order by b.h
            on conflict (product_id, holder) do nothing;
          select coalesce(sum(case when s.on_hand > s.reserved then s.on_hand - s.reserved else 0 end), 0)
            into v_free from stock s where s.product_id = p_product;
          select count(*) into v_active from drop_line a
            where a.product_id = p_product and a.through_at > p_cutoff and a.done_at is null;
          select min(r.expires_at) into v_lapse from reservations r
            where r.product_id = p_product and r.state = 'held';
          if v_free > v_active and (v_lapse is null or v_lapse > p_now) then
            perform 1 from drop_line_advance(p_product, p_now, p_cutoff);
            select coalesce(sum(case when s.on_hand > s.reserved then s.on_hand - s.reserved else 0 end), 0)
              into v_free from stock s where s.product_id = p_product;
            select count(*) into v_active from drop_line a
              where a.product_id = p_product and a.through_at > p_cutoff and a.done_at is null;
          end if;
          if coalesce(array_length(p_holders, 1), 0) <= 3 then
            return query
              select me.holder, me."rank", me.through_at, me.done_at, v_free, v_active,
                (select count(*) from drop_line d
                  where d.product_id = p_product and d.through_at is null and d.done_at is null
                    and d."rank" <= me."rank" and (d."rank" < me."rank" or d.holder < me.holder)),
                v_lapse
              from drop_line me where me.product_id = p_product and me.holder = any(p_holders);
          else
            return query
              with line as (
                select l.holder, l."rank",
                  case when l.through_at is null and l.done_at is null then 1 else 0 end as waits
                from drop_line l
                where l.product_id = p_product
                  and ((l.through_at is null and l.done_at is null) or l.holder = any(p_holders))
              ), place as (
                select line.holder, coalesce(sum(line.waits) over (order by line."rank", line.holder
                  rows between unbounded preceding and 1 preceding), 0)::bigint as ahead
                from line
              )
              select me.holder, me."rank", me.through_at, me.done_at, v_free, v_active, place.ahead, v_lapse
              from drop_line me join place on place.holder = me.holder
              where me.product_id = p_product and me.holder = any(p_holders);
          end if;
        end
        $fn$`.execute(db);
    },
  },
};
