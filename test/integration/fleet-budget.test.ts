/**
 * A fleet shares its RPC budget (issue 31, item 5): two server instances composed as main.ts runs them (the
 * payment watcher service included) on one PostgreSQL store, against one local network that enforces exactly
 * SOLANA_RPC_BUDGET (the public endpoint's limits: 100 requests per 10 s, 40 per method, per client address; both
 * instances are the same address, as a fleet behind one NAT is). The watcher works through a dust backlog on the
 * vendor's account, buyers pay with their wallets and send the "I sent it" hint to either instance, both
 * instances read buyers' balances and answer readiness probes. The local network refuses nothing (0 × 429), the
 * fleet's budget was full at times (its claims were refused: the test ran at the limit), and every payment is
 * recorded. Runs when TEST_DATABASE_URL is set.
 */
import { address } from '@solana/kit';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection, Keypair, PublicKey, Transaction } from '@solana/web3.js';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalnet, type Localnet } from '../support/localnet.js';
import { RpcBudget } from '../../src/server/payments/budget.js';
import { createFleetBudget } from '../../src/server/payments/fleet-budget.js';
import { openStore } from '../../src/server/store/store.js';
import { PUBLIC_LIMITS } from '../../src/localnet/rate-limit.js';
import { paymentsService } from '../../src/server/payments/index.js';
import { startServer, type RunningServer } from '../../src/server/server.js';
import { loadSettings } from '../../src/server/settings/index.js';
import { addStock } from '../support/stock.js';
import { faucet, pay, placeWalletOrder, transferIx, waitFor } from './payments-support.js';

const PG_URL = process.env.TEST_DATABASE_URL;

