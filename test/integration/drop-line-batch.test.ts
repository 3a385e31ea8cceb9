/**
 * A drop's line when buyers ask at once (src/server/stock/drop-line-join.ts, docs/decisions/drops.md "Fair when it
 * is busy"): on PostgreSQL the joins and looks of one product's buyers asking together share one statement. On a
 * real store (a SQLite file, and PostgreSQL when TEST_DATABASE_URL is set), the line's store itself:
 *
 * - N concurrent arrivals (new buyers and buyers in line already, out of rank order) get the places one by one in
 *   rank order gives (`ahead`), and on PostgreSQL cost one statement, or one per wave while one is out.
 * - The same holder twice in a batch (two tabs): one row, the first's rank, both get it.
 * - Two instances (two stores, two pools, one schema) asking at once let through exactly as many as there are
 *   pieces, in rank order, and the next ones when those windows pass.
 */
import type { Kysely } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { DropRules } from '../../src/core/drop';
import { ADMIT_MS, createDropLine, type DropLine, type LinePlace } from '../../src/server/stock/drop-line';
import type { Database } from '../../src/server/store/schema';
import { openStore, type Store } from '../../src/server/store/store';
import { backendsClosedAfterEach, PG_URL } from './orders-support';
import { countingDb as countingDbOn } from '../support/counting-db';

const { backends, open } = backendsClosedAfterEach();

const START = Date.parse('2030-01-01T12:10:00.000Z');
const rules: DropRules = { startsAt: new Date(START), holdMs: 10 * 60_000, perBuyer: 1 };
const at = (ms: number) => new Date(START + ms);
const turn = () => new Promise((r) => setImmediate(r));