describe.runIf(PG_URL)('a fleet shares one RPC budget (PostgreSQL)', () => {
  const cleanups: (() => Promise<void> | void)[] = [];
  afterAll(async () => {
    for (const fn of cleanups.reverse()) await fn();
  });
  /** A new schema's name for this test's stores, dropped after the file's tests. */
  const freshSchema = () => {
    const schema = `t_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
    cleanups.push(async () => {
      const client = new pg.Client({ connectionString: PG_URL });
      await client.connect();
      await client.query(`drop schema if exists "${schema}" cascade`);
      await client.end();
    });
    return schema;
  };

  it('three processes asking at once never get more than the budget in any window (per method too)', async () => {
    const schema = freshSchema();
    const windowMs = 1_000;
    const sent: { t: number; m: string; p: number }[] = [];
    const budgets: RpcBudget[] = [];
    for (let p = 0; p < 3; p++) {
      const store = await openStore({ kind: 'postgres', url: PG_URL ?? '', schema, poolSize: 2 });
      cleanups.push(() => store.close());
      budgets.push(
        new RpcBudget({
          perWindow: 20,
          perMethod: 8,
          windowMs,
          shared: createFleetBudget({ db: store.db, windowMs, slotMs: 50 }),
        }),
      );
    }
    const until = Date.now() + 3_500;
    await Promise.all(
      budgets.flatMap((budget, p) =>
        ['getTransaction', 'getSignaturesForAddress', 'getSlot', 'getAccountInfo'].map(async (m) => {
          while (Date.now() < until) {
            const ok = await budget.acquire([m], Date.now() + 2_000).then(
              () => true,
              () => false,
            );
            if (ok) sent.push({ t: Date.now(), m, p });
          }
        }),
      ),
    );
    const maxIn = (list: number[]) => {
      let max = 0;
      for (const start of list)
        max = Math.max(max, list.filter((t) => t > start - windowMs && t <= start).length);
      return max;
    };
    const times = sent.map((s) => s.t).sort((x, y) => x - y);
    const byMethod = ['getTransaction', 'getSignaturesForAddress', 'getSlot', 'getAccountInfo'].map((m) =>
      maxIn(sent.filter((s) => s.m === m).map((s) => s.t)),
    );
    console.info(
      `sent ${sent.length} in 3.5 s (20 per 1 s allowed); most in one window ${maxIn(times)}, per method ${byMethod.join('/')}`,
    );
    expect(maxIn(times)).toBeLessThanOrEqual(20);
    for (const n of byMethod) expect(n).toBeLessThanOrEqual(8);
    // Every process got its share (nobody starved), and the window moves on: more than one window's allowance
    // over 3.5 s. How much more is the machine's (46 and 33 seen in two clean-clone CI runs): not a bound here.
    for (let p = 0; p < 3; p++) expect(sent.filter((s) => s.p === p).length).toBeGreaterThan(0);
    expect(sent.length).toBeGreaterThan(20);
  });

  it('a claim is two round trips (the lock, give-back and read in one call; the grants with the commit), and what it gives back leaves the slots', async () => {
    const schema = freshSchema();
    const store = await openStore({ kind: 'postgres', url: PG_URL ?? '', schema, poolSize: 2 });
    cleanups.push(() => store.close());
    let t = 1_800_000_000_000; // a slot boundary (250 ms)
    const budget = createFleetBudget({ db: store.db, now: () => t, prefetch: 3 });
    const limits = { total: 100, perMethod: 40 };
    const sentTexts: string[] = [];
    const query = pg.Client.prototype.query;
    pg.Client.prototype.query = function (this: pg.Client, ...args: unknown[]) {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
      if (text) sentTexts.push(text);
      return (query as (...a: unknown[]) => unknown).apply(this, args);
    } as typeof query;
    const slots = async () =>
      (
        await store.db
          .selectFrom('rpc_budget_slots')
          .select(['slot', 'method', 'used'])
          .orderBy('slot')
          .orderBy('method')
          .execute()
      ).map((r) => `${Number(r.slot) - t / 250 + 0} ${r.method} ${r.used}`);
    try {
      // A first claim: one grant asked, three more taken ahead (prefetch), written in this slot.
      expect(await budget.take(['getAccountInfo'], limits, false)).toBe(0);
      expect(sentTexts).toHaveLength(2);
      expect(sentTexts[0]).toMatch(/^begin;\s*select slot, method, used from rpc_budget_claim\(/);
      expect(sentTexts[1]).toMatch(/insert into "rpc_budget_slots"[\s\S]*;\ncommit$/);
      expect(await slots()).toEqual(['0 * 4', '0 getAccountInfo 4']);
      // The three taken ahead go unused; three slots later they are stale: the next claim gives them back (the
      // method's row and '*', in its first round trip) and takes four more in the slot of its time.
      sentTexts.length = 0;
      t += 750;
      expect(await budget.take(['getAccountInfo'], limits, false)).toBe(0);
      expect(sentTexts).toHaveLength(2);
      expect(await slots()).toEqual(['-3 * 1', '-3 getAccountInfo 1', '0 * 4', '0 getAccountInfo 4']);
      expect(budget.stats()).toMatchObject({ claims: 2, returned: 3, refused: 0 });
      // A claim the window cannot fit (5 in all; once the 3 in hand go back, 2 are counted, and 4 are asked):
      // refused in two round trips (the call, then the commit that ends its lock); what it gave back stays given.
      sentTexts.length = 0;
      t += 750;
      const wait = await budget.take(
        ['getAccountInfo', 'getAccountInfo', 'getAccountInfo', 'getAccountInfo'],
        { total: 5, perMethod: 40 },
        false,
      );
      expect(wait).toBeGreaterThan(0);
      expect(sentTexts).toHaveLength(2);
      expect(sentTexts[1]).toMatch(/^\s*commit\s*$/i);
      expect(await slots()).toEqual(['-6 * 1', '-6 getAccountInfo 1', '-3 * 1', '-3 getAccountInfo 1']);
      expect(budget.stats()).toMatchObject({ claims: 3, returned: 6, refused: 1 });
    } finally {
      pg.Client.prototype.query = query;
    }
  });

  it('two instances, a busy watcher and hints: 0 × 429 at the network, every payment recorded', async () => {
    const net: Localnet = await startLocalnet({ port: 0, slotMs: 40, finalizeLag: 6, publicLimits: true });
    cleanups.push(() => net.close());
    const keys = net.keys!;
    const schema = freshSchema();
    const dir = mkdtempSync(join(tmpdir(), 'claim-fleet-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const settings = loadSettings(
      {
        PORT: '0',
        LOCALNET_PORT: String(net.port),
        DATABASE_URL: join(dir, 'unused.sqlite'),
        MAIL_TRANSPORT: 'file',
        MAIL_DIR: join(dir, 'mail'),
        HOLD_LIMIT_PER_CLIENT: '0',
        // Exactly what the network allows.
        SOLANA_RPC_BUDGET: String(PUBLIC_LIMITS.total),
      },
      {
        claimMint: keys.mint.toBase58(),
        recipients: {
          coopersglass: keys.recipients.coopersglass.toBase58(),
          gorilla: keys.recipients.gorilla.toBase58(),
        },
      },
    );
    const instances: RunningServer[] = [];
    for (let i = 0; i < 2; i++) {
      const server = await startServer(settings, {
        store: { kind: 'postgres', url: PG_URL ?? '', schema },
        services: [paymentsService()],
        retention: false,
      });
      instances.push(server);
      cleanups.push(() => server.close());
    }
    const [a, b] = instances as [RunningServer, RunningServer];

    // The dust backlog: transfers to both vendors' accounts straight into the chain, each its own signature.
    const attacker = Keypair.generate();
    await faucet(net, attacker.publicKey, 10, 1_000_000);
    let dustN = 0;
    for (let i = 0; i < 240; i++) {
      const tx = new Transaction({
        feePayer: attacker.publicKey,
        recentBlockhash: net.chain.latestBlockhash('processed').blockhash,
      }).add(
        transferIx({
          from: attacker,
          recipientOwner: i % 2 ? keys.recipients.gorilla : keys.recipients.coopersglass,
          mint: keys.mint,
          amount: BigInt(++dustN),
          references: [],
        }),
      );
      tx.sign(attacker);
      const res = net.chain.process(net.chain.decode(new Uint8Array(tx.serialize())));
      if ('dropped' in res) throw new Error(`dust dropped: ${res.dropped.message}`);
    }
    const throttledBefore = net.rpcStats().throttled;

    // Buyers' balance reads on both instances (the wallet-hold check) and readiness probes, for the whole run.
    let on = true;
    const background = [
      (async () => {
        for (let i = 0; on; i++) {
          const server = i % 2 ? b : a;
          await server.chain.api
            .getAccountInfo(address(Keypair.generate().publicKey.toBase58()), { encoding: 'base64' })
            .send()
            .catch(() => undefined);
          await new Promise((r) => setTimeout(r, 150));
        }
      })(),
      (async () => {
        while (on) {
          await Promise.all(
            instances.map((s) =>
              fetch(`${s.url}/api/health/ready`).then(
                (r) => r.text(),
                (err: unknown) => console.warn('readiness probe:', err),
              ),
            ),
          );
          await new Promise((r) => setTimeout(r, 1_000));
        }
      })(),
    ];

    // Three wallet payments, each hinted to both instances.
    const buyer = Keypair.generate();
    await faucet(net, buyer.publicKey, 10, 1_000_000);
    const buyerConnection = new Connection(net.rpcUrl, {
      commitment: 'confirmed',
      httpHeaders: { 'x-localnet-client': 'buyer' },
    });
    const paidIds: string[] = [];
    for (let i = 0; i < 3; i++) {
      const at = i % 2 ? b : a;
      await addStock(at, 'lilac-tiptop', 1);
      const created = await placeWalletOrder(
        at.orders,
        settings,
        () => new Date(),
        'lilac-tiptop',
        `fleet-${i}`,
      );
      const order = await at.orders.findOrder({ orderId: created.body.orderId });
      if (!order) throw new Error('order not found');
      const signature = await pay(buyerConnection, {
        from: buyer,
        recipientOwner: new PublicKey(order.recipient),
        mint: new PublicKey(order.mint),
        amount: order.amountBaseUnits,
        references: [new PublicKey(order.reference)],
      });
      for (const s of instances)
        await fetch(`${s.url}/api/orders/${order.orderId}/payment`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ signature }),
        });
      paidIds.push(order.orderId);
      await new Promise((r) => setTimeout(r, 4_000));
    }
    for (const id of paidIds)
      await waitFor(
        `order ${id} recorded as paid`,
        async () =>
          ['paid', 'final'].includes((await a.orders.findOrder({ orderId: id }))?.status ?? '')
            ? true
            : undefined,
        60_000,
        250,
      );
    on = false;
    await Promise.all(background);

    const stats = instances.map((s) => s.budget.stats());
    console.info(
      `fleet budget: network accepted ${net.rpcStats().accepted}, throttled ${net.rpcStats().throttled - throttledBefore}; ` +
        stats
          .map(
            (s, i) =>
              `instance ${i}: sent ${s.requests}, claims ${s.shared?.claims}, refused ${s.shared?.refused}, given back ${s.shared?.returned}`,
          )
          .join('; '),
    );
    expect(net.rpcStats().throttled - throttledBefore).toBe(0);
    expect(stats.every((s) => s.throttled === 0)).toBe(true);
    // The run was at the limit: the fleet's budget refused claims at times.
    expect(stats.reduce((n, s) => n + (s.shared?.refused ?? 0), 0)).toBeGreaterThan(0);
  });
});