/** A Kysely on `schema` whose pool counts the line's joins (the join's call, or a statement inserting into drop_line). */
function countingDb(schema: string): { db: Kysely<Database>; joins: () => number } {
  const { db, count } = countingDbOn(PG_URL, schema, /drop_line_join\(|insert into "?drop_line"?\s/i);
  open.push({ close: () => db.destroy() });
  return { db, joins: count };
}

/** A migrated store; on PostgreSQL the line runs on a counting pool of its schema. */
async function fresh(backend: (typeof backends)[number]) {
  const config = await backend.fresh();
  const store: Store = await openStore(config);
  open.push(store);
  if (config.kind !== 'postgres') return { store, db: store.db, joins: () => 0, schema: '' };
  if (!config.schema) throw new Error('no schema');
  return { store, ...countingDb(config.schema), schema: config.schema };
}

/** In line before the start at chosen places (ranks in [0, 1)), as their own joins would have put them. */
async function early(store: Store, productId: string, ranks: Record<string, number>) {
  await store.db
    .insertInto('drop_line')
    .values(
      Object.entries(ranks).map(([holder, rank]) => ({
        product_id: productId,
        holder,
        rank,
        joined_at: new Date(START - 60_000).toISOString(),
        through_at: null,
        done_at: null,
      })),
    )
    .execute();
}

async function stock(store: Store, productId: string, units: number) {
  await store.db
    .insertInto('stock')
    .values({
      product_id: productId,
      variant_id: '',
      on_hand: units,
      reserved: 0,
      change_seq: 0,
      updated_at: new Date(START).toISOString(),
    })
    .execute();
}

interface Ask {
  holder: string;
  now: Date;
}
const rankOf = (a: Ask, earlyRanks: Record<string, number>) =>
  earlyRanks[a.holder] ?? 1 + (a.now.getTime() - START);
const byRank = (earlyRanks: Record<string, number>) => (x: Ask, y: Ask) =>
  rankOf(x, earlyRanks) - rankOf(y, earlyRanks) || (x.holder < y.holder ? -1 : x.holder > y.holder ? 1 : 0);
const ask = (line: DropLine, productId: string, a: Ask) =>
  line.standing(productId, rules, a.holder, a.now).then((s) => s.place);

const EARLY = { e0: 0.7, e1: 0.2, e2: 0.9, e3: 0.4, e4: 0.1 };
/** 30 new buyers whose names run against their arrival, some arriving in the same ms, asked out of arrival order. */
const arrivals = (from: number, n = 30, tag = 'n'): Ask[] =>
  Array.from({ length: n }, (_, i) => ({
    holder: `${tag}${String(99 - i).padStart(2, '0')}`,
    now: at(from + ((i * 7) % 13)),
  }));

describe.each(backends.filter((b) => b.enabled))('a drop line asked at once on $name', (backend) => {
  it('N concurrent arrivals get the places of one by one in rank order; on PostgreSQL one statement per batch', async () => {
    const { store, db, joins } = await fresh(backend);
    const line = createDropLine(db, backend.name === 'postgres');
    await early(store, 'a', EARLY);
    await early(store, 'b', EARLY);
    // Those in line already ask again with the newcomers (nothing free: everyone waits and is told who is ahead).
    const asks = [...arrivals(1_000), ...Object.keys(EARLY).map((holder) => ({ holder, now: at(500) }))];

    const together = await Promise.all(asks.map((a) => ask(line, 'a', a)));
    expect(joins()).toBe(backend.name === 'postgres' ? 1 : 0);
    const oneByOne = new Map<string, LinePlace>();
    for (const a of [...asks].sort(byRank(EARLY))) oneByOne.set(a.holder, await ask(line, 'b', a));
    if (backend.name === 'postgres') expect(joins()).toBe(1 + asks.length);

    const sorted = [...asks].sort(byRank(EARLY)).map((a) => a.holder);
    asks.forEach((a, i) => {
      expect(together[i], a.holder).toEqual(oneByOne.get(a.holder));
      expect(together[i], a.holder).toEqual({ state: 'waiting', ahead: sorted.indexOf(a.holder) });
    });
    // Each newcomer's row at their own place.
    const rows = await store.db
      .selectFrom('drop_line')
      .select(['holder', 'rank', 'joined_at'])
      .where('product_id', '=', 'a')
      .execute();
    expect(rows).toHaveLength(asks.length);
    for (const a of asks.filter((x) => x.holder.startsWith('n'))) {
      const r = rows.find((x) => x.holder === a.holder);
      expect(Number(r?.rank), a.holder).toBe(rankOf(a, EARLY));
      expect(r?.joined_at, a.holder).toBe(a.now.toISOString());
    }

    // In waves while a statement is out: each wave waits for the previous one, never one statement per request.
    const before = joins();
    const waves: Promise<LinePlace>[] = [];
    const waved: Ask[] = [];
    for (let w = 0; w < 4; w++) {
      for (const a of arrivals(2_000 + 100 * w, 10, `w${w}-`)) {
        waved.push(a);
        waves.push(ask(line, 'a', a));
      }
      await turn();
    }
    const places = await Promise.all(waves);
    if (backend.name === 'postgres') {
      expect(joins() - before).toBeGreaterThanOrEqual(1);
      expect(joins() - before).toBeLessThan(waved.length / 2);
    }
    const all = [...sorted, ...[...waved].sort(byRank(EARLY)).map((a) => a.holder)];
    waved.forEach((a, i) =>
      expect(places[i], a.holder).toEqual({ state: 'waiting', ahead: all.indexOf(a.holder) }),
    );

    // A few at once (each counted on its own), asked against their arrival: the same places.
    const few: Ask[] = [3, 2, 1].map((k) => ({ holder: `f${k}`, now: at(3_000 + k) }));
    const beforeFew = joins();
    const fewPlaces = await Promise.all(few.map((a) => ask(line, 'a', a)));
    if (backend.name === 'postgres') expect(joins() - beforeFew).toBe(1);
    few.forEach((a, i) =>
      expect(fewPlaces[i], a.holder).toEqual({
        state: 'waiting',
        ahead: all.length + Number(a.holder[1]) - 1,
      }),
    );
  });

  it('the same holder twice in a batch (two tabs): one row at the first one’s place, both told the same; one let through is ahead of no one', async () => {
    const { store, db, joins } = await fresh(backend);
    const line = createDropLine(db, backend.name === 'postgres');
    await early(store, 'a', EARLY);
    // e1 was let through (window open): asking with the others, they are told so and counted ahead of no one.
    await store.db
      .updateTable('drop_line')
      .set({ through_at: at(0).toISOString() })
      .where('holder', '=', 'e1')
      .execute();
    const asks: Ask[] = [
      { holder: 'tab', now: at(2_000) },
      ...arrivals(1_990, 10),
      { holder: 'tab', now: at(2_003) },
      { holder: 'e3', now: at(2_001) },
      { holder: 'e3', now: at(2_002) },
      { holder: 'e1', now: at(2_002) },
    ];
    const places = await Promise.all(asks.map((a) => ask(line, 'a', a)));
    if (backend.name === 'postgres') expect(joins()).toBe(1);
    const rows = await store.db
      .selectFrom('drop_line')
      .select(['holder', 'rank'])
      .where('product_id', '=', 'a')
      .where('holder', 'in', ['tab', 'e3'])
      .orderBy('holder')
      .execute();
    expect(rows.map((r) => [r.holder, Number(r.rank)])).toEqual([
      ['e3', 0.4],
      ['tab', 2_001],
    ]);
    // tab: behind the 4 early ones waiting and the newcomers who came before 2,000 ms (rank ≤ 2,000).
    const sooner = arrivals(1_990, 10).filter((a) => a.now.getTime() - START <= 2_000).length;
    expect(places[0]).toEqual({ state: 'waiting', ahead: 4 + sooner });
    expect(places[11]).toEqual(places[0]);
    expect(places[12]).toEqual({ state: 'waiting', ahead: 1 }); // e4 (0.1); e1 (0.2) is through
    expect(places[13]).toEqual(places[12]);
    expect(places[14]).toEqual({ state: 'through', until: new Date(START + ADMIT_MS).toISOString() });
  });
});

describe.each(backends.filter((b) => b.enabled))('a buyer let through by the advance on $name', (backend) => {
  it('is told so by the join itself: on PostgreSQL the join, the look and the advance in one call', async () => {
    const { store, schema } = await fresh(backend);
    await stock(store, 'p', 2);
    const counted = schema ? countingDbOn(PG_URL, schema, /./) : undefined;
    if (counted) open.push({ close: () => counted.db.destroy() });
    const line = createDropLine(counted?.db ?? store.db, backend.name === 'postgres');
    const standing = await line.standing('p', rules, 'first', at(5));
    expect(standing).toEqual({
      place: { state: 'through', until: new Date(START + 5 + ADMIT_MS).toISOString() },
      free: 2,
    });
    // The join, the look and the advance (lock, room, let through) in one call (migration 0033): no look again.
    if (counted) expect(counted.count()).toBe(1);
    // The next one too; the third waits (two pieces, two let through), one ahead of no one.
    expect((await line.standing('p', rules, 'second', at(6))).place.state).toBe('through');
    expect((await line.standing('p', rules, 'third', at(7))).place).toEqual({ state: 'waiting', ahead: 0 });
  });
});

describe.runIf(PG_URL)('a drop line on two instances (two stores on one PostgreSQL schema)', () => {
  it('buyers asking at once on both let through exactly as many as there are pieces, in rank order', async () => {
    const { store, schema } = await fresh(backends[1]!);
    const one = countingDb(schema);
    const two = countingDb(schema);
    const a = createDropLine(one.db, true);
    const b = createDropLine(two.db, true);
    await stock(store, 'p', 3);
    // Twelve in line before the start, at random places, joined on either instance.
    for (let i = 0; i < 12; i++)
      expect(await ask(i % 2 ? b : a, 'p', { holder: `e${i}`, now: at(-1_000 + i) })).toMatchObject({
        state: 'before_start',
      });
    const early = await store.db
      .selectFrom('drop_line')
      .select(['holder', 'rank'])
      .where('product_id', '=', 'p')
      .orderBy('rank')
      .orderBy('holder')
      .execute();
    const order = early.map((r) => r.holder);
    const joinsBefore = one.joins() + two.joins();

    /** Everyone asks at `now`, half on each instance, in 3 waves (a turn apart) with 20 newcomers among them. */
    const round = async (ms: number) => {
      const asks = [...order.map((holder) => ({ holder, now: at(ms) })), ...arrivals(ms, 20, `r${ms}-`)];
      const out: Promise<LinePlace>[] = [];
      for (let w = 0; w < 3; w++) {
        asks.forEach((x, i) => {
          if (i % 3 === w) out.push(ask(i % 2 ? b : a, 'p', x));
        });
        await turn();
      }
      const places = await Promise.all(out);
      const ordered: Ask[] = [];
      for (let w = 0; w < 3; w++) asks.forEach((x, i) => i % 3 === w && ordered.push(x));
      return new Map(ordered.map((x, i) => [x.holder, places[i]!]));
    };
    const through = async () =>
      (
        await store.db
          .selectFrom('drop_line')
          .select('holder')
          .where('product_id', '=', 'p')
          .where('through_at', 'is not', null)
          .orderBy('holder')
          .execute()
      ).map((r) => r.holder);

    const first = await round(1_000);
    const firstThree = order.slice(0, 3);
    expect(await through()).toEqual([...firstThree].sort());
    for (const [holder, place] of first)
      expect(place.state, holder).toBe(firstThree.includes(holder) ? 'through' : 'waiting');
    expect(one.joins() + two.joins() - joinsBefore).toBeLessThan(first.size);

    // Their windows pass unused: the next three in rank order, and only they.
    const second = await round(1_000 + ADMIT_MS + 1);
    const nextThree = order.slice(3, 6);
    expect(await through()).toEqual([...firstThree, ...nextThree].sort());
    for (const [holder, place] of second)
      expect(place.state, holder).toBe(
        firstThree.includes(holder) ? 'done' : nextThree.includes(holder) ? 'through' : 'waiting',
      );
    const stats = await a.stats('p', at(1_000 + ADMIT_MS + 1));
    expect(stats).toMatchObject({ through: 3, lapsed: 3, held: 0, joined: 12 + 40 });
  });
});
